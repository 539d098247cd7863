#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/ab/run.sh - the same-run A/B bench of the per-process prefetch engine
# (bench/ab/README.md).  Runs on the GPU machine, as root, in a copy of the
# tree that carries bench/ab/bin/ (made here by bench/ab/build.sh).  For each
# workload, in this one invocation, paired rounds of every configuration, the
# order rotated each round:
#   alone     the workload by itself (managed memory, no engine)
#   device    its device-memory twin (cudaMalloc: the ceiling)
#   ref       REF's engine:  gpuctl-<sha> -j prefetch load POLICY --max-bytes B -- W
#   tree      the tree's engine, the same command with gpuctl-tree
#   none      the tree's engine under `none` (watching only)
#   ref-none  REF's engine under `none`
#   tree-alt  the tree's engine under --alt-policy (e.g. 'populate eager 1'
#             beside the default: two policies of one build in one call)
#   ref-alt   REF's engine under --alt-policy
#   tree-alt2, ref-alt2  the same under --alt2-policy (a third policy)
#   old       a second ref's engine under POLICY (build.sh REF OLD: an older
#             engine beside REF in the same rounds)
#   trace     gpuctl-tree trace faults --backend uvm-tools -- W (output dropped)
#   stat      gpuctl-tree stat --backend uvm-tools -- W
# as many rounds as the time budget allows (up to --rounds), each run under
# `timeout`; a failed run is recorded as failed and the bench goes on.
#
#   run.sh [--dry-run] [--budget S] [--workloads W,...] [--configs C,...]
#          [--policy 'P [KEY VALUE]...'] [--alt-policy 'P [KEY VALUE]...']
#          [--alt2-policy 'P [KEY VALUE]...'] [--configs-for W=C,...]...
#          [--rounds N] [--min-rounds N]
#          [--run-timeout S] [--max-bytes SIZE] [--out DIR]
#
# Workloads (bench/ab/workloads/): sweep, cupy, torch, torch-cache, gnn,
# cpumix (built to make a move at creation lose; not in the default list).
# Default: the first five, configurations alone,device,ref,tree (torch adds
# none,trace), policy populate, 5 rounds, budget 540 s (one 10-minute call).
# Writes to $OUT (or --out, default bench/ab/out): results.jsonl (one line a
# run, and a first {"meta":...} line), summary.md (summarize.py), log.txt.
# --dry-run: no GPU; prints the plan and checks that the scripts parse.
# Sizes: SWEEP_MIB (8192), CUPY_GIB (4), TORCH_STEPS (5), GNN_NODES
# (2000000), GNN_EDGES (20000000), GNN_EPOCHS (3), CPUMIX_ITERS (16) in the environment;
# PYTHON: the workloads' python3.  --configs-for W=C,...: workload W's own
# configurations (over --configs).  AB_PIECES=DIR: the CUDA pieces (sweep,
# cpumix, alloc.so) built there already are copied, not built again.
# AB_RESERVE (20): the seconds of the budget kept for the summary.
# Exit: 0 done (failed runs are in the results), 1 nothing could run, 2 usage.
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
ALL_WL="sweep cupy torch torch-cache gnn cpumix"
DEF_WL="sweep cupy torch torch-cache gnn"
ALL_CFG="alone device ref tree none ref-none trace stat tree-alt ref-alt tree-alt2 ref-alt2 old"
DRY=0 BUDGET=540 ROUNDS=5 MIN_ROUNDS=5 RUN_TIMEOUT=180 POLICY=populate MAXB='' ALT_POLICY='' ALT2_POLICY=''
CFG_FOR=''	# ' W=C,C W2=C ...'
WORKLOADS=$DEF_WL CONFIGS='' OUTDIR=${OUT:-$D/out} RESERVE=${AB_RESERVE:-20}
BIN=${AB_BIN:-$D/bin}
PY=${PYTHON:-python3}	# the workloads' python (torch, cupy, torch_geometric)

