#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/ab/session10_gpu.sh - issue 40's one device call (one H100, the
# script <= 560 s): the new default of `populate` (eager 1, moved when made:
# tree) against REF's default (main before it: eager 2, the per-size
# decision: ref), the tree's `populate eager 0` (tree-alt) and alone; whole
# programs wherever the budget allows, each run's wall time beside the
# workload's metric and its CPU phase, paired per round:
#   1. cpumix, sweep (8 GiB), cupy (4 GiB): alone, ref, tree, tree-alt;
#      3 interleaved rounds (~175 s)
#   2. torch (no caching allocator, TORCH_STEPS 3): alone, ref, tree, and
#      old (OLD's `populate`, e.g. 2778adc, the C engine) when bench/ab/bin
#      has it (build.sh REF OLD); 2 rounds (~150 s)
#   3. gnn (2M nodes / 20M edges, GNN_EPOCHS 2): alone, ref, tree; 2 rounds
#      (~185 s)
#   4. torch-cache: one process, windows (window.py: steady state, no wall
#      time): alone, ref, tree, tree-alt, up to 3 rotations, with the rest
# Phases run in this order with their shares of the budget (scaled by
# SESSION10_BUDGET, default 545), each never more than what is left less the
# later phases' floors; the last gets the rest.  After each phase the
# results so far are summarized into $OUT/engine-ab-session10/ (summary.md,
# results.jsonl, session.txt, log.txt, raw.tgz: every run's own folder and
# the build log), so a call cut short still leaves a summary.
#
#   session10_gpu.sh [--dry-run]
# Needs bench/ab/bin (make bench-ab REF=<main before the merge> [OLD=2778adc]).
# --dry-run: the plan, and every piece's own dry run; no GPU.
set -u
D=$(dirname "$(readlink -f "$0")")
. "$D/session_lib.sh"
s_args session10 545 "$@"
OUTD=${OUT:-$D/out}/engine-ab-session10
POL=populate ALT='populate eager 0'
T0=$(date +%s) BASE=545
POLARGS=(--policy "$POL" --alt-policy "$ALT")

MATRIX=alone,ref,tree,tree-alt
TORCH=alone,ref,tree
GNN=alone,ref,tree
WIN_CACHE=alone,ref,tree,tree-alt
OLD_SHA=$(sed -n 's/^old_sha=//p' "$D/bin/BUILD" 2>/dev/null | head -1)
OLD_SAY=''
[ -n "$OLD_SHA" ] && [ -x "$D/bin/gpuctl-$OLD_SHA" ] && TORCH=$TORCH,old OLD_SAY=", old = $OLD_SHA's \`$POL\`"
export SWEEP_MIB=${SWEEP_MIB:-8192} CUPY_GIB=${CUPY_GIB:-4} TORCH_STEPS=${TORCH_STEPS:-3}
export GNN_NODES=${GNN_NODES:-2000000} GNN_EDGES=${GNN_EDGES:-20000000} GNN_EPOCHS=${GNN_EPOCHS:-2}

plan() {
	echo "session10: budget ${BUDGET}s (shares of $BASE s scaled); ref = REF's \`$POL\`, tree = the tree's,"
	echo "  tree-alt = the tree's \`$ALT\`$OLD_SAY${OLD_SAY:+ (torch)}"
	echo "  1. whole programs cpumix,sweep,cupy ($MATRIX), 3 rounds: $(scaled 175)s"
	echo "  2. whole programs torch ($TORCH; TORCH_STEPS $TORCH_STEPS), 2 rounds: $(scaled 150)s"
	echo "  3. whole programs gnn ($GNN; ${GNN_NODES}/${GNN_EDGES}, GNN_EPOCHS $GNN_EPOCHS), 2 rounds: $(scaled 185)s"
	echo "  4. windows torch-cache ($WIN_CACHE), up to 3 rotations of 1+4 steps: the rest (at least $(scaled 20)s)"
	echo "  out: $OUTD (summary.md, results.jsonl, session.txt, log.txt, raw.tgz)"
}

if [ $DRY = 1 ]; then
	echo "# session10_gpu.sh --dry-run"
	plan
	for m in "cpumix,sweep,cupy $MATRIX 3 175" "torch $TORCH 2 150" "gnn $GNN 2 185"; do
		set -- $m
		echo "## run.sh ($1; $2)"
		AB_RESERVE=5 "$D/run.sh" --dry-run --budget "$(scaled "$4")" --rounds "$3" --min-rounds "$3" --workloads "$1" \
			--configs "$2" "${POLARGS[@]}" || exit 1
	done
	s_dry_end session10 "$WIN_CACHE"
fi

s_begin

s_footer() {
	echo
	echo "Configurations: ref = REF's \`$POL\` (main before the merge: eager 2, the per-size decision),"
	echo "tree = the tree's \`$POL\` (eager 1: moved when made, the new default), tree-alt = the tree's"
	echo "\`$ALT\` (moved on the first GPU fault)$OLD_SAY."
	s_sizes
}

plan | tee -a "$OUTD/session.txt"
log "session10: $(tr '\n' ' ' <"$D/bin/BUILD")"
s_gpu
s_pieces
s_publish

# Each phase's share of 545 s, never more than what is left less the later
# phases' floors (torch 150 + gnn 185 + torch-cache 20 + 10 for the summary)
mat cpumix,sweep,cupy "$MATRIX" "$(share 175 365)" 3 3
s_publish
mat torch "$TORCH" "$(share 150 215)" 2 2
s_publish
mat gnn "$GNN" "$(share 185 30)" 2 2
s_publish
win torch-cache "$WIN_CACHE" 3 1 4 "$(( $(left) - $(scaled 10) ))"
s_publish
cat "$OUTD/summary.md"
log "done in $(( $(date +%s) - T0 ))s: $OUTD"
