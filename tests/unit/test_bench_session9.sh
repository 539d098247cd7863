#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_session9.sh - bench/ab/session9_gpu.sh and bench/ab/window.py on
# the build host, no GPU: the dry run; window.py's bad arguments; a whole
# session against fakes (nvidia-smi, nvcc, a python3 that plays the
# workloads with timed steps, gpuctl engines for -- CMD and -p PID): the
# windows pair per rotation (a fake engine slows each step it watches by
# 10 %: none / alone = 1.100 exactly), run.sh's configurations ref-alt and
# ref-alt2 get their policies, one summary over both, written under $OUT.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

A=bench/ab

# --- dry runs and refusals -------------------------------------------------------
expect_exit 0 $A/session9_gpu.sh --dry-run
expect_out "session9 dry run: ok" '^session9 dry run: ok$'
expect_out "session9 dry run: ref-alt2 is REF's trail 1" '^   ref-alt2: .*gpuctl-[^ ]+ -j prefetch load populate trail 1 --max-bytes'
expect_out "session9 dry run: torch's windows attach none with -p" '^none: .*gpuctl-tree -j prefetch load none -p PID'
expect_out "session9 dry run: torch's second plan, the cost of watching" '^then plan alone,ref-none,none; up to 30 rotation\(s\) of D=0 \+ K=3$'
expect_out "session9 dry run: the 2M/20M graph" 'gnn_sage.py .*--nodes 2000000 --edges 20000000 '
expect_exit 2 python3 $A/window.py --workload gnn --plan alone --plan2 alone,bogus --max-bytes 1G
expect_exit 2 $A/session9_gpu.sh --bogus
expect_exit 2 python3 $A/window.py --workload torch --plan alone,bogus
expect_exit 2 python3 $A/window.py --workload torch --plan alone,ref-alt2 --max-bytes 1G
expect_exit 2 python3 $A/window.py --workload torch --plan alone,ref
expect_stderr_line "window.py: --max-bytes needed"
expect_exit 0 $A/run.sh --dry-run --workloads sweep,torch --configs alone,ref --configs-for torch=alone,none,ref-alt \
	--alt-policy 'populate eager 1'
expect_out "run.sh: --configs-for gives a workload its own" '^   ref-alt: .*gpuctl-[^ ]+ -j prefetch load populate eager 1 --max-bytes .*torch_train.py'
expect_exit 2 $A/run.sh --dry-run --configs alone,ref-alt2
expect_stderr_line "run.sh: ref-alt2 without --alt2-policy"
expect_exit 2 $A/run.sh --dry-run --configs-for nope=alone
expect_stderr_line "run.sh: --configs-for of an unknown workload"

# --- a whole session against fakes -------------------------------------------------
F=$T_DIR/fake9
. tests/bench_fakes.sh
bench_fakes "$F"
export FAKE_DIR=$F
# the script reads bench/ab/bin: a copy of bench/ab with the fake binaries
cp -r $A "$F/ab" && rm -rf "$F/ab/bin" && cp -r "$F/bin" "$F/ab/bin"
expect_exit 0 env PATH="$F/path:$PATH" PYTHON="$F/fakepy" OUT="$F/out" SESSION9_BUDGET=150 \
	"$F/ab/session9_gpu.sh"
S=$F/out/engine-ab-session9
OUT=$(cat "$S/summary.md")
expect_out "session: torch's windows summarized" '^## torch~win \(step_ms'
expect_out "session: none / alone from windows, 10 % by construction" '^\| none / alone \| [0-9]+ \| 1\.100 \| 1\.100 \|'
expect_out "session: ref-none / alone too" '^\| ref-none / alone \| [0-9]+ \| 1\.100 \|'
expect_out "session: the default against eager 1" '^\| ref-alt / ref \| [0-9]+ \| 1\.000 \|'
expect_out "session: gnn's windows" '^## gnn~win \(epoch_ms'
expect_out "session: torch-cache's windows" '^## torch-cache~win \(step_ms'
expect_out "session: run.sh's sweep, trail 1 against the default" '^## sweep \(kernel_ms'
expect_out "session: run.sh's wall beside the metric" '^\| whole program \(wall\), per round'
expect_out "session: the configurations said" '^Configurations: ref = REF'
n=$(sed -n 's/^| none \/ alone | \([0-9]*\) |.*/\1/p' "$S/summary.md" | head -1)
[ "${n:-0}" -ge 3 ] && ok "session: $n torch rotations paired in a short budget" || fail "session: rotations" "$n"
grep -q -- '-j prefetch load populate trail 1 --max-bytes 75904M -p ' "$F/args.gpuctl-abc1234" &&
	ok "session: REF's engine attached under trail 1, --max-bytes from the free memory" ||
	fail "session: ref-alt2 args" "$(sort -u "$F/args.gpuctl-abc1234" | head)"
