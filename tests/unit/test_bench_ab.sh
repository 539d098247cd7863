#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_ab.sh - bench/ab (the same-run A/B bench) on the build host, no
# GPU: the dry runs (run.sh --dry-run, build.sh --dry-run, make bench-ab DRY=1),
# bad arguments (one Error line, exit 2), summarize.py's paired comparisons
# and 95 % intervals on a synthetic results.jsonl, and a whole run.sh against
# fakes (nvidia-smi, nvcc, two gpuctl engines): rotated paired rounds, a
# failed and a timed-out run recorded as such, the bench going on.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

A=bench/ab

# --- dry runs -----------------------------------------------------------------
expect_exit 0 $A/run.sh --dry-run
expect_out "dry run: every script parses" '^dry run: ok$'
expect_out "dry run: the rounds rotate" '^   round 2: device ref tree alone $'
expect_out "dry run: the tree's engine command" '^   tree: .*gpuctl-tree -j prefetch load populate --max-bytes [^ ]+ -- '
expect_out "dry run: the watching rows of torch" '^   trace: .*gpuctl-tree trace faults --backend uvm-tools -- python3 '
expect_out "dry run: the device twin" '^   device: .*cupy_pool.py --gib 4 --device$'
expect_out "dry run: an expected duration" '^expected duration: '
expect_exit 0 $A/run.sh --dry-run --workloads gnn --configs alone,tree --policy 'populate eager 0' --rounds 7
expect_out "dry run: chosen policy and configurations" '^   tree: .*prefetch load populate eager 0 --max-bytes'
expect_out "dry run: seven rounds" '^   round 7: alone tree $'
expect_exit 0 $A/run.sh --dry-run --workloads cpumix,sweep --configs alone,ref,tree
expect_out "dry run: cpumix, built like sweep" '^built on the GPU machine first .*: cpumix sweep$'
expect_out "dry run: cpumix's command" '^   tree: .*gpuctl-tree -j prefetch load populate --max-bytes [^ ]+ -- \$W/cpumix --iters 16$'
expect_out "dry run: cpumix.cu present" 'bench/ab/workloads/cpumix.cu'
expect_exit 0 $A/run.sh --dry-run --workloads torch --configs alone,tree,tree-alt --policy populate --alt-policy 'populate eager 1'
expect_out "dry run: tree-alt, the tree under the other policy" '^   tree-alt: .*gpuctl-tree -j prefetch load populate eager 1 --max-bytes [^ ]+ -- '
expect_out "dry run: tree keeps --policy" '^   tree: .*gpuctl-tree -j prefetch load populate --max-bytes '
expect_exit 2 $A/run.sh --dry-run --configs tree-alt && expect_stderr_line "run.sh: tree-alt without --alt-policy"
expect_exit 0 $A/run.sh --dry-run
if printf '%s\n' "$OUT" | grep -q '^== cpumix'; then fail "dry run: cpumix not in the default list" "$OUT"
else ok "dry run: cpumix not in the default list"; fi

for bad in "--workloads bogus" "--configs alone,nope" "--budget 0" "--budget abc" "--rounds" \
	"--max-bytes 1T" "--frobnicate"; do
	# shellcheck disable=SC2086
	expect_exit 2 $A/run.sh --dry-run $bad && expect_stderr_line "run.sh $bad"
done

expect_exit 0 $A/build.sh --dry-run HEAD~1
expect_out "build.sh --dry-run: REF resolved" "^# bench/ab/build.sh --dry-run: REF HEAD~1 = $(git rev-parse HEAD~1)"
expect_exit 2 $A/build.sh --dry-run no-such-ref-xyz && expect_stderr_line "build.sh: no such ref"
expect_exit 2 $A/build.sh && expect_stderr_line "build.sh: no REF"

expect_exit 0 make -s bench-ab REF=HEAD~1 DRY=1
expect_out "make bench-ab DRY=1: both dry runs" '^dry run: ok$'
expect_exit 2 env -u REF make -s bench-ab

# --- summarize.py: paired differences and their 95 % intervals -----------------
J=$T_DIR/syn.jsonl
python3 - "$J" <<'PY'
import json, sys
rows = [{"meta": {"ref_name": "main", "ref_sha": "abc1234", "tree_sha": "def5678", "policy": "populate"},
         "run_id": "A"}]
