#!/bin/bash
# bench/lcbe/coloc_gpu.sh - issue 26's co-location benchmark on one NVIDIA GPU
# (stock driver, root): LC = a BERT-base-sized encoder (a request every 5 ms)
# or an 8-layer MLP (every 2 ms), BE = NBE CNN trainers (coloc.py).  The BE
# trainers and both LC servers start once; per round each configuration runs
# PHASE s for each LC: "solo" (BE stopped with SIGSTOP), "none" (no policy),
# then each gpuctl policy.  Rounds alternate their order.  Out: $OUT/log.txt,
# $OUT/summary.txt (medians), the status lines of each policy.
set -u
D=$(dirname "$(readlink -f "$0")")
OUT=${OUT:-/tmp/coloc-out}; mkdir -p "$OUT"
W=${W:-/tmp/coloc-work}; rm -rf "$W"; mkdir -p "$W"
GPUCTL=${GPUCTL:-gpuctl}
ROUNDS=${ROUNDS:-2} NBE=${NBE:-4} PHASE=${PHASE:-5}
H=$W/lc.hint
LCM="lc comm:lcbert lc comm:lcmlp"
CONFIGS=${CONFIGS:-"solo|
none|
old|lc-be $LCM lc-timeslice 1000000 be-timeslice 50 be-floor 0
floor|lc-be $LCM be-timeslice 50
rot|lc-be $LCM be-timeslice 50 be-rotate 50
floor5rot|lc-be $LCM be-timeslice 50 be-rotate 50 be-floor 5
hintrot|lc-be $LCM be-timeslice 50 be-rotate 50 hint $H hint-mode 0666"}
G() { timeout 20 "$GPUCTL" "$@"; }
log() { echo "== $(date +%T) $*"; }
PIDS=""
cleanup() { for p in $PIDS; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	G sched stop >/dev/null 2>&1; G sched unload >/dev/null 2>&1; }
trap cleanup EXIT
exec > >(tee "$OUT/log.txt") 2>&1

log "machine"; nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
G sched unload >/dev/null 2>&1
G sched watch || exit 1
waitready() { for i in $(seq 600); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "not ready: $1"; }
BEP=""
for i in $(seq "$NBE"); do
	PROC_COMM=becnn python3 "$D/coloc.py" be "$W/be$i.log" >"$W/be$i.out" 2>&1 & BEP="$BEP $!"
done
PIDS="$BEP"
for k in bert mlp; do
	mkfifo "$W/$k.in"
	per=5; [ $k = mlp ] && per=2
	PROC_COMM=lc$k python3 "$D/coloc.py" lc $k $per <"$W/$k.in" >"$W/$k.out" 2>&1 & PIDS="$PIDS $!"
done
exec 7>"$W/bert.in" 8>"$W/mlp.in"
for i in $(seq "$NBE"); do waitready "$W/be$i.out"; done
waitready "$W/bert.out"; waitready "$W/mlp.out"
log "all started: BE$BEP"; sleep 3

phase() {	# phase ROUND KIND LABEL [ARGS...]
	local r=$1 kind=$2 label=$3; shift 3
	local run="" fd=7 n hintarg=""
	[ $kind = mlp ] && fd=8
	[ $label = solo ] && { kill -STOP $BEP; sleep 1.5; }
	if [ $# -gt 0 ]; then
		"$GPUCTL" sched run "$@" >"$W/run_${kind}_${label}_$r.txt" 2>&1 & run=$!
		for i in $(seq 100); do grep -q active "$W/run_${kind}_${label}_$r.txt" && break; sleep 0.05; done
		sleep 0.5
		case " $* " in *" hint "*) hintarg=" $H";; esac
		( sleep $((PHASE - 1)); G sched status >"$OUT/status_${kind}_${label}_$r.txt" 2>&1 ) &
	fi
	n=$(grep -c "^lc " "$W/$kind.out")
	echo "run $label $PHASE$hintarg" >&$fd
	for i in $(seq $(((PHASE + 30) * 10))); do [ "$(grep -c "^lc " "$W/$kind.out")" -gt "$n" ] && break; sleep 0.1; done
	echo "R$r $(grep "^lc " "$W/$kind.out" | tail -1)"
	if [ -n "$run" ]; then kill -TERM $run; wait $run
		grep -E "^(policy|BE floor|be-rotate|hint|warning)|warning" "$W/run_${kind}_${label}_$r.txt" | sed "s/^/   run: /"; fi
	[ $label = solo ] && kill -CONT $BEP
	sleep 0.5
}

for r in $(seq "$ROUNDS"); do
	log "round $r"
	list=$(echo "$CONFIGS"); [ $((r % 2)) = 0 ] && list=$(echo "$CONFIGS" | tac)
	while IFS='|' read -r label args; do
		[ -z "$label" ] && continue
		for kind in bert mlp; do phase $r $kind $label $args; done
	done <<<"$list"
done
log "done; summary"
exec 7>&- 8>&-
for p in $BEP; do kill -CONT $p; done
python3 "$D/coloc_sum.py" "$W" "$NBE" | tee "$OUT/summary.txt"
G sched status | head -3
log end