grep -q -- '-j prefetch load populate --max-bytes 75904M --async -p ' "$F/args.gpuctl-tree" &&
	ok "session: the tree's engine attached with --async (tree-async)" ||
	fail "session: tree-async args" "$(sort -u "$F/args.gpuctl-tree" | head)"
grep -q '"config": "none".*"round": [4-9],' "$S/results.jsonl" &&
	! grep -q '"config": "tree-async".*"round": [4-9],' "$S/results.jsonl" &&
	ok "session: torch's second plan numbered on after the first's 3 rotations" ||
	fail "session: plan2 rounds" "$(grep -c '"none"' "$S/results.jsonl")"
grep -q -- '-j prefetch load populate eager 1 --max-bytes 75904M -- .*/sweep --mib 8192' "$F/args.gpuctl-abc1234" &&
	ok "session: run.sh ran REF under eager 1 on the 8 GiB sweep" ||
	fail "session: ref-alt args" "$(sort -u "$F/args.gpuctl-abc1234" | head)"
[ -s "$S/results.jsonl" ] && [ -s "$S/session.txt" ] && [ -s "$S/log.txt" ] &&
	ok "session: results, session and log written" || fail "session: files" "$(ls "$S")"
t=$(sed -n 's/.*done in \([0-9]*\)s.*/\1/p' "$S/session.txt")
[ "${t:-999}" -le 160 ] && ok "session: within its budget (${t}s of 150 + grace)" || fail "session: time" "$t"

# --- window.py alone: an engine that is refused, a workload that ends ---------------
cat >"$F/bin/gpuctl-abc1234" <<'EOF2'
#!/bin/bash
# REF refuses `populate eager 1` (-p): exits at once with an Error line
for a; do [ "$a" = eager ] && { echo "Error: fake refusal" >&2; exit 1; }; done
exec "$(dirname "$0")/gpuctl-tree" "$@"
EOF2
chmod +x "$F/bin/gpuctl-abc1234"
expect_exit 0 env PYTHON="$F/fakepy" AB_BIN="$F/bin" FAKE_DIR=$F python3 $A/window.py --workload torch \
	--pieces "$F" --plan alone,ref-alt,none --alt-policy 'populate eager 1' --rotations 2 --measure 2 \
	--max-bytes 1G --budget 60 --out "$F/w1"
OUT=$(python3 - "$F/w1/results.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if "meta" not in d:
        print("win", d["round"], d["config"], d["status"], d.get("value"), (d.get("error") or "")[:40])
PY
)
expect_out "window.py: a refused engine recorded, its error kept" '^win 1 ref-alt engine-failed None Error: fake refusal$'
expect_out "window.py: the next window goes on" '^win 1 none ok 22\.0 $'
expect_out "window.py: the second rotation starts with the refused one" '^win 2 ref-alt engine-failed '
cat >"$F/shortpy" <<'EOF2'
#!/usr/bin/python3
# a workload that dies after 4 steps (an out-of-memory, say)
import time
for i in range(4):
    m0 = time.monotonic(); time.sleep(0.02)
    print("at %.6f %.6f" % (m0, time.monotonic()))
    print("step_ms 20.0%s" % (" (warm-up)" if i < 1 else ""), flush=True)
EOF2
chmod +x "$F/shortpy"
expect_exit 0 env PYTHON="$F/shortpy" AB_BIN="$F/bin" python3 $A/window.py --workload gnn --pieces "$F" \
	--plan alone,none --rotations 5 --measure 2 --budget 30 --out "$F/w2"
OUT=$(grep -o '"status": "[a-z-]*"' "$F/w2/results.jsonl" | sort | uniq -c | tr -s ' ')
expect_out "window.py: the workload's end stops the windows, said" 'workload-ended'
[ "$(grep -c '"status"' "$F/w2/results.jsonl")" -le 3 ] && ok "window.py: no window after the workload ended" ||
	fail "window.py: after the end" "$OUT"
expect_exit 1 env PYTHON=/bin/false AB_BIN="$F/bin" python3 $A/window.py --workload torch --pieces "$F" \
	--plan alone --budget 5 --out "$F/w3"
grep -q '"status": "no-steps"' "$F/w3/results.jsonl" && ok "window.py: a workload with no step: recorded, exit 1" ||
	fail "window.py: no steps" "$(cat "$F/w3/results.jsonl")"
summary
