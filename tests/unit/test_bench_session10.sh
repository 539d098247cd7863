#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_session10.sh - bench/ab/session10_gpu.sh on the build host, no
# GPU: the dry run and its plan; bad arguments; build.sh's second ref (OLD)
# in its dry run; a whole session against fakes (tests/bench_fakes.sh):
# whole programs of cpumix/sweep/cupy (ref, tree, tree-alt = eager 0), torch
# (with old, OLD's engine) and gnn, torch-cache's windows, one summary, five
# files in the output folder (the rest in raw.tgz); a short budget that cuts
# phases still leaves a summary, within its time.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

A=bench/ab

# --- dry runs and refusals -------------------------------------------------------
expect_exit 0 $A/session10_gpu.sh --dry-run
expect_out "session10 dry run: ok" '^session10 dry run: ok$'
expect_out "session10 dry run: tree-alt is the tree's eager 0" '^   tree-alt: .*gpuctl-tree -j prefetch load populate eager 0 --max-bytes .*/sweep --mib 8192'
expect_out "session10 dry run: the plan's phases" '^  3\. whole programs gnn \(alone,ref,tree; 2000000/20000000, GNN_EPOCHS 2\), 2 rounds: 185s$'
expect_out "session10 dry run: torch whole, 3 steps" '^   tree: .*gpuctl-tree -j prefetch load populate --max-bytes [^ ]+ -- python3 .*torch_train.py --so [^ ]+ --steps 3$'
expect_out "session10 dry run: torch-cache in windows" '^tree-alt: .*gpuctl-tree -j prefetch load populate eager 0 --max-bytes 1G -p PID( +\(binary MISSING\))?$'
expect_exit 2 $A/session10_gpu.sh --bogus
expect_stderr_line "session10: an unknown argument"
expect_exit 2 env SESSION10_BUDGET=abc $A/session10_gpu.sh --dry-run
expect_stderr_line "session10: a budget that is not a number"
expect_exit 0 $A/build.sh --dry-run HEAD HEAD~1
expect_out "build.sh: a second ref, OLD, built beside REF" '^4\. git worktree add --detach build/ab/[0-9a-f]{7} '
expect_out "build.sh: BUILD names OLD" '^5\. bench/ab/bin/BUILD: ref_name=HEAD ref_sha=[0-9a-f]{7} tree_sha=[0-9a-z-]+ old_name=HEAD~1 old_sha=[0-9a-f]{7}$'
expect_exit 2 $A/build.sh --dry-run HEAD no-such-ref-here
expect_stderr_line "build.sh: an OLD that is no commit"
expect_exit 2 $A/build.sh --dry-run HEAD HEAD HEAD
expect_stderr_line "build.sh: three refs"

# --- a whole session against fakes -------------------------------------------------
F=$T_DIR/fake10
. tests/bench_fakes.sh
bench_fakes "$F"
cp "$F/gpuctl" "$F/bin/gpuctl-0ld1234"
printf 'old_name=2778adc\nold_sha=0ld1234\n' >>"$F/bin/BUILD"
export FAKE_DIR=$F
cp -r $A "$F/ab" && rm -rf "$F/ab/bin" && cp -r "$F/bin" "$F/ab/bin"
expect_exit 0 env PATH="$F/path:$PATH" PYTHON="$F/fakepy" OUT="$F/out" SESSION10_BUDGET=150 \
	"$F/ab/session10_gpu.sh"
S=$F/out/engine-ab-session10
OUT=$(cat "$S/summary.md")
expect_out "session: cpumix whole programs" '^## cpumix \(kernel_ms'
expect_out "session: the new default against eager 0, paired" '^\| tree / tree-alt \| 3 \| '
expect_out "session: the new default against REF's, paired" '^\| tree / ref \| 3 \| '
expect_out "session: torch as whole programs" '^## torch \(step_ms'
expect_out "session: gnn as whole programs" '^## gnn \(epoch_ms'
expect_out "session: torch-cache's windows" '^## torch-cache~win \(step_ms'
expect_out "session: the tree against OLD's engine (torch)" '^\| tree / old \| 2 \| '
expect_out "session: wall time beside the metric" '^\| whole program \(wall\), per round'
expect_out "session: the configurations said" '^Configurations: ref = REF'
OUT=$(sed -n '/^## torch (/,/^## /p' "$S/summary.md")
expect_out "session: torch's wall time paired too" '^\| alone / tree \(tree.s speed-up\) \| 2 \| '
grep -q -- '-j prefetch load populate eager 0 --max-bytes 75904M -- .*/sweep --mib 8192' "$F/args.gpuctl-tree" &&
	ok "session: the tree's eager 0 on the 8 GiB sweep, --max-bytes from the free memory" ||
	fail "session: tree-alt args" "$(sort -u "$F/args.gpuctl-tree" | head)"
