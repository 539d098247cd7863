#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/watch_alt/watch_alt_gpu.sh - issue 40's cost of watching, its
# alternatives beside the engine's allocation watcher, one device call (root):
# PyTorch without its caching allocator (bench/ab/workloads/torch_train.py,
# alloc.so's cudaMallocManaged per tensor), whole programs, under
#   alone    nothing else
#   none     bench/ab/bin/gpuctl-tree -j prefetch load none -- W (the watcher
#            on raw_syscalls sys_enter/sys_exit and the tools session)
#   shim     LD_PRELOAD=libwatchalt-shim.so W (bench/watch_alt/shim.c)
#   uprobe   watch-alt-uprobe --lib LIBCUDA [--offset PROC] -- W
# in interleaved rounds, the order rotated by one each round, while the
# longest round so far still fits BUDGET: each run's wall time, its step_ms
# (the median of STEPS steps after WARMUP) and the allocations its watcher
# saw, as JSON lines; then walt.py's summary (paired ratios against alone,
# the 95 % CI of their mean, a watcher that saw nothing called blind).
#
#   watch_alt_gpu.sh [--dry-run]
# Environment: WATCH_ALT_BUDGET (540; at most 560), WATCH_ALT_STEPS (2),
# WATCH_ALT_WARMUP (1), WATCH_ALT_RUN_TIMEOUT (120), WATCH_ALT_ROUNDS (the
# most rounds, 100), PYTHON (python3); the tests' stand-ins: AB_BIN (the
# folder of gpuctl-tree and BUILD, bench/ab/bin), WATCH_ALT_UPROBE.
# Needs bench/ab/bin/gpuctl-tree (make bench-ab REF=...) and
# bench/watch_alt/bin (make bench-watch-alt), both carried.  The shim and
# the resolver are built here with the machine's cc (they dlopen its
# driver and run in its python: its glibc); the carried ones if cc fails.
# Out: $OUT/watch-alt/ (results.jsonl, summary.md, log.txt).
# Exit: 0 done (failed runs are in the results); 1 nothing could run; 2 usage.
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
AB=$R/bench/ab
BUDGET=${WATCH_ALT_BUDGET:-540} STEPS=${WATCH_ALT_STEPS:-2} WARMUP=${WATCH_ALT_WARMUP:-1}
# shellcheck disable=SC2034  # ROUNDS, OUTD, RESERVE: watch_alt_lib.sh's
RUN_TIMEOUT=${WATCH_ALT_RUN_TIMEOUT:-120} PY=${PYTHON:-python3} ROUNDS=${WATCH_ALT_ROUNDS:-100}
CONFIGS=(alone none shim uprobe)
ABB=${AB_BIN:-$AB/bin}
TREE=$ABB/gpuctl-tree UPROBE=${WATCH_ALT_UPROBE:-$D/bin/watch-alt-uprobe}
# shellcheck disable=SC2034
OUTD=${OUT:-$D/out}/watch-alt
RESERVE=15	# seconds kept for the summary
EST_RUN=11	# seconds a run takes on an H100 (start ~7 s, 3 steps ~3.5 s): a guess

die() { echo "Error: $*" >&2; exit 2; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; }
DRY=0
[ "${1:-}" = --dry-run ] && { DRY=1; shift; }
[ $# = 0 ] || die "usage: watch_alt_gpu.sh [--dry-run]"
isnum "$BUDGET" && [ "$BUDGET" -ge 60 ] && [ "$BUDGET" -le 560 ] ||
	die "WATCH_ALT_BUDGET must be 60..560 seconds (one device call), not '$BUDGET'"
for v in STEPS WARMUP RUN_TIMEOUT ROUNDS; do
	isnum "${!v}" && { [ "${!v}" -gt 0 ] || [ "$v" = WARMUP ]; } ||
		die "WATCH_ALT_$v must be a non-negative integer (all but WARMUP positive), not '${!v}'"
done

order_of() {	# order_of ROUND: the configurations rotated by ROUND-1
	local n=${#CONFIGS[@]} i k=$(( ($1 - 1) % ${#CONFIGS[@]} ))
	for ((i = 0; i < n; i++)); do printf '%s ' "${CONFIGS[$(( (i + k) % n ))]}"; done
}

# The run's command line into CMD (W: the scratch folder; UARGS: the uprobe's points).
cmd_of() {	# cmd_of CONFIG
	local wl=("$PY" "$AB/workloads/torch_train.py" --so "$W/alloc.so" --steps "$STEPS" --warmup "$WARMUP")
	case $1 in
	alone) CMD=("${wl[@]}") ;;
	none) CMD=("$TREE" -j prefetch load none -- "${wl[@]}") ;;
	shim) CMD=(env LD_PRELOAD="$W/libwatchalt-shim.so" WATCH_ALT_SHIM_OUT="$W/shim.jsonl" "${wl[@]}") ;;
	uprobe) CMD=("$UPROBE" "${UARGS[@]}" --out "$W/uprobe.json" -- "${wl[@]}") ;;
	esac
}

dry_run() {
	local rc=0 r c f n
	# shellcheck disable=SC2016  # the plan names the scratch folder literally
	W='$W' UARGS=(--lib LIBCUDA --offset PROC)
	n=$(( (BUDGET - RESERVE - 30) / (EST_RUN * ${#CONFIGS[@]}) ))
	echo "# watch_alt_gpu.sh --dry-run: the plan (no GPU touched)"
	echo "budget ${BUDGET}s (${RESERVE}s kept for the summary); torch $STEPS steps after $WARMUP warm-up;" \
		"each run under timeout ${RUN_TIMEOUT}s; about $n rounds of ${CONFIGS[*]} fit (a guess: ${EST_RUN}s a run)"
	[ "$n" -ge 10 ] || echo "   (fewer than 10 rounds: lower WATCH_ALT_STEPS or raise WATCH_ALT_BUDGET)"
	for f in "$TREE" "$UPROBE" "$D/bin/libwatchalt-shim.so" "$D/bin/watch-alt-resolve"; do
		if [ -x "$f" ] || [ -s "$f" ]; then echo "present: ${f#"$R"/}"
		else echo "missing: ${f#"$R"/} (make bench-ab REF=main; make bench-watch-alt; carry both bin/)"; fi
	done
	for r in 1 2 3 4 5; do echo "round $r: $(order_of $r)"; done
	for c in "${CONFIGS[@]}"; do
		cmd_of "$c"
		f="${CMD[*]}"
		echo "$c: ${f//$R\//}"
	done
	echo "first: nvcc alloc.so; cc shim.c resolve.c; watch-alt-resolve libcuda.so.1 cuMemAllocManaged"
	for f in "$0" "$D/watch_alt_lib.sh"; do
		bash -n "$f" && echo "parses: ${f#"$R"/}" || { echo "DOES NOT PARSE: $f"; rc=1; }
	done
	for f in "$D/walt.py" "$AB/summarize.py" "$AB/workloads/torch_train.py"; do
		if python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f"; then
			echo "parses: ${f#"$R"/}"
		else echo "DOES NOT PARSE: $f"; rc=1; fi
	done
	[ -s "$AB/workloads/alloc.cu" ] || { echo "MISSING: bench/ab/workloads/alloc.cu"; rc=1; }
	[ $rc = 0 ] && echo "watch_alt dry run: ok" || echo "watch_alt dry run: FAILED"
	return $rc
}
[ "$DRY" = 1 ] && { dry_run; exit $?; }

# shellcheck source=bench/watch_alt/watch_alt_lib.sh
. "$D/watch_alt_lib.sh"
real_run