die() { echo "Error: $*" >&2; exit 2; }
isnum() { case $1 in ''|*[!0-9]*) return 1 ;; esac; }
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) DRY=1; shift; continue ;;
	-h|--help) sed -n '3,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	--budget|--workloads|--configs|--configs-for|--policy|--alt-policy|--alt2-policy|--rounds|--min-rounds|--run-timeout|--max-bytes|--out)
		[ $# -ge 2 ] || die "$1 needs a value" ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	case $1 in
	--budget) BUDGET=$2 ;;
	--workloads) WORKLOADS=${2//,/ } ;;
	--configs) CONFIGS=${2//,/ } ;;
	--policy) POLICY=$2 ;;
	--alt-policy) ALT_POLICY=$2 ;;
	--alt2-policy) ALT2_POLICY=$2 ;;
	--configs-for)
		[[ $2 =~ ^[a-z-]+=[a-z0-9,-]+$ ]] || die "--configs-for takes W=C,..., not '$2'"
		CFG_FOR="$CFG_FOR $2" ;;
	--rounds) ROUNDS=$2 ;;
	--min-rounds) MIN_ROUNDS=$2 ;;
	--run-timeout) RUN_TIMEOUT=$2 ;;
	--max-bytes) MAXB=$2 ;;
	--out) OUTDIR=$2 ;;
	esac
	shift 2
done
for v in BUDGET ROUNDS MIN_ROUNDS RUN_TIMEOUT; do
	isnum "${!v}" && [ "${!v}" -gt 0 ] || die "--$(echo "$v" | tr 'A-Z_' 'a-z-') must be a positive integer, not '${!v}'"
done
[ -n "$WORKLOADS" ] || die "--workloads is empty"
for w in $WORKLOADS; do
	[[ " $ALL_WL " == *" $w "* ]] || die "unknown workload '$w' (one of: $ALL_WL)"
done
for f in $CFG_FOR; do
	[[ " $ALL_WL " == *" ${f%%=*} "* ]] || die "--configs-for: unknown workload '${f%%=*}' (one of: $ALL_WL)"
done
ALL_USED="$CONFIGS"
for f in $CFG_FOR; do ALL_USED="$ALL_USED ${f#*=}"; done
ALL_USED=${ALL_USED//,/ }
for c in $ALL_USED; do
	[[ " $ALL_CFG " == *" $c "* ]] || die "unknown configuration '$c' (one of: $ALL_CFG)"
done
[ -n "${POLICY// /}" ] || die "--policy is empty"
for c in $ALL_USED; do
	case $c in
	tree-alt|ref-alt) [ -n "${ALT_POLICY// /}" ] || die "$c needs --alt-policy" ;;
	tree-alt2|ref-alt2) [ -n "${ALT2_POLICY// /}" ] || die "$c needs --alt2-policy" ;;
	esac
done
[ -z "$MAXB" ] || [[ $MAXB =~ ^[0-9]+[KMG]?$ ]] || die "--max-bytes takes N, NK, NM or NG, not '$MAXB'"

# The build's record (bench/ab/build.sh): key=value lines.
info() { sed -n "s/^$1=//p" "$BIN/BUILD" 2>/dev/null | head -1; }
REF_SHA=$(info ref_sha) REF_NAME=$(info ref_name) TREE_SHA=$(info tree_sha) OLD_SHA=$(info old_sha)
REF_BIN=$BIN/gpuctl-${REF_SHA:-REF} TREE_BIN=$BIN/gpuctl-tree OLD_BIN=$BIN/gpuctl-${OLD_SHA:-OLD}

configs_of() {	# configs_of WORKLOAD
	local f
	for f in $CFG_FOR; do
		[ "${f%%=*}" = "$1" ] && { echo "${f#*=}" | tr , ' '; return; }
	done
	if [ -n "$CONFIGS" ]; then echo "$CONFIGS"
	elif [ "$1" = torch ]; then echo "alone device ref tree none trace"
	else echo "alone device ref tree"; fi
}

