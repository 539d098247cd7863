#!/bin/bash
# bench/mps/target_gpu.sh - issue 39's latency target and the hint gate's A/B
# on one GPU (stock driver, root).  LC: BERT-base fp16 (bench/lcbe/coloc.py,
# a request every 5 ms, bracketed in the hint file as libgpuctl-hint.so
# does, timed into its histogram); BE: 4 CNN trainers, outside MPS.  Per
# round (order rotated), each phase SKIP + MEAS s:
#   alone      LC alone (BE stopped)         be_alone  BE alone (no LC request)
#   none       no policy
#   hint_ref   lc-be hint (REF's gpuctl)     hint      lc-be hint (this tree's)
#   p99_12     lc-p99 1.2 x LC alone's P99   p99_20    lc-p99 2 x
# The targets come from the first round's LC alone (same call).  Out:
# $OUT/phases.txt, summary.txt (coloc_mps_sum.py), status of each policy.
# GPUCTL: this tree's static gpuctl; REF: the reference's (bench/ab/bin/).
# PHASES: a subset of the labels above (LC alone always runs).
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
OUT=${OUT:-/tmp/target-out}; mkdir -p "$OUT"
W=${W:-/tmp/target-w}; rm -rf "$W"; mkdir -p "$W"
GPUCTL=${GPUCTL:-gpuctl} REF=${REF:-}
ROUNDS=${ROUNDS:-3} NBE=${NBE:-4} SKIP=${SKIP:-8} MEAS=${MEAS:-7}
PHASE=$((SKIP + MEAS)) H=$W/lc.hint
. "$D/common.sh"
cleanup() { bench_end; }
trap cleanup EXIT
exec > >(tee "$OUT/log.txt") 2>&1
log "machine"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "tree $("$GPUCTL" version 2>&1 | head -1); ref ${REF:-none}"
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
G sched unload >/dev/null 2>&1
G sched watch || exit 1
export COLOC_SKIP_S=$SKIP
C="python3 $R/bench/lcbe/coloc.py"
mkfifo "$W/lc.in"
PROC_COMM=lcbert $C lc bert 5 <"$W/lc.in" >"$W/lc.out" 2>&1 & ALL="$ALL $!"
for i in $(seq "$NBE"); do PROC_COMM=becnn $C be "$W/b$i.log" >"$W/b$i.out" 2>&1 & ALL="$ALL $!"; done
exec 7>"$W/lc.in"
for f in lc $(for i in $(seq "$NBE"); do echo b$i; done); do
	for k in $(seq 900); do grep -q ready "$W/$f.out" 2>/dev/null && break; sleep 0.1; done; done
BEP=$(for i in $(seq "$NBE"); do sed -n 's/^be ready pid=//p' "$W/b$i.out"; done | tr '\n' ' ')
echo "BE: $BEP"
log "started"
phase() {	# phase ROUND LABEL BE(1/0) LC(1/0) [BIN ARGS...]
	local r=$1 label=$2 be=$3 lc=$4 run="" n t0 t1 hintarg=""
	shift 4
	if [ "$be" = 1 ]; then kill -CONT $BEP; else kill -STOP $BEP; fi
	if [ $# -gt 0 ]; then
		"$@" >"$W/run_$label.out" 2>"$W/run_$label.err" & run=$!
		for k in $(seq 200); do grep -q active "$W/run_$label.err" && break; sleep 0.05; done
		hintarg=" $H"
	fi
	sleep 1
	if [ "$lc" = 0 ]; then
		t0=$(mono); sleep "$PHASE"; t1=$(mono)
		echo "P $r $label be=b lc - t0=$(python3 -c "print('%.3f' % ($t0 + $SKIP))") t1=$t1" >>"$OUT/phases.txt"
	else
		n=$(grep -c "^lc " "$W/lc.out")
		echo "run $label $PHASE$hintarg" >&7
		for k in $(seq $(((PHASE + 30) * 10))); do [ "$(grep -c "^lc " "$W/lc.out")" -gt "$n" ] && break; sleep 0.1; done
		echo "P $r $label be=$([ "$be" = 1 ] && echo b || echo -) $(grep "^lc " "$W/lc.out" | tail -1)" | tee -a "$OUT/phases.txt"
	fi
	if [ -n "$run" ]; then
		G sched status >"$OUT/status_${label}_$r.txt" 2>&1
		kill -INT $run; wait $run
		grep -E "^(policy|hint gate|warning)" "$W/run_$label.out" | sed 's/^/   run: /'
	fi
}
LCB="lc-be lc comm:lcbert hint $H be-off channels"
for r in $(seq "$ROUNDS"); do
	log "round $r"
	phase "$r" alone 0 1
	if [ "$r" = 1 ]; then
		a=$(sed -n 's/.*p99_us=\([0-9]*\).*/\1/p' "$OUT/phases.txt" | tail -1)
		T12=$((a * 12 / 10)) T20=$((a * 2))
		echo "targets from LC alone's P99 $a us: 1.2x $T12 us, 2x $T20 us"
	fi
	list="be_alone|1|0|
none|1|1|
hint|1|1|$GPUCTL sched run $LCB
p99_12|1|1|$GPUCTL sched run $LCB lc-p99 ${T12}us
p99_20|1|1|$GPUCTL sched run $LCB lc-p99 ${T20}us"
	[ -n "$REF" ] && list="$list
hint_ref|1|1|$REF sched run $LCB"
	# PHASES: only these (besides LC alone), e.g. "be_alone hint hint_ref" for the gate's A/B
	[ -n "${PHASES:-}" ] && list=$(echo "$list" | grep -E "^(${PHASES// /|})\|")
	list=$(echo "$list" | awk -v k=$((r - 1)) '{a[NR]=$0} END {for (i = 0; i < NR; i++) print a[(i + k) % NR + 1]}')
	while IFS='|' read -r label be lc cmd; do
		# shellcheck disable=SC2086
		phase "$r" "$label" "$be" "$lc" $cmd
	done <<<"$list"
done
kill -CONT $BEP
exec 7>&-
log "summary"
python3 "$D/coloc_mps_sum.py" "$OUT/phases.txt" "$W" | tee "$OUT/summary.txt"
grep -h "LC P99 target\|warning: target" "$OUT"/status_p99_* | sed 's/^/  /'
log end
