#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_session11.sh - bench/ab/session11_gpu.sh on the build host, no
# GPU: the dry run and its plan; bad arguments (the preamble session_lib.sh
# gives it); a whole session against fakes (tests/bench_fakes.sh): whole
# programs of cpumix/sweep/cupy, torch and gnn with ref and tree (no
# tree-alt), torch-cache's windows, one summary that ends with the age P99
# of ref and tree side by side per workload (summarize.py --ages, the
# runs' age_hist_us pooled beside), five files in the output folder;
# summarize.py --ages's refusals; pooled_p99 on known histograms.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

A=bench/ab

# --- dry runs and refusals -------------------------------------------------------
expect_exit 0 $A/session11_gpu.sh --dry-run
expect_out "session11 dry run: ok" '^session11 dry run: ok$'
expect_out "session11 dry run: the plan's phases" '^  3\. whole programs gnn \(alone,ref,tree; 2000000/20000000, GNN_EPOCHS 2\), 2 rounds: 140s$'
expect_out "session11 dry run: the tree's default populate on the sweep" '^   tree: .*gpuctl-tree -j prefetch load populate --max-bytes .*/sweep --mib 8192'
expect_out "session11 dry run: REF's on torch, 3 steps" '^   ref: .*gpuctl-([0-9a-f]{7}|REF) -j prefetch load populate --max-bytes [^ ]+ -- python3 .*torch_train.py --so [^ ]+ --steps 3$'
expect_out "session11 dry run: torch-cache in windows" '^tree: .*gpuctl-tree -j prefetch load populate --max-bytes 1G -p PID( +\(binary MISSING\))?$'
printf '%s\n' "$OUT" | grep -q 'tree-alt' && fail "session11 dry run: no tree-alt" "$OUT" ||
	ok "session11 dry run: ref and tree only"
expect_exit 0 env AHEAD_MB=256 $A/session11_gpu.sh --dry-run
expect_out "AHEAD_MB=256: tree-alt in phase 1" '^   tree-alt: .*gpuctl-tree -j prefetch load populate ahead_mb 256 --max-bytes .*/sweep --mib 8192'
[ "$(printf '%s\n' "$OUT" | grep -c '^   tree-alt: ')" = 3 ] && ok "AHEAD_MB=256: tree-alt on cpumix, sweep and cupy only" ||
	fail "AHEAD_MB phases" "$(printf '%s\n' "$OUT" | grep '^   tree-alt: ')"
expect_exit 2 env AHEAD_MB=lots $A/session11_gpu.sh --dry-run
expect_stderr_line "session11: AHEAD_MB not a number"
expect_exit 2 $A/session11_gpu.sh --bogus
expect_stderr_line "session11: an unknown argument"
expect_exit 2 env SESSION11_BUDGET=abc $A/session11_gpu.sh --dry-run
expect_stderr_line "session11: a budget that is not a number"
expect_exit 2 env SESSION10_BUDGET=0 $A/session10_gpu.sh --dry-run
expect_stderr_line "session10: the shared preamble refuses a zero budget"
expect_exit 2 python3 $A/summarize.py --ages ref
expect_stderr_line "summarize.py: --ages without its two configurations"
expect_exit 2 python3 $A/summarize.py --ages ref,tree,old x.jsonl
expect_stderr_line "summarize.py: --ages with three configurations"

# pooled_p99: every allocation of the runs together (200 here: the 198th), not a median of the runs' P99s
expect_exit 0 python3 -c 'import sys; sys.path.insert(0, "bench/ab"); import summarize as s
assert s.pooled_p99([[[100, 98], [9000, 2]], [[100, 100]]]) == 0.1
assert s.pooled_p99([[[100, 97], [9000, 3]], [[100, 100]]]) == 9.0
assert s.pooled_p99([[], []]) is None
assert s.hist_of({"a": {"age_hist_us": [[5, 1]]}}) == [[5, 1]] and s.hist_of(None) == []'

# --- a whole session against fakes -------------------------------------------------
F=$T_DIR/fake11
. tests/bench_fakes.sh
bench_fakes "$F"
export FAKE_DIR=$F
cp -r $A "$F/ab" && rm -rf "$F/ab/bin" && cp -r "$F/bin" "$F/ab/bin"
expect_exit 0 env PATH="$F/path:$PATH" PYTHON="$F/fakepy" OUT="$F/out" SESSION11_BUDGET=150 \
	"$F/ab/session11_gpu.sh"
S=$F/out/engine-ab-session11
OUT=$(cat "$S/summary.md")
for w in cpumix sweep cupy torch gnn; do
	expect_out "session: $w as whole programs" "^## $w \\("
done
expect_out "session: torch-cache's windows" '^## torch-cache~win \(step_ms'
expect_out "session: tree against REF's, paired" '^\| tree / ref \| 3 \| '
expect_out "session: the configurations said" '^Configurations: ref = REF'
expect_out "session: the ages' table" '^## Creation to the start of a move: ref and tree side by side'
# ref's fake says 5 ms (2 runs), the tree's 3 ms with 7 move yields: 0.6
expect_out "session: torch's age P99, ref and tree side by side" '^\| torch \| 2 \| 5\.00 \| 5\.00 \| – \| – \| 2 \| 3\.00 \| 3\.00 \| – \| 7 \| 0\.600 \| 5\.00 \| 3\.00 \| 0\.600 \|$'
expect_out "session: gnn's too" '^\| gnn \| 2 \| 5\.00 \| '
# each fake run's age_hist_us: 90 at 0.1 ms, 10 at its P99: pooled, the P99 stays that one
expect_out "session: the pooled P99 beside, from the runs' age_hist_us" '^\| gnn \| .* \| 5\.00 \| 3\.00 \| 0\.600 \|$'
expect_out "session: the windows' (-p) too" '^\| torch-cache~win \| [0-9]+ \| 4\.00 \| .* \| 2\.00 \| .* \| 0\.500 \| 4\.00 \| 2\.00 \| 0\.500 \|$'
expect_out "session: the move yields beside the engine's counters" '\| move yields \|'
grep -q 'tree-alt' "$S/results.jsonl" && fail "session: no tree-alt run" "$(grep -c tree-alt "$S/results.jsonl")" ||
	ok "session: no tree-alt run"
grep -q -- '-j prefetch load populate --max-bytes 75904M -- .*gnn_sage.py .*--nodes 2000000 --edges 20000000 --epochs 2$' \
	"$F/args.gpuctl-abc1234" && ok "session: REF's engine on the whole 2M/20M gnn, 2 epochs" ||
	fail "session: gnn args" "$(sort -u "$F/args.gpuctl-abc1234" | head)"
files=$(cd "$S" && ls | sort | tr '\n' ' ')
[ "$files" = "log.txt raw.tgz results.jsonl session.txt summary.md " ] &&
	ok "session: five files in the output folder" || fail "session: files" "$files"
t=$(sed -n 's/.*done in \([0-9]*\)s.*/\1/p' "$S/session.txt")
[ "${t:-999}" -le 160 ] && ok "session: within its budget (${t}s of 150 + grace)" || fail "session: time" "$t"
summary
