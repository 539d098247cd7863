#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/ab/none_cost_gpu.sh - issue 40's cost of watching, one device call:
# PyTorch without its caching allocator, one process (window.py), the tree's
# `prefetch load none` attached and detached in turn with nothing attached
# (alone), rotations of 3 measured steps each, as many as fit BUDGET (default
# 300 s): the paired none / alone step ratio with its 95 % confidence interval.
# The goal: `none` <= 1 % over alone, with the allocation watcher and the tools
# session kept (none keeps both; it enables no driver counter).
#
#   none_cost_gpu.sh [--dry-run]
# Needs bench/ab/bin (make bench-ab REF=...); out: $OUT/none-cost/ (summary.md,
# results.jsonl, session.txt, log.txt, raw.tgz).
set -u
D=$(dirname "$(readlink -f "$0")")
BUDGET=${NONE_BUDGET:-300} BASE=300 T0=$(date +%s)
OUTD=${OUT:-$D/out}/none-cost
POLARGS=(--policy populate)
if [ "${1:-}" = --dry-run ]; then
	python3 "$D/window.py" --dry-run --workload torch --plan alone,none --rotations 100 --discard 1 \
		--measure 3 "${POLARGS[@]}" --max-bytes 1G --pieces PIECES && bash -n "$0" &&
		echo "none_cost dry run: ok"
	exit $?
fi
[ $# = 0 ] || { echo "Error: usage: none_cost_gpu.sh [--dry-run]" >&2; exit 2; }
[ -s "$D/bin/BUILD" ] || { echo "Error: no $D/bin/BUILD (make bench-ab REF=...; carry bench/ab/bin)" >&2; exit 1; }
mkdir -p "$OUTD" && rm -f "$OUTD"/* && : >"$OUTD/session.txt" || exit 1
WORK=$(mktemp -d /tmp/ncw.XXXXXX) || exit 1
S_TRAP_MORE=" '$WORK'"
. "$D/session_lib.sh"
s_footer() {
	echo
	echo "alone: nothing attached; none: the tree's \`prefetch load none -p PID\` (the allocation"
	echo "watcher and the tools session, no driver counter).  Windows of 1 dropped + 3 steps."
}
log "none cost: $(tr '\n' ' ' <"$D/bin/BUILD")"
s_gpu
s_pieces
win torch alone,none 100 1 3 "$(( $(left) - 10 ))"
s_collect
tar czf "$OUTD/raw.tgz" -C "$WORK" . 2>/dev/null