ref = [100, 101, 102, 103, 104]
tree = [99, 99, 99, 99, 99]            # tree - ref: -1 .. -5
alone = [400, 400, 400, 400, 400]
dev = [50, 50, 50, 50, 50]
for r in range(5):
    for c, v in (("ref", ref[r]), ("tree", tree[r]), ("alone", alone[r]), ("device", dev[r])):
        d = {"run_id": "A", "workload": "w", "round": r + 1, "config": c, "status": "ok", "ok": True,
             "metric": "kernel_ms", "value": v, "extra": {}, "engine": None,
             "wall_s": {"ref": 10 + r, "tree": 9, "alone": 12, "device": 6}[c]}
        if c in ("ref", "tree", "alone"):
            d["extra"] = {"fill_ms": {"ref": 150, "tree": 100, "alone": 200}[c],
                          "setup_s": {"ref": 4.0, "tree": 5.0, "alone": 4.0}[c]}
        if c == "device":
            d["extra"] = {"ceiling_ms": 80.0, "migrate_ms": 30.0}
        if c in ("ref", "tree"):
            d["engine"] = {"seen": 1000, "lost_events": 0, "alloc_age": {"p99_us": 42}}
        rows.append(d)
# a failed run: listed, not used; another call's lone round: never paired across calls
rows.append({"run_id": "A", "workload": "w", "round": 6, "config": "tree", "status": "timeout", "ok": False,
             "value": None, "error": "killed"})
rows.append({"run_id": "B", "workload": "w", "round": 1, "config": "tree", "status": "ok", "ok": True,
             "metric": "kernel_ms", "value": 1.0, "extra": {}})
with open(sys.argv[1], "w") as f:
    for d in rows:
        f.write(json.dumps(d) + "\n")
PY
expect_exit 0 python3 $A/summarize.py "$J"
# diffs -1..-5: mean -3, sd 1.5811, t(4) 2.776: -3 -/+ 1.963
expect_out "summary: tree − ref, its mean and 95 % CI" '^\| tree − ref \(ms\) \| 5 \| -3\.00 \| -3\.00 \| \[-4\.96, -1\.04\] \| below 0 \|$'
expect_out "summary: the speed-up, no spread" '^\| alone / tree \(tree.s speed-up\) \| 5 \| 4\.040 \| 4\.040 \| \[4\.040, 4\.040\] \| above 1 \|$'
expect_out "summary: against the ceiling" '^\| tree / ceiling \| 5 \| 1\.238 \|'
expect_out "summary: tree / ref spans nothing of 1" '^\| tree / ref \| 5 \| .* \| below 1 \|$'
expect_out "summary: the ceiling row" '^\| ceiling \(device: prefetch \+ kernel\) \| 5 \| 80\.00 \|'
expect_out "summary: the failed run listed" '^- round 6 tree: timeout: killed$'
expect_out "summary: the whole program's table" '^\| whole program \(wall\), per round \|'
expect_out "summary: wall tree − ref and its CI" '^\| tree − ref \(s\) \| 5 \| -3\.00 \| -3\.00 \| \[-4\.96, -1\.04\] \| below 0 \|$'
expect_out "summary: wall speed-up" '^\| alone / tree \(tree.s speed-up\) \| 5 \| 1\.333 \| 1\.333 \|'
expect_out "summary: the CPU phase's table, by the field printed" '^\| CPU phase \(fill_ms\), per round \|'
expect_out "summary: the CPU phase's speed-up" '^\| alone / tree \(tree.s speed-up\) \| 5 \| 2\.000 \|'
expect_out "summary: the setup's table, where the workload prints setup_s" '^\| before the first step \(setup_s: imports, CUDA, data\), per round \|'
expect_out "summary: the setup's ratio" '^\| tree / ref \| 5 \| 1\.250 \| 1\.250 \| \[1\.250, 1\.250\] \| above 1 \|$'
expect_out "summary: wall and fill medians per configuration" '^\| tree \| 6 \| 99\.00 \| 1\.00 \| 99\.00 \| 9\.00 \| 100\.0 \|'
expect_out "summary: nested engine figures shown" 'alloc_age\.p99_us'
expect_exit 2 python3 $A/summarize.py

