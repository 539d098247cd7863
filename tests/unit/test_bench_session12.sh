#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_session12.sh - bench/ab/session12_gpu.sh on the build host, no
# GPU: the dry run and its plan (5 rounds of the CPU-written workloads, 3 of
# torch and gnn); bad arguments; a whole session against fakes
# (tests/bench_fakes.sh): cpumix/sweep/cupy, torch and gnn as whole
# programs with ref and tree, torch-cache's windows, one summary that ends
# with the age P99 of ref and tree side by side, five files out.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

A=bench/ab

# --- dry runs and refusals -------------------------------------------------------
expect_exit 0 $A/session12_gpu.sh --dry-run
expect_out "session12 dry run: ok" '^session12 dry run: ok$'
expect_out "session12 dry run: the CPU-written workloads, 5 rounds" '^  1\. whole programs cpumix,sweep,cupy, 5 rounds: 160s$'
expect_out "session12 dry run: torch and gnn, 3 rounds" '^  3\. whole programs gnn, 3 rounds: 160s$'
expect_out "session12 dry run: the tree's default populate on the sweep" '^   tree: .*gpuctl-tree -j prefetch load populate --max-bytes .*/sweep --mib 8192'
expect_out "session12 dry run: REF's on torch, 3 steps" '^   ref: .*gpuctl-([0-9a-f]{7}|REF) -j prefetch load populate --max-bytes [^ ]+ -- python3 .*torch_train.py --so [^ ]+ --steps 3$'
expect_out "session12 dry run: torch-cache in windows" '^tree: .*gpuctl-tree -j prefetch load populate --max-bytes 1G -p PID( +\(binary MISSING\))?$'
printf '%s\n' "$OUT" | grep -q 'tree-alt\|ahead_mb' && fail "session12 dry run: the defaults only" "$OUT" ||
	ok "session12 dry run: both engines' defaults, nothing passed"
expect_exit 2 $A/session12_gpu.sh --bogus
expect_stderr_line "session12: an unknown argument"
expect_exit 2 env SESSION12_BUDGET=-5 $A/session12_gpu.sh --dry-run
expect_stderr_line "session12: a budget that is not a number"

# --- a whole session against fakes -------------------------------------------------
F=$T_DIR/fake12
. tests/bench_fakes.sh
bench_fakes "$F"
export FAKE_DIR=$F
cp -r $A "$F/ab" && rm -rf "$F/ab/bin" && cp -r "$F/bin" "$F/ab/bin"
expect_exit 0 env PATH="$F/path:$PATH" PYTHON="$F/fakepy" OUT="$F/out" SESSION12_BUDGET=150 \
	"$F/ab/session12_gpu.sh"
S=$F/out/engine-ab-session12
OUT=$(cat "$S/summary.md")
for w in cpumix sweep cupy torch gnn; do
	expect_out "session: $w as whole programs" "^## $w \\("
done
expect_out "session: the CPU-written ones over 5 rounds" '^## sweep \(kernel_ms, lower is better; 5 round\(s\)\)$'
expect_out "session: torch over 3" '^## torch \(step_ms, lower is better; 3 round\(s\)\)$'
expect_out "session: torch-cache's windows" '^## torch-cache~win \(step_ms'
expect_out "session: tree against REF's, paired" '^\| tree / ref \| 5 \| '
expect_out "session: the configurations said" '^Configurations: ref = REF.s `populate` \(main before the change: ahead_mb 0\),$'
expect_out "session: torch's age P99, ref and tree side by side" '^\| torch \| 3 \| 5\.00 \| 5\.00 \| '
grep -q 'tree-alt' "$S/results.jsonl" && fail "session: no tree-alt run" "$(grep -c tree-alt "$S/results.jsonl")" ||
	ok "session: no tree-alt run"
files=$(cd "$S" && ls | sort | tr '\n' ' ')
[ "$files" = "log.txt raw.tgz results.jsonl session.txt summary.md " ] &&
	ok "session: five files in the output folder" || fail "session: files" "$files"
t=$(sed -n 's/.*done in \([0-9]*\)s.*/\1/p' "$S/session.txt")
[ "${t:-999}" -le 160 ] && ok "session: within its budget (${t}s of 150 + grace)" || fail "session: time" "$t"
summary
