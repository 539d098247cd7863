#!/bin/bash
# bench/lcbe/lcbe_gpu.sh - the LC/BE benchmark of issue 16 on a real NVIDIA
# GPU (stock driver), root.  LC: our CUDA lcbe (a 50 us 1-block kernel every
# ~1 ms) and PyTorch lc.py (8 fp16 Linear(1024), batch 1, every 2 ms); BE:
# NBE processes of lcbe be (20 ms kernels on every SM) or be.py (bf16 8192^3
# matmul loops).  Per round, interleaved: LC alone, the driver's defaults,
# each POLICY (gpuctl sched run ARGS).  One line per LC run (P50/P99/max)
# and per BE process (rate), then the safety checks (kill -9 of gpuctl run
# while BE is off; kill -9 of a BE while off).  Writes $OUT/log.txt.
#
# PyTorch processes name themselves (PROC_COMM): a renamed python3 would lose
# its virtualenv.  Needs: nvcc, python3 with torch (KINDS=cuda for none), gpuctl ($GPUCTL, or
# the bundle's run-gpuctl in $D), libgpuctl-hint.so (built here with cc, or $D/).
# Knobs: KINDS ("cuda torch"), ROUNDS (1), NBE (4), DUR_CUDA (6), DUR_TORCH (8),
# POLICIES (see below), SAFETY (1).
set -u
D=${D:-$(dirname "$(readlink -f "$0")")}
OUT=${OUT:-/tmp/lcbe-out}; mkdir -p "$OUT"
W=${W:-/tmp/lcbe-work}; rm -rf "$W"; mkdir -p "$W"
GPUCTL=${GPUCTL:-$D/run-gpuctl}
SRC=${SRC:-$D}		# lcbe.cu, gpuctl_hint.[ch], lc.py, be.py
KINDS=${KINDS:-cuda torch} ROUNDS=${ROUNDS:-1} NBE=${NBE:-4}
DUR_CUDA=${DUR_CUDA:-6} DUR_TORCH=${DUR_TORCH:-8} SAFETY=${SAFETY:-1}
H=$W/lc.hint
# label|gpuctl sched run ARGS ("" = no policy; LCCOMM is replaced by the LC's comm)
POLICIES=${POLICIES:-"lcbe50|lc-be lc comm:LCCOMM be-timeslice 50
hint|lc-be lc comm:LCCOMM hint $H be-off channels
hint50|lc-be lc comm:LCCOMM be-timeslice 50 hint $H be-off channels
rot50|lc-be lc comm:LCCOMM be-timeslice 50 be-rotate 50 be-off channels"}
G() { timeout 20 "$GPUCTL" "$@"; }
log() { echo "== $(date +%T) $*"; }
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; G sched stop >/dev/null 2>&1; G sched unload >/dev/null 2>&1; }
trap cleanup EXIT
exec > >(tee "$OUT/log.txt") 2>&1

log "machine"; nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
cp "$SRC/lcbe.cu" "$SRC/gpuctl_hint.c" "$SRC/gpuctl_hint.h" "$SRC/lc.py" "$SRC/be.py" "$W/"
(cd "$W" && timeout 120 nvcc -O2 -arch=sm_90 -I. -o lcbe lcbe.cu gpuctl_hint.c) || { echo "nvcc failed"; exit 1; }
cp "$W/lcbe" "$W/lcbe_lc"; cp "$W/lcbe" "$W/lcbe_be"
if ! { command -v cc >/dev/null && cc -O2 -shared -fPIC -I"$W" -o "$W/libgpuctl-hint.so" "$W/gpuctl_hint.c" -lpthread; }; then
	cp "$D/libgpuctl-hint.so" "$W/"; fi
export GPUCTL_HINT_LIB=$W/libgpuctl-hint.so
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
G sched unload >/dev/null 2>&1
G sched watch || exit 1

waitready() { for i in $(seq 300); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "not ready: $1"; }