# --- a whole run against fakes: no GPU, no engine ------------------------------
F=$T_DIR/fake
mkdir -p "$F/path" "$F/bin"
cat >"$F/path/nvidia-smi" <<'EOF'
#!/bin/bash
echo "NVIDIA Fake 80GB, GPU-00000000-0000-0000-0000-000000000000, 580.159.04, 80000, 81559"
EOF
cat >"$F/path/nvcc" <<'EOF'
#!/bin/bash
# fake nvcc: -o OUT SRC; sweep.cu becomes a script printing a BENCH line
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift ;; *.cu) src=$1 ;; esac; shift; done
case $src in
*sweep.cu) cat >"$out" <<'EOS'
#!/bin/bash
v=100 c=''
[ "${FAKE_ENGINE:-}" = tree ] && v=18
[ "${FAKE_ENGINE:-}" = ref ] && v=20
for a; do [ "$a" = --device ] && v=10 c=',"ceiling_ms":15,"migrate_ms":5'; done
line="BENCH {\"metric\":\"kernel_ms\",\"value\":$v$c}"
echo "$line"
[ -n "${BENCH_METRIC_FILE:-}" ] && echo "$line" >>"$BENCH_METRIC_FILE"
exit 0
EOS
chmod +x "$out" ;;
*) : >"$out" ;;
esac
EOF
cat >"$F/gpuctl" <<'EOF'
#!/bin/bash
# fake gpuctl: --version; -j prefetch load P ... -- CMD; trace faults ... -- CMD
me=$(basename "$0")
[ "$1" = --version ] && { echo "$me fake"; exit 0; }
args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
shift
k=$FAKE_DIR/n.$me.${args[0]}	# calls of this binary and command
n=$(( $(cat "$k" 2>/dev/null || echo 0) + 1 )); echo $n >"$k"
echo "${args[*]}" >>"$FAKE_DIR/args.$me"
if [ "${args[0]}" = trace ]; then
	[ $n = 1 ] && exec sleep 60	# the first trace hangs: timed out
	"$@"; exit
fi
[ "$me" != gpuctl-tree ] && [ $n = 2 ] && { echo "Error: fake failure" >&2; exit 1; }
FAKE_ENGINE=$([ "$me" = gpuctl-tree ] && echo tree || echo ref) "$@" >&2
rc=$?
echo '{"seen":10,"migrated_bytes":1073741824,"lost_events":0}'
exit $rc
EOF
chmod +x "$F/path/"* "$F/gpuctl"
cp "$F/gpuctl" "$F/bin/gpuctl-tree"
cp "$F/gpuctl" "$F/bin/gpuctl-abc1234"
printf 'ref_name=HEAD~1\nref_sha=abc1234\ntree_sha=def5678\n' >"$F/bin/BUILD"
export FAKE_DIR=$F
expect_exit 0 env PATH="$F/path:$PATH" AB_BIN="$F/bin" $A/run.sh --workloads sweep \
	--configs alone,device,ref,tree,trace --budget 120 --rounds 3 --run-timeout 3 --out "$F/out"
R=$F/out/results.jsonl
OUT=$(python3 - "$R" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
meta = [r for r in rows if "meta" in r]
runs = [r for r in rows if "meta" not in r]
print("meta", len(meta), meta[0]["meta"]["ref_sha"], meta[0]["meta"]["max_bytes"])
print("runs", len(runs))
for r in runs:
    print("run", r["round"], r["pos"], r["config"], r["status"], r["value"], r["bin"],
          (r.get("engine") or {}).get("seen"))
PY
)
expect_out "fake run: one meta line, --max-bytes from the free memory" '^meta 1 abc1234 75904M$'
expect_out "fake run: 3 rounds of 5 runs" '^runs 15$'
expect_out "fake run: round 2 starts with the device twin" '^run 2 1 device ok 10 '
expect_out "fake run: round 3 starts with REF" '^run 3 1 ref ok 20 abc1234 10$'
expect_out "fake run: the failed REF run recorded" '^run 2 2 ref failed None abc1234 None$'
expect_out "fake run: the hung trace timed out, recorded" '^run 1 5 trace timeout None tree:def5678 None$'
expect_out "fake run: the tree's engine report kept" '^run 1 4 tree ok 18 tree:def5678 10$'
expect_out "fake run: a trace run after the timeout" '^run 2 4 trace ok 100 '
grep -q -- '-j prefetch load populate --max-bytes 75904M' "$F/args.gpuctl-tree" &&
	ok "fake run: the engine got the policy and --max-bytes" ||
	fail "fake run: engine args" "$(cat "$F/args.gpuctl-tree")"
OUT=$(cat "$F/out/summary.md")
expect_out "fake run: summary, tree − ref over the 2 good pairs" '^\| tree − ref \(ms\) \| 2 \| -2\.00 \|'
expect_out "fake run: summary, tree against the ceiling" '^\| tree / ceiling \| 3 \| 1\.200 \|'
expect_out "fake run: summary lists the failures" '^- round 2 ref: failed: Error: fake failure$'
[ -s "$F/out/log.txt" ] && ok "fake run: log.txt written" || fail "fake run: log.txt" "empty"

# no binaries: refused before anything runs
expect_exit 1 env PATH="$F/path:$PATH" AB_BIN="$F/none" $A/run.sh --workloads sweep --out "$F/out2"
expect_stderr_line "run.sh without bench/ab/bin"
summary
