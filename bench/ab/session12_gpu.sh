#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/ab/session12_gpu.sh - issue 40's default in one device call (one
# H100, the script <= 560 s): the tree's `populate` (ahead_mb 256 by
# default: each CPU write to an allocation moved when made brings up to
# 256 MiB ahead of the CPU's write front to the CPU in one request: tree)
# against REF's (main before it, ahead_mb 0: ref), and alone; whole
# programs, each run's wall time beside the workload's metric and its CPU
# phase, paired per round; the engine's age of each allocation at its
# move's start side by side at the end (issue 40's goal: P99 <= 5 ms on
# torch and gnn):
#   1. cpumix, sweep (8 GiB), cupy (4 GiB): alone, ref, tree; 5
#      interleaved rounds (~160 s): the CPU-written data the change is for
#      (cpumix: managed memory the CPU writes and reads and the GPU never
#      touches, beside one the GPU reads later)
#   2. torch (no caching allocator, TORCH_STEPS 3): alone, ref, tree; 3
#      rounds (~150 s)
#   3. gnn (2M nodes / 20M edges, GNN_EPOCHS 2): alone, ref, tree; 3
#      rounds (~160 s)
#   4. torch-cache: one process, windows (window.py: steady state, no wall
#      time): alone, ref, tree, up to 3 rotations, with the rest
# torch, gnn and torch-cache write nothing on the CPU after a move: the
# change must leave them as they were (no workload slower, in either
# metric).  Phases run in this order with their shares of the budget
# (scaled by SESSION12_BUDGET, default 545), each never more than what is
# left less the later phases' floors.  After each phase the results so far
# are summarized into $OUT/engine-ab-session12/ (summary.md, results.jsonl,
# session.txt, log.txt, raw.tgz), so a call cut short still leaves one.
#
#   session12_gpu.sh [--dry-run]
# Needs bench/ab/bin (make bench-ab REF=<main before the merge>).
# --dry-run: the plan, and every piece's own dry run; no GPU.
set -u
D=$(dirname "$(readlink -f "$0")")
. "$D/session_lib.sh"
s_args session12 545 "$@"
OUTD=${OUT:-$D/out}/engine-ab-session12
POL=populate
T0=$(date +%s) BASE=545
POLARGS=(--policy "$POL")
MATRIX=alone,ref,tree
export SWEEP_MIB=${SWEEP_MIB:-8192} CUPY_GIB=${CUPY_GIB:-4} TORCH_STEPS=${TORCH_STEPS:-3}
export GNN_NODES=${GNN_NODES:-2000000} GNN_EDGES=${GNN_EDGES:-20000000} GNN_EPOCHS=${GNN_EPOCHS:-2}
# phases: workloads, rounds, share of BASE, floor of the later phases
PHASES=("cpumix,sweep,cupy 5 160 340" "torch 3 150 190" "gnn 3 160 30")

plan() {
	echo "session12: budget ${BUDGET}s (shares of $BASE s scaled); ref = REF's \`$POL\`, tree = the tree's ($MATRIX)"
	local p n=0
	for p in "${PHASES[@]}"; do
		set -- $p
		n=$((n + 1))
		echo "  $n. whole programs $1, $2 rounds: $(scaled "$3")s"
	done
	echo "  4. windows torch-cache, up to 3 rotations of 1+4 steps: the rest (at least $(scaled 20)s)"
	echo "  sizes: sweep ${SWEEP_MIB} MiB, cupy ${CUPY_GIB} GiB, torch ${TORCH_STEPS} steps, gnn ${GNN_NODES}/${GNN_EDGES}, ${GNN_EPOCHS} epochs"
	echo "  out: $OUTD (summary.md, results.jsonl, session.txt, log.txt, raw.tgz)"
}

if [ $DRY = 1 ]; then
	echo "# session12_gpu.sh --dry-run"
	plan
	for p in "${PHASES[@]}"; do
		set -- $p
		echo "## run.sh ($1; $MATRIX)"
		AB_RESERVE=5 "$D/run.sh" --dry-run --budget "$(scaled "$3")" --rounds "$2" --min-rounds "$2" \
			--workloads "$1" --configs "$MATRIX" "${POLARGS[@]}" || exit 1
	done
	s_dry_end session12 "$MATRIX"
fi

s_begin
s_footer() {
	echo
	echo "Configurations: ref = REF's \`$POL\` (main before the change: ahead_mb 0),"
	echo "tree = the tree's \`$POL\` (ahead_mb 256 by default: ahead_moves, ahead_bytes count it)."
	s_sizes
	echo
	python3 "$D/summarize.py" --ages ref,tree "$OUTD/results.jsonl"
}

plan | tee -a "$OUTD/session.txt"
log "session12: $(tr '\n' ' ' <"$D/bin/BUILD")"
s_gpu
s_pieces
s_publish
for p in "${PHASES[@]}"; do
	set -- $p
	mat "$1" "$MATRIX" "$(share "$3" "$4")" "$2" "$2"
	s_publish
done
win torch-cache "$MATRIX" 3 1 4 "$(( $(left) - $(scaled 10) ))"
s_publish
cat "$OUTD/summary.md"
log "done in $(( $(date +%s) - T0 ))s: $OUTD"
