# SPDX-License-Identifier: GPL-2.0
# tests/bench_fakes.sh - sourced by the bench/ab session tests: bench_fakes DIR
# makes DIR/path (nvidia-smi, nvcc), DIR/fakepy (the workloads: cupy_pool.py
# prints a BENCH line; torch_train.py and gnn_sage.py steps of 20 ms, 22 ms
# while an engine's stats file exists; FAKE_START seconds of start first),
# DIR/gpuctl (an engine for -- CMD and -p PID, its arguments appended to
# $FAKE_DIR/args.<its name>; its age_p99_us 5000 under -- CMD, 4000 under
# -p, and as gpuctl-tree 3000 and 2000 with a move_yields; its age_hist_us
# 90 allocations at 100 us and 10 at that P99), DIR/bin (gpuctl-tree, gpuctl-abc1234, BUILD:
# ref abc1234, tree def5678).
bench_fakes() {
	local F=$1
mkdir -p "$F/path" "$F/bin"
cat >"$F/path/nvidia-smi" <<'EOF'
#!/bin/bash
echo "NVIDIA Fake 80GB, GPU-00000000-0000-0000-0000-000000000000, 580.159.04, 80000, 81559"
EOF
cat >"$F/path/nvcc" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift ;; *.cu) src=$1 ;; esac; shift; done
case $src in
*sweep.cu|*cpumix.cu) printf '#!/bin/bash\nl="BENCH {\\"metric\\":\\"kernel_ms\\",\\"value\\":${FAKE_V:-100},\\"cpu_ms\\":50}"\necho "$l"; [ -n "${BENCH_METRIC_FILE:-}" ] && echo "$l" >>"$BENCH_METRIC_FILE"\nexit 0\n' >"$out"; chmod +x "$out" ;;
*) : >"$out" ;;
esac
EOF
cat >"$F/fakepy" <<'EOF'
#!/usr/bin/python3
# the workloads: cupy_pool.py prints a BENCH line; torch_train.py and gnn_sage.py
# --stamp: steps of 20 ms, 22 ms while an engine's stats file exists
import glob, json, os, sys, time
if sys.argv[1].endswith("cupy_pool.py"):
    l = "BENCH " + json.dumps({"metric": "gpu_ms", "value": 50, "fill_ms": 30})
    print(l)
    if os.environ.get("BENCH_METRIC_FILE"):
        open(os.environ["BENCH_METRIC_FILE"], "a").write(l + "\n")
    sys.exit(0)
name = "epoch_ms" if sys.argv[1].endswith("gnn_sage.py") else "step_ms"
time.sleep(float(os.environ.get("FAKE_START") or 0))
d = os.environ.get("GPUCTL_RUN_DIR", "/nonexistent")
for i in range(100000):
    m0 = time.monotonic()
    on = bool(glob.glob(d + "/prefetch/*.stats"))
    time.sleep(0.022 if on else 0.020)
    print("at %.6f %.6f" % (m0, time.monotonic()))
    print("%s %.1f%s" % (name, 22.0 if on else 20.0, " (warm-up)" if i < 2 else ""), flush=True)
    if "--stamp" not in sys.argv and i >= 4:
        l = "BENCH " + json.dumps({"metric": name, "value": 20.0})
        print(l)
        if os.environ.get("BENCH_METRIC_FILE"):
            open(os.environ["BENCH_METRIC_FILE"], "a").write(l + "\n")
        break
EOF
cat >"$F/gpuctl" <<'EOF'
#!/bin/bash
# -j prefetch load P ... (-- CMD | -p PID)
me=$(basename "$0")
[ "$1" = --version ] && { echo "$me fake"; exit 0; }
a=5000 b=4000 y=''
[ "$me" = gpuctl-tree ] && a=3000 b=2000 y=', "move_yields": 7'
echo "$*" >>"$FAKE_DIR/args.$me"
pid=''
for ((i = 1; i <= $#; i++)); do [ "${!i}" = -p ] && { j=$((i + 1)); pid=${!j}; }; done
if [ -n "$pid" ]; then
	mkdir -p "$GPUCTL_RUN_DIR/prefetch"; f=$GPUCTL_RUN_DIR/prefetch/$pid.stats
	trap 'rm -f "$f"; echo "{\"pid\": $pid, \"age_p99_us\": $b$y, \"age_hist_us\": [[100, 90], [$b, 10]]}"; exit 0' INT
	echo x >"$f"
	while :; do sleep 0.01; done
fi
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
FAKE_V=90 "$@" >&2
echo "{\"seen\":10,\"age_p99_us\":$a$y,\"age_hist_us\":[[100,90],[$a,10]]}"
EOF
chmod +x "$F/path/"* "$F/gpuctl" "$F/fakepy"
cp "$F/gpuctl" "$F/bin/gpuctl-tree"
cp "$F/gpuctl" "$F/bin/gpuctl-abc1234"
printf 'ref_name=main\nref_sha=abc1234\ntree_sha=def5678\n' >"$F/bin/BUILD"
}
