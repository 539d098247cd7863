#!/bin/bash
# bench/mps/coloc_mps_gpu.sh - issue 39's co-location bench on one GPU (stock
# driver, root): LC = BERT-base fp16, batch 1, a request every 5 ms
# (bench/lcbe/coloc.py, P50/P99 over each phase after its first SKIP s);
# BE = 4 CNN trainers (bf16) per group.  All processes start once; a phase
# wakes its LC and BE group (SIGCONT) and stops the others (SIGSTOP).
#
# Block A (rounds ROUNDS, order rotated): gpuctl's one command against MPS
# set by hand, each group with its own LC process and daemon:
#   alone_plain  LC outside MPS, nothing else
#   alone_mps    LC as a client of gpuctl's daemon, nothing else
#   be_alone_mps gpuctl's BE clients alone (no LC request)
#   gpuctl_mps   `sched run lc-be ... mechanism mps` + `sched exec --class`
#   hand_p1      MPS by hand: BE with CUDA_MPS_CLIENT_PRIORITY=1
#   hand_p0      MPS by hand, no priority
# Block B (rounds ROUNDS_B): a BE of another uid (65534, outside MPS, started
# after `sched watch` and before `sched run`), LC outside MPS:
#   b_alone_plain  LC alone     b_be_alone  BE alone (no LC request)
#   b_none         no policy    b_tsg_rot   lc-be be-timeslice 50 be-rotate 50
#   b_tsg_def      lc-be defaults
# Out: $OUT/phases.txt (one line a phase), $OUT/summary.txt, $OUT/log.txt,
# the daemons' control.log, sched status of each policy.
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
OUT=${OUT:-/tmp/coloc-mps-out}; mkdir -p "$OUT"
W=${W:-/tmp/coloc-mps}; rm -rf "$W"; mkdir -p "$W"; chmod 755 "$W"
GPUCTL=${GPUCTL:-gpuctl}
ROUNDS=${ROUNDS:-5} ROUNDS_B=${ROUNDS_B:-3} NBE=${NBE:-4} SKIP=${SKIP:-5} MEAS=${MEAS:-7}
BLOCKS=${BLOCKS:-A B}	# which blocks run (a call of 10 minutes holds one)
PHASE=$((SKIP + MEAS))
HP=$W/hand/pipe HL=$W/hand/log
. "$D/common.sh"
cleanup() { bench_end "$HP"; }
trap cleanup EXIT
exec > >(tee "$OUT/log.txt") 2>&1
log "machine"; nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
G sched unload >/dev/null 2>&1
G sched watch || exit 1
export COLOC_SKIP_S=$SKIP
C="python3 $R/bench/lcbe/coloc.py"
waitready() { for i in $(seq 900); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "not ready: $1"; }

# BE of another uid, before sched run (block B)
declare -A GRP
for i in $(seq "$NBE"); do
	: >"$W/u$i.log"; chown 65534:65534 "$W/u$i.log"
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp PROC_COMM=beuid \
		$C be "$W/u$i.log" >"$W/u$i.out" 2>&1 & GRP[u]+=" $!"; ALL="$ALL $!"
done
mkfifo "$W/lcp.in" "$W/lcg.in" "$W/lch.in"
PROC_COMM=lcbert $C lc bert 5 <"$W/lcp.in" >"$W/lcp.out" 2>&1 & LCP=$!; ALL="$ALL $!"

# gpuctl's one command: the policy (its daemon), then its clients
"$GPUCTL" sched run lc-be lc comm:lcbertm mechanism mps >"$OUT/run_mps.out" 2>"$OUT/run_mps.err" &
RUN=$!; ALL="$ALL $RUN"
for i in $(seq 100); do grep -q active "$OUT/run_mps.err" && break; sleep 0.1; done
cat "$OUT/run_mps.err"
PROC_COMM=lcbertm "$GPUCTL" sched exec --class lc -- $C lc bert 5 <"$W/lcg.in" >"$W/lcg.out" 2>&1 & LCG=$!; ALL="$ALL $!"
for i in $(seq "$NBE"); do
	PROC_COMM=becnn "$GPUCTL" sched exec --class be -- $C be "$W/g$i.log" >"$W/g$i.out" 2>&1 &
	ALL="$ALL $!"
done
# MPS by hand: its own daemon
mkdir -p "$HP" "$HL"
CUDA_MPS_PIPE_DIRECTORY=$HP CUDA_MPS_LOG_DIRECTORY=$HL nvidia-cuda-mps-control -d
PROC_COMM=lcberth CUDA_MPS_PIPE_DIRECTORY=$HP $C lc bert 5 <"$W/lch.in" >"$W/lch.out" 2>&1 & LCH=$!; ALL="$ALL $!"
for i in $(seq "$NBE"); do
	PROC_COMM=behand1 CUDA_MPS_PIPE_DIRECTORY=$HP CUDA_MPS_CLIENT_PRIORITY=1 $C be "$W/h1_$i.log" >"$W/h1_$i.out" 2>&1 &
	ALL="$ALL $!"
	PROC_COMM=behand0 CUDA_MPS_PIPE_DIRECTORY=$HP $C be "$W/h0_$i.log" >"$W/h0_$i.out" 2>&1 &
	ALL="$ALL $!"