grep -q -- '-j prefetch load populate --max-bytes 75904M -- .*torch_train.py --so [^ ]* --steps 3$' \
	"$F/args.gpuctl-0ld1234" && ! grep -q 'gnn_sage\|cupy\|sweep' "$F/args.gpuctl-0ld1234" &&
	ok "session: OLD's engine on torch only" || fail "session: old args" "$(sort -u "$F/args.gpuctl-0ld1234" | head)"
grep -q -- '-j prefetch load populate --max-bytes 75904M -- .*gnn_sage.py .*--nodes 2000000 --edges 20000000 --epochs 2$' \
	"$F/args.gpuctl-abc1234" && ok "session: REF's engine on the whole 2M/20M gnn, 2 epochs" ||
	fail "session: gnn args" "$(sort -u "$F/args.gpuctl-abc1234" | head)"
files=$(cd "$S" && ls | sort | tr '\n' ' ')
[ "$files" = "log.txt raw.tgz results.jsonl session.txt summary.md " ] &&
	ok "session: five files in the output folder" || fail "session: files" "$files"
tar tzf "$S/raw.tgz" | grep -q 'run-cpumix-sweep-cupy/results.jsonl' && tar tzf "$S/raw.tgz" | grep -q 'run-gnn/log.txt' &&
	tar tzf "$S/raw.tgz" | grep -q 'windows/results.jsonl' &&
	ok "session: every run's folder in raw.tgz" || fail "session: raw.tgz" "$(tar tzf "$S/raw.tgz" | head)"
t=$(sed -n 's/.*done in \([0-9]*\)s.*/\1/p' "$S/session.txt")
[ "${t:-999}" -le 160 ] && ok "session: within its budget (${t}s of 150 + grace)" || fail "session: time" "$t"
	ok "session: its scratch folders gone"

# --- cut short: killed mid-way (the device's time limit), a summary of what ran ------
rm -f "$F"/args.*
setsid env PATH="$F/path:$PATH" PYTHON="$F/fakepy" OUT="$F/out2" SESSION10_BUDGET=150 FAKE_START=1 \
	"$F/ab/session10_gpu.sh" >"$F/cut.log" 2>&1 &
CP=$!
n=0
until grep -qs 'run.sh torch (' "$F/out2/engine-ab-session10/session.txt" || [ $n -ge 300 ]; do
	sleep 0.1; n=$((n + 1))
done
sleep 1
kill -TERM -- "-$CP"
wait "$CP"
S=$F/out2/engine-ab-session10
grep -q 'done in' "$S/session.txt" && fail "cut: killed before its end" "$(cat "$S/session.txt")" ||
	ok "cut: killed before its end"
OUT=$(cat "$S/summary.md" 2>/dev/null)
expect_out "cut: a summary all the same" '^# bench/ab: same-run A/B'
expect_out "cut: with the phases that ran" '^## cupy \(gpu_ms'
[ -s "$S/raw.tgz" ] && [ -s "$S/results.jsonl" ] && ok "cut: results and raw.tgz of what ran" ||
	fail "cut: files" "$(ls "$S")"

# --- a budget too short for the later phases: they are skipped, said ------------------
expect_exit 0 env PATH="$F/path:$PATH" PYTHON="$F/fakepy" OUT="$F/out3" SESSION10_BUDGET=30 FAKE_START=3 \
	"$F/ab/session10_gpu.sh"
S=$F/out3/engine-ab-session10
OUT=$(cat "$S/summary.md" 2>/dev/null)
expect_out "short: a summary" '^# bench/ab: same-run A/B'
t=$(sed -n 's/.*done in \([0-9]*\)s.*/\1/p' "$S/session.txt")
[ -n "$t" ] && [ "$t" -le 35 ] && ok "short: within its budget (${t}s of 30 + grace)" || fail "short: time" "$t"
summary
