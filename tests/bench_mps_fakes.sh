# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tests/bench_mps_fakes.sh - sourced by the bench/mps tests (test_bench_mps*.sh):
# mps_fakes DIR makes, in DIR, the stand-ins static_gpu.sh runs against:
# gpuctl (sched run: "active", then at SIGINT its stopped line; sched exec:
# the command with CUDA_MPS_CLIENT_PRIORITY=0 and ACTIVE_THREAD_PERCENTAGE=50;
# its arguments appended to $FAKE_LOG), coloc (the LC/BE workload: BE steps
# every 0.1 s, the LC's 200 request times of 5000..5199 us a phase and one
# slow request of 20 ms at its start),
# nvidia-smi (clocks.py's samples), nvidia-cuda-mps-control ("mps-control -d"
# to $FAKE_LOG when the daemon is started), mount (logged, nothing mounted) and
# gpuctl-ref (GPUCTL_REF's: "REF ARGS" logged, then the gpuctl stand-in).
mps_fakes() {
	local F=$1
	mkdir -p "$F"
cat >"$F/gpuctl" <<'EOF'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
case "$1 $2" in
"sched run") exec python3 -c '
import signal, sys, time
print("policy lc-be active", file=sys.stderr, flush=True)
def h(*a):
    print("policy lc-be stopped: 0 applied, 0 re-applied, 0 failed"); sys.exit(0)
signal.signal(signal.SIGINT, h)
while True: time.sleep(0.05)' ;;
"sched exec") while [ "$1" != -- ]; do shift; done; shift
	CUDA_MPS_CLIENT_PRIORITY=0 CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 exec "$@" ;;
*) echo "stand-in gpuctl $*" ;;
esac
EOF
cat >"$F/coloc" <<'EOF'
#!/bin/bash
# the LC/BE workload's stand-in: BE steps every 0.1 s; the LC answers each
# "run LABEL SECS" with 200 request times of 5000..5199 us (lat file) and a line
now() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }
if [ "$1" = be ]; then
	echo "be ready pid=$$"
	while :; do now >>"$2"; sleep 0.1; done
fi
echo "lc ready pid=$$"
while read -r cmd label secs hint; do
	echo "coloc $cmd $label $secs $hint" >>"$FAKE_LOG"
	t0=$(now); sleep "$secs"; t1=$(now)
	[ -n "${COLOC_LAT_FILE:-}" ] && echo "$label t0=$t0 $(seq 5000 5199 | tr '\n' ' ')" >>"$COLOC_LAT_FILE"
	[ -n "${COLOC_SLOW_FILE:-}" ] && echo "$label $t0:20000" >>"$COLOC_SLOW_FILE"	# one slow request, at its start
	echo "lc bert $label n=200 p50_us=5100 p99_us=5198 max_us=5199 t0=$t0 t1=$t1"
done
EOF
cat >"$F/nvidia-smi" <<'EOF'
#!/bin/sh
# clocks.py's -lms: a sample every 0.1 s (SM 1980 MHz, memory 2619, 312.5 W, 87 %)
case " $* " in *" -lms "*) while :; do echo "1980, 2619, 312.50, 87" || exit; sleep 0.1; done ;; esac
echo "Stand-in GPU, 580.159.04, 0 MiB, 81559 MiB"
EOF
# the daemon's stand-in: says when it is started (-d), reads and ends otherwise
printf '#!/bin/sh\n[ "$1" = -d ] && echo "mps-control -d" >>"$FAKE_LOG"\ncat >/dev/null; exit 0\n' >"$F/nvidia-cuda-mps-control"
printf '#!/bin/sh\necho "mount $*" >>"$FAKE_LOG"\n' >"$F/mount"	# the host's mounts stay as they are
# GPUCTL_REF's stand-in: "REF ARGS" to $FAKE_LOG, then the gpuctl stand-in
printf '#!/bin/bash\necho "REF $*" >>"$FAKE_LOG"\nexec "%s/gpuctl" "$@"\n' "$F" >"$F/gpuctl-ref"
chmod +x "$F"/*
}

# mps_setup: what each test_bench_mps*.sh starts with: M (bench/mps), F (the
# stand-ins, made in $T_DIR/fake) and FAKE_LOG (their log, exported)
mps_setup() {
	M=bench/mps
	F=$T_DIR/fake
	mps_fakes "$F"
	export FAKE_LOG=$T_DIR/gpuctl.log
}