done
exec 7>"$W/lcp.in" 8>"$W/lcg.in" 9>"$W/lch.in"
for f in lcp lcg lch $(for i in $(seq "$NBE"); do echo u$i g$i h1_$i h0_$i; done); do
	waitready "$W/$f.out"; done
# the trainers' pids (the python processes, not the gpuctl exec parents)
for g in u g h1_ h0_; do GRP[$g]=$(for f in "$W"/$g*.out; do sed -n 's/^be ready pid=//p' "$f"; done | tr '\n' ' '); done
echo "groups: u=${GRP[u]} g=${GRP[g]} h1=${GRP[h1_]} h0=${GRP[h0_]}"
nvidia-smi --query-gpu=memory.used --format=csv,noheader
G sched status; G -j sched status >"$OUT/status_mps.json"
for p in ${GRP[u]} ${GRP[g]} ${GRP[h1_]} ${GRP[h0_]}; do kill -STOP "$p"; done
log "all started"; sleep 2

BEGROUPS="u g h1_ h0_"
only() {	# only GROUP: that BE group runs, the others stop ("" none)
	local grp p
	for grp in $BEGROUPS; do
		for p in ${GRP[$grp]}; do
			if [ "$grp" = "$1" ]; then kill -CONT "$p"; else kill -STOP "$p"; fi
		done
	done
}
phase() {	# phase ROUND LABEL LCFD BEGROUP
	local r=$1 label=$2 fd=$3 g=$4 f n t0 t1
	only "$g"; sleep 1.5
	case $fd in 7) f=lcp ;; 8) f=lcg ;; 9) f=lch ;; *) f= ;; esac
	if [ -z "$f" ]; then	# BE alone: a window of the same length
		t0=$(mono); sleep "$PHASE"; t1=$(mono)
		echo "P $r $label be=$g lc - t0=$(python3 -c "print('%.3f' % ($t0 + $SKIP))") t1=$t1" >>"$OUT/phases.txt"
		return
	fi
	n=$(grep -c "^lc " "$W/$f.out")
	echo "run $label $PHASE" >&"$fd"
	for i in $(seq $(((PHASE + 30) * 10))); do [ "$(grep -c "^lc " "$W/$f.out")" -gt "$n" ] && break; sleep 0.1; done
	echo "P $r $label be=${g:--} $(grep "^lc " "$W/$f.out" | tail -1)" | tee -a "$OUT/phases.txt"
}
A="alone_plain|7|
alone_mps|8|
be_alone_mps||g
gpuctl_mps|8|g
hand_p1|9|h1_
hand_p0|9|h0_"
case " $BLOCKS " in *" A "*) ;; *) ROUNDS=0 ;; esac
case " $BLOCKS " in *" B "*) ;; *) ROUNDS_B=0 ;; esac
for r in $(seq "$ROUNDS"); do
	log "block A round $r"
	list=$(echo "$A" | awk -v k=$((r - 1)) '{a[NR]=$0} END {for (i = 0; i < NR; i++) print a[(i + k) % NR + 1]}')
	while IFS='|' read -r label fd g; do phase "$r" "$label" "$fd" "$g"; done <<<"$list"
done
only ""
G sched status | tail -12
log "block A done: the MPS clients end, then the run (it quits its daemon)"
for p in ${GRP[g]} ${GRP[h1_]} ${GRP[h0_]}; do kill -CONT "$p"; kill -9 "$p"; done
exec 8>&- 9>&-
kill "$LCG" "$LCH" 2>/dev/null; sleep 3
printf 'quit\n' | CUDA_MPS_PIPE_DIRECTORY=$HP nvidia-cuda-mps-control
kill -INT "$RUN"; wait "$RUN"; tail -4 "$OUT/run_mps.err"
ps -eo pid,comm | grep -c nvidia-cuda-mps
BEGROUPS="u"
B="b_alone_plain|7|
b_be_alone||u
b_none|7|u
b_tsg_rot|7|u|lc-be lc comm:lcbert be-timeslice 50 be-rotate 50
b_tsg_def|7|u|lc-be lc comm:lcbert"
for r in $(seq "$ROUNDS_B"); do
	log "block B round $r"
	list=$(echo "$B" | awk -v k=$((r - 1)) '{a[NR]=$0} END {for (i = 0; i < NR; i++) print a[(i + k) % NR + 1]}')
	while IFS='|' read -r label fd g args; do
		run=""
		if [ -n "$args" ]; then
			"$GPUCTL" sched run $args >"$W/run_$label.out" 2>"$W/run_$label.err" & run=$!
			for i in $(seq 100); do grep -q active "$W/run_$label.err" && break; sleep 0.05; done
		fi
		phase "$r" "$label" "$fd" "$g"
		[ -n "$run" ] && { G sched status >"$OUT/status_${label}_$r.txt" 2>&1; kill -INT $run; wait $run; }
	done <<<"$list"
done
only ""
exec 7>&-
log "summary"
python3 "$D/coloc_mps_sum.py" "$OUT/phases.txt" "$W" | tee "$OUT/summary.txt"
G sched stop 2>&1 | tail -2
cp "$HL/control.log" "$OUT/hand_control.log" 2>/dev/null
cp /run/gpuctl/mps/log/control.log "$OUT/gpuctl_control.log" 2>/dev/null
log end