# The workload's command line into the array WCMD ($W: the run's scratch).
wl_cmd() {	# wl_cmd WORKLOAD DEVICE(0/1)
	local dev=()
	[ "$2" = 1 ] && dev=(--device)
	case $1 in
	sweep) WCMD=("$W/sweep" --mib "${SWEEP_MIB:-8192}" "${dev[@]}") ;;
	cupy) WCMD=("$PY" "$D/workloads/cupy_pool.py" --gib "${CUPY_GIB:-4}" "${dev[@]}") ;;
	torch) WCMD=("$PY" "$D/workloads/torch_train.py" --so "$W/alloc.so" --steps "${TORCH_STEPS:-5}" "${dev[@]}") ;;
	torch-cache) WCMD=("$PY" "$D/workloads/torch_train.py" --so "$W/alloc.so" --cache
			   --steps "${TORCH_STEPS:-5}" "${dev[@]}") ;;
	gnn) WCMD=("$PY" "$D/workloads/gnn_sage.py" --so "$W/alloc.so" --nodes "${GNN_NODES:-2000000}"
		   --edges "${GNN_EDGES:-20000000}" --epochs "${GNN_EPOCHS:-3}" "${dev[@]}") ;;
	cpumix) WCMD=("$W/cpumix" --iters "${CPUMIX_ITERS:-16}" "${dev[@]}") ;;
	esac
}

# The wrapper of a configuration into the array PRE (empty: none).
# shellcheck disable=SC2206  # POLICY is words on purpose: 'populate eager 0'
cfg_pre() {	# cfg_pre CONFIG
	case $1 in
	alone|device) PRE=() ;;
	ref) PRE=("$REF_BIN" -j prefetch load $POLICY --max-bytes "$MAXB" --) ;;
	old) PRE=("$OLD_BIN" -j prefetch load $POLICY --max-bytes "$MAXB" --) ;;
	tree) PRE=("$TREE_BIN" -j prefetch load $POLICY --max-bytes "$MAXB" --) ;;
	ref-none) PRE=("$REF_BIN" -j prefetch load none --) ;;
	tree-alt) PRE=("$TREE_BIN" -j prefetch load $ALT_POLICY --max-bytes "$MAXB" --) ;;
	ref-alt) PRE=("$REF_BIN" -j prefetch load $ALT_POLICY --max-bytes "$MAXB" --) ;;
	tree-alt2) PRE=("$TREE_BIN" -j prefetch load $ALT2_POLICY --max-bytes "$MAXB" --) ;;
	ref-alt2) PRE=("$REF_BIN" -j prefetch load $ALT2_POLICY --max-bytes "$MAXB" --) ;;
	none) PRE=("$TREE_BIN" -j prefetch load none --) ;;
	trace) PRE=("$TREE_BIN" trace faults --backend uvm-tools --) ;;
	stat) PRE=("$TREE_BIN" stat --backend uvm-tools --) ;;
	esac
}

order_of() {	# order_of ROUND CONFIG...: the configurations rotated by ROUND-1
	local r=$1; shift
	local a=("$@") n=$# i k
	k=$(( (r - 1) % n ))
	for ((i = 0; i < n; i++)); do printf '%s ' "${a[$(( (i + k) % n ))]}"; done
}

# Rough seconds a run takes on an H100 (process start, imports and setup
# included); only the dry run's estimate uses them.
est_run_s() { case $1 in sweep) echo 6 ;; cupy) echo 10 ;; torch) echo 15 ;; torch-cache) echo 12 ;; gnn) echo 25 ;;
	cpumix) echo 6 ;; esac; }

needs_nvcc() {	# what the workloads need built: sweep, cpumix and/or alloc.so
	local w need=''
	for w in $WORKLOADS; do
		case $w in sweep|cpumix) need="$need $w" ;; *) [[ $need == *alloc* ]] || need="$need alloc" ;; esac
	done
	echo "$need"
}

. "$D/run_lib.sh"

if [ "$DRY" = 1 ]; then
	dry_run
	exit $?
fi
real_run
