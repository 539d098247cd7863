#!/bin/bash
# bench/lcbe/coloc_rm.sh - coloc_gpu.sh's benchmark with rmctl.py applying the
# RM controls (for a GPU machine gpuctl cannot be carried to).  Configs: label|rmctl CONFIG.
set -u
D=$(dirname "$(readlink -f "$0")")
OUT=${OUT:-/tmp/coloc-out}; mkdir -p "$OUT"; W=${W:-/tmp/coloc-work}; rm -rf "$W"; mkdir -p "$W"
ROUNDS=${ROUNDS:-2} NBE=${NBE:-4} PHASE=${PHASE:-4}
CONFIGS=${CONFIGS:-"solo|
none|
old|lcts=1000000,bets=50,lcil=high,beil=low
floor|lcts=1800,bets=200,lcil=high,beil=low
floor50|lcts=450,bets=50,lcil=high,beil=low
rotold|lcts=1000000,bets=50,lcil=high,beil=low,rot=50
rot50|lcts=450,bets=50,lcil=high,beil=low,rot=50
rot200|lcts=450,bets=50,lcil=high,beil=low,rot=200"}
PIDS=""
cleanup() { for p in $PIDS; do kill -CONT $p 2>/dev/null; kill -9 $p 2>/dev/null; done; }
trap cleanup EXIT
exec > >(tee "$OUT/log.txt") 2>&1
echo "== $(date +%T) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
waitready() { for i in $(seq 600); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "not ready: $1"; }
BEP=""
for i in $(seq $NBE); do PROC_COMM=becnn python3 $D/coloc.py be $W/be$i.log >$W/be$i.out 2>&1 & BEP="$BEP $!"; done
PIDS="$BEP"
for k in bert mlp; do mkfifo $W/$k.in; per=5; [ $k = mlp ] && per=2
	PROC_COMM=lc$k python3 $D/coloc.py lc $k $per <$W/$k.in >$W/$k.out 2>&1 & PIDS="$PIDS $!"; done
exec 7>$W/bert.in 8>$W/mlp.in
for i in $(seq $NBE); do waitready $W/be$i.out; done; waitready $W/bert.out; waitready $W/mlp.out
echo "== $(date +%T) started"; sleep 2
phase() {
	local r=$1 kind=$2 label=$3 cfg=${4:-} run="" fd=7 n
	[ $kind = mlp ] && fd=8
	[ $label = solo ] && { kill -STOP $BEP; sleep 1.5; }
	if [ -n "$cfg" ]; then python3 $D/rmctl.py $cfg 120 >$W/rm_${kind}_${label}_$r.txt 2>&1 & run=$!
		for i in $(seq 100); do grep -q "^rmctl " $W/rm_${kind}_${label}_$r.txt && break; sleep 0.1; done; sleep 0.3; fi
	n=$(grep -c "^lc " $W/$kind.out)
	echo "run $label $PHASE" >&$fd
	for i in $(seq $(((PHASE + 30) * 10))); do [ "$(grep -c "^lc " $W/$kind.out)" -gt "$n" ] && break; sleep 0.1; done
	echo "R$r $(grep "^lc " $W/$kind.out | tail -1)"
	[ -n "$run" ] && { kill -TERM $run; wait $run; sed "s/^/   /" $W/rm_${kind}_${label}_$r.txt; }
	[ $label = solo ] && kill -CONT $BEP
	sleep 0.3
}
for r in $(seq $ROUNDS); do
	list=$CONFIGS; [ $((r % 2)) = 0 ] && list=$(echo "$CONFIGS" | tac)
	while IFS='|' read -r label cfg; do [ -z "$label" ] && continue
		for kind in bert mlp; do phase $r $kind $label "$cfg"; done; done <<<"$list"
done
exec 7>&- 8>&-
kill -CONT $BEP
python3 $D/coloc_sum.py $W $NBE | tee $OUT/summary.txt
