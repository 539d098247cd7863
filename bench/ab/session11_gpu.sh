#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/ab/session11_gpu.sh - issue 40's queue order in one device call (one
# H100, the script <= 560 s): the tree's engine (moves cut in 64 MiB calls,
# a new allocation's move between two of them: tree) against REF's (main
# before it: populate's 256 MiB chunks in one call each: ref), both under
# the default `populate`, and alone; whole programs wherever the budget
# allows, each run's wall time beside the workload's metric and its CPU
# phase, paired per round; the engine's own age of each allocation at its
# move's start (age_p99_us, issue 40's goal: <= 5 ms on torch and gnn)
# side by side for ref and tree at the end of the summary:
#   1. cpumix, sweep (8 GiB), cupy (4 GiB): alone, ref, tree; 3 interleaved
#      rounds (~140 s)
#   2. torch (no caching allocator, TORCH_STEPS 3): alone, ref, tree; 2
#      rounds (~120 s)
#   3. gnn (2M nodes / 20M edges, GNN_EPOCHS 2): alone, ref, tree; 2 rounds
#      (~140 s)
#   4. torch-cache: one process, windows (window.py: steady state, no wall
#      time): alone, ref, tree, up to 3 rotations, with the rest
# Throughput is the other half: sweep's and cupy's GPU phase and wall (the
# moves of CPU-written data, now in 4 times as many calls) must not be
# slower than ref's.  Phases run in this order with their shares of the
# budget (scaled by SESSION11_BUDGET, default 545), each never more than
# what is left less the later phases' floors; the last gets the rest.
# After each phase the results so far are summarized into
# $OUT/engine-ab-session11/ (summary.md, results.jsonl, session.txt,
# log.txt, raw.tgz), so a call cut short still leaves a summary.
#
#   session11_gpu.sh [--dry-run]
# AHEAD_MB=N (default 0: off) adds tree-alt to phase 1: the tree's
# `populate ahead_mb N` (the CPU's write front served from the other side,
# issue 40's CPU-written data) beside ref and tree on cpumix, sweep, cupy.
# Needs bench/ab/bin (make bench-ab REF=<main before the merge>).
# --dry-run: the plan, and every piece's own dry run; no GPU.
set -u
D=$(dirname "$(readlink -f "$0")")
. "$D/session_lib.sh"
s_args session11 545 "$@"
OUTD=${OUT:-$D/out}/engine-ab-session11
POL=populate
T0=$(date +%s) BASE=545
POLARGS=(--policy "$POL")

MATRIX=alone,ref,tree
AHEAD_MB=${AHEAD_MB:-0}
case $AHEAD_MB in *[!0-9]*|'') echo "Error: session11: AHEAD_MB is a number of MiB, not '$AHEAD_MB'" >&2; exit 2 ;; esac
MATRIX1=$MATRIX P1ARGS=()
[ "$AHEAD_MB" -gt 0 ] && MATRIX1=$MATRIX,tree-alt P1ARGS=(--alt-policy "$POL ahead_mb $AHEAD_MB")
export SWEEP_MIB=${SWEEP_MIB:-8192} CUPY_GIB=${CUPY_GIB:-4} TORCH_STEPS=${TORCH_STEPS:-3}
export GNN_NODES=${GNN_NODES:-2000000} GNN_EDGES=${GNN_EDGES:-20000000} GNN_EPOCHS=${GNN_EPOCHS:-2}

plan() {
	echo "session11: budget ${BUDGET}s (shares of $BASE s scaled); ref = REF's \`$POL\`, tree = the tree's"
	echo "  1. whole programs cpumix,sweep,cupy ($MATRIX1${P1ARGS[1]:+: tree-alt = ${P1ARGS[1]}}), 3 rounds: $(scaled 140)s"
	echo "  2. whole programs torch ($MATRIX; TORCH_STEPS $TORCH_STEPS), 2 rounds: $(scaled 120)s"
	echo "  3. whole programs gnn ($MATRIX; ${GNN_NODES}/${GNN_EDGES}, GNN_EPOCHS $GNN_EPOCHS), 2 rounds: $(scaled 140)s"
	echo "  4. windows torch-cache ($MATRIX), up to 3 rotations of 1+4 steps: the rest (at least $(scaled 20)s)"
	echo "  out: $OUTD (summary.md, results.jsonl, session.txt, log.txt, raw.tgz)"
}

if [ $DRY = 1 ]; then
	echo "# session11_gpu.sh --dry-run"
	plan
	for m in "cpumix,sweep,cupy 3 140 1" "torch 2 120" "gnn 2 140"; do
		set -- $m
		mx=$MATRIX extra=()
		[ "${4:-}" = 1 ] && mx=$MATRIX1 extra=("${P1ARGS[@]}")
		echo "## run.sh ($1; $mx)"
		AB_RESERVE=5 "$D/run.sh" --dry-run --budget "$(scaled "$3")" --rounds "$2" --min-rounds "$2" --workloads "$1" \
			--configs "$mx" "${POLARGS[@]}" "${extra[@]}" || exit 1
	done
	s_dry_end session11 "$MATRIX"
fi

s_begin
s_footer() {
	echo
	echo "Configurations: ref = REF's \`$POL\` (main before the merge: each 256 MiB chunk one UVM_MIGRATE),"
	echo "tree = the tree's \`$POL\` (moves in calls of 64 MiB; a new allocation's move between two of"
	echo "them: move_yields counts the pauses)."
	[ "$AHEAD_MB" -gt 0 ] && echo "tree-alt (cpumix, sweep, cupy) = the tree's \`$POL ahead_mb $AHEAD_MB\`."
	s_sizes
	echo
	python3 "$D/summarize.py" --ages ref,tree "$OUTD/results.jsonl"
}

plan | tee -a "$OUTD/session.txt"
log "session11: $(tr '\n' ' ' <"$D/bin/BUILD")"
s_gpu
s_pieces
s_publish

# Each phase's share of 545 s, never more than what is left less the later
# phases' floors (torch 120 + gnn 140 + torch-cache 20 + 10 for the summary)
POLARGS_ALL=("${POLARGS[@]}")
POLARGS=("${POLARGS_ALL[@]}" "${P1ARGS[@]}")
mat cpumix,sweep,cupy "$MATRIX1" "$(share 140 290)" 3 3
POLARGS=("${POLARGS_ALL[@]}")
s_publish
mat torch "$MATRIX" "$(share 120 170)" 2 2
s_publish
mat gnn "$MATRIX" "$(share 140 30)" 2 2
s_publish
win torch-cache "$MATRIX" 3 1 4 "$(( $(left) - $(scaled 10) ))"
s_publish
cat "$OUTD/summary.md"
log "done in $(( $(date +%s) - T0 ))s: $OUTD"
