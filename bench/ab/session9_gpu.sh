#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/ab/session9_gpu.sh - issue 40's one device call (one H100, <= 540 s):
# main's default (`populate`, eager 2: ref) against `populate eager 1`
# (ref-alt) and `populate trail 1` (ref-alt2), all three on REF's binary, and
# alone; the tree's binary (tree, none) beside REF's (ref, ref-none) where
# they differ (the cost of watching; the decision age to a move's start).
#   1. cpumix, sweep (8 GiB), cupy (4 GiB), whole programs (run.sh): alone,
#      ref, ref-alt, ref-alt2; 3 rounds; wall time and the CPU phase beside
#      the metric (~185 s)
#   2. gnn 2M nodes / 20M edges, one process, windows (window.py): alone,
#      ref, tree, tree-async, ref-alt, ref-alt2; 3 rotations of 1 dropped +
#      2 epochs (~80 s)
#   3. torch-cache, one process, windows: alone, ref, ref-alt, ref-alt2; up
#      to 4 rotations (~25 s)
#   4. torch, one process, windows: alone, ref, tree, tree-async, ref-alt,
#      ref-alt2, 3 rotations of 1 dropped + 2 steps; then with all the time
#      left, alone, ref-none, none, rotations of 3 steps each (a step counts
#      once it starts after the engine is set up or gone): the cost of
#      `none` over alone, as many pairs as fit (~10 expected), with its
#      confidence interval
# Windows give the steady-state step (epoch) time, not the whole program's
# wall; run.sh's runs give both.  Everything lands in $OUT/engine-ab-session9/
# (results.jsonl, summary.md, log.txt, session.txt): copy it to bench/results/.
#
#   session9_gpu.sh [--dry-run]
# Needs bench/ab/bin (bench/ab/build.sh main: REF = main, tree = this tree).
# SESSION9_BUDGET (530) is the whole; the phases' shares scale with it.
# --dry-run: the plan, and every piece's own dry run; no GPU.
set -u
D=$(dirname "$(readlink -f "$0")")
BUDGET=${SESSION9_BUDGET:-530}
DRY=0
[ "${1:-}" = --dry-run ] && DRY=1
[ $# -le $DRY ] || { echo "Error: usage: session9_gpu.sh [--dry-run]" >&2; exit 2; }
OUTD=${OUT:-$D/out}/engine-ab-session9
PY=${PYTHON:-python3}
POL=populate ALT='populate eager 1' ALT2='populate trail 1'
T0=$(date +%s) BASE=530 WORK=$OUTD
POLARGS=(--policy "$POL" --alt-policy "$ALT" --alt2-policy "$ALT2")
. "$D/session_lib.sh"

WIN_NONE=alone,ref-none,none
WIN_TORCH=alone,ref,tree,tree-async,ref-alt,ref-alt2
WIN_GNN=alone,ref,tree,tree-async,ref-alt,ref-alt2
WIN_CACHE=alone,ref,ref-alt,ref-alt2
MATRIX=alone,ref,ref-alt,ref-alt2

if [ $DRY = 1 ]; then
	echo "# session9_gpu.sh --dry-run: budget ${BUDGET}s; out $OUTD"
	echo "## run.sh (cpumix,sweep,cupy; $MATRIX)"
	"$D/run.sh" --dry-run --budget 180 --rounds 3 --min-rounds 3 --workloads cpumix,sweep,cupy \
		--configs "$MATRIX" --policy "$POL" --alt-policy "$ALT" --alt2-policy "$ALT2" || exit 1
	for w in "gnn $WIN_GNN 3 1 2" "torch-cache $WIN_CACHE 4 1 4" "torch $WIN_TORCH 3 1 2 $WIN_NONE 30"; do
		set -- $w
		p2=()
		[ $# -ge 7 ] && p2=(--plan2 "$6" --rotations2 "$7" --discard2 0 --measure2 3)
		echo "## windows: $1"
		python3 "$D/window.py" --dry-run --workload "$1" --plan "$2" --rotations "$3" --discard "$4" \
			--measure "$5" "${p2[@]}" --policy "$POL" --alt-policy "$ALT" --alt2-policy "$ALT2" \
			--max-bytes 1G --pieces PIECES || exit 1
	done
	python3 -c 'import ast,sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]' \
		"$D/window.py" "$D/summarize.py" && bash -n "$0" && echo "session9 dry run: ok"
	exit $?
fi

mkdir -p "$OUTD" || exit 1
: >"$OUTD/session.txt"
for b in "$D/bin/BUILD"; do [ -s "$b" ] || { echo "Error: no $b (bench/ab/build.sh main; carry bench/ab/bin)" >&2; exit 1; }; done
log "session9: budget ${BUDGET}s; $(tr '\n' ' ' <"$D/bin/BUILD")"
s_gpu
s_pieces

# Each phase's share of 530 s (scaled by SESSION9_BUDGET), never more than
# what is left less the later phases' floors; torch last, with the rest.
SWEEP_MIB=${SWEEP_MIB:-8192} CUPY_GIB=${CUPY_GIB:-4} mat cpumix,sweep,cupy "$MATRIX" "$(share 185 300)"
GNN_NODES=${GNN_NODES:-2000000} GNN_EDGES=${GNN_EDGES:-20000000} win gnn "$WIN_GNN" 3 1 2 "$(share 80 215)"
win torch-cache "$WIN_CACHE" 4 1 4 "$(share 25 190)"
win torch "$WIN_TORCH" 3 1 2 "$(( $(left) - 8 ))" "$WIN_NONE" 30

# the summary of everything (window lines pair per rotation, run.sh's per round)
s_footer() {
	echo
	echo "Configurations: ref = REF's \`$POL\` (main's default, eager 2), ref-alt = REF's \`$ALT\`,"
	echo "ref-alt2 = REF's \`$ALT2\`, tree = the tree's \`$POL\`, none / ref-none = the tree's / REF's \`none\`."
	echo "age_p50_us / age_p99_us: REF's (main) to the END of an allocation's first move, the tree's to its"
	echo "START (the goal's definition; the tree also moves a new allocation before the rest of a large one)."
	echo "NAME~win: windows within one process (window.py: steady state, engines attached with -p);"
	echo "no wall time there.  Whole programs: cpumix, sweep, cupy."
}
s_collect
cat "$OUTD/summary.md"
log "done in $(( $(date +%s) - T0 ))s: $OUTD"