one() {	# one KIND LABEL NBE [gpuctl run ARGS...]
	local kind=$1 label=$2 nbe=$3; shift 3
	local bepids="" run="" be lc lccomm dur
	if [ "$kind" = cuda ]; then dur=$DUR_CUDA; lccomm=lcbe_lc
		be="timeout $((dur + 60)) $W/lcbe_be be $((dur + 6)) 20"; lc="$W/lcbe_lc lc $dur 50 1000"
	else dur=$DUR_TORCH; lccomm=lcpy
		be="env PROC_COMM=bepy timeout $((dur + 60)) python3 $W/be.py $((dur + 8))"
		lc="env PROC_COMM=lcpy python3 $W/lc.py $dur 2"; fi
	for i in $(seq "$nbe"); do $be >"$W/${kind}_${label}_be$i.txt" 2>&1 & bepids="$bepids $!"; done
	PIDS="$PIDS $bepids"
	for i in $(seq "$nbe"); do waitready "$W/${kind}_${label}_be$i.txt"; done
	if [ $# -gt 0 ]; then
		"$GPUCTL" sched run "${@//LCCOMM/$lccomm}" >"$W/${kind}_${label}_run.txt" 2>&1 & run=$!
		for i in $(seq 100); do grep -q active "$W/${kind}_${label}_run.txt" && break; sleep 0.05; done
	fi
	[ "$kind" = torch ] && [ "$nbe" -gt 0 ] && sleep 2
	case " $* " in *" hint "*) export GPUCTL_HINT=$H;; esac
	timeout $((dur + 40)) $lc >"$W/${kind}_${label}_lc.txt" 2>&1
	unset GPUCTL_HINT
	[ -n "$run" ] && { kill -TERM $run; wait $run; }
	for p in $bepids; do wait $p; done
	printf '%-6s %-8s LC %s\n' "$kind" "$label" "$(grep -v ready "$W/${kind}_${label}_lc.txt" | tail -2 | tr '\n' ' ')"
	for i in $(seq "$nbe"); do printf '%-6s %-8s BE%d %s\n' "$kind" "$label" "$i" "$(grep -v ready "$W/${kind}_${label}_be$i.txt" | tail -1)"; done
	[ -n "$run" ] && grep -E "^(policy|hint gate)" "$W/${kind}_${label}_run.txt" | sed "s/^/$kind $label run: /"
	true
}

for r in $(seq "$ROUNDS"); do
	for kind in $KINDS; do
		log "round $r: $kind, $NBE BE"
		one "$kind" solo 0
		one "$kind" base "$NBE"
		while IFS='|' read -r label args; do
			[ -n "$label" ] && one "$kind" "$label" "$NBE" $args
		done <<<"$POLICIES"
	done
done

if [ "$SAFETY" = 1 ]; then
	log "safety: kill -9 of gpuctl run while BE is off"
	$W/lcbe_be be 12 20 >"$W/s_be1.txt" 2>&1 & S1=$!; $W/lcbe_be be 12 20 >"$W/s_be2.txt" 2>&1 & S2=$!
	PIDS="$PIDS $S1 $S2"; waitready "$W/s_be1.txt"; waitready "$W/s_be2.txt"
	"$GPUCTL" sched run lc-be lc comm:lcbe_lc hint "$H" hint-hold 0 >"$W/s_run.txt" 2>&1 & RUN=$!
	for i in $(seq 100); do grep -q active "$W/s_run.txt" && break; sleep 0.05; done
	GPUCTL_HINT=$H python3 -c 'import ctypes,os,time; l=ctypes.CDLL(os.environ["GPUCTL_HINT_LIB"]); l.gpuctl_hint_begin(); time.sleep(30)' & HOLDER=$!
	PIDS="$PIDS $HOLDER"; sleep 1
	echo "watchdog: $(grep -l '^gpuctl-watchdog$' /proc/[0-9]*/comm 2>/dev/null | cut -d/ -f3)"
	kill -9 $RUN; sleep 1; echo "gpuctl run killed; BE must run again"
	( sleep 40; kill -9 $S1 $S2 2>/dev/null ) & KW=$!
	wait $S1 $S2; kill $KW 2>/dev/null
	grep -h lcbe "$W/s_be1.txt" "$W/s_be2.txt"; echo "(BE 12 s each: they finished, not stuck)"
	kill $HOLDER 2>/dev/null
	G sched status | head -3
	log "safety: kill -9 of a BE while off (LC holding the hint)"
	$W/lcbe_be be 12 20 >"$W/s_be3.txt" 2>&1 & S3=$!; $W/lcbe_be be 12 20 >"$W/s_be4.txt" 2>&1 & S4=$!
	PIDS="$PIDS $S3 $S4"; waitready "$W/s_be3.txt"; waitready "$W/s_be4.txt"
	"$GPUCTL" sched run lc-be lc comm:python3 hint "$H" hint-hold 0 >"$W/s_run2.txt" 2>&1 & RUN=$!
	for i in $(seq 100); do grep -q active "$W/s_run2.txt" && break; sleep 0.05; done
	GPUCTL_HINT=$H python3 -c 'import ctypes,os,time; l=ctypes.CDLL(os.environ["GPUCTL_HINT_LIB"]); l.gpuctl_hint_begin(); time.sleep(30)' & HOLDER=$!
	PIDS="$PIDS $HOLDER"; sleep 1; kill -9 $S3; sleep 2
	timeout 20 $W/lcbe_lc lc 2 50 1000 | grep -v ready; echo "LC after the kill: rc=$?"
	kill $HOLDER 2>/dev/null; sleep 0.5
	kill -INT $RUN; wait $RUN; grep -E "^(policy|hint gate)" "$W/s_run2.txt"
	wait $S4; grep -h lcbe "$W/s_be4.txt"; echo "BE4 finished"
	nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
fi
G sched status | head -3
log done
