#!/bin/bash
# bench/sched_h200.sh - gpuctl sched on a real NVIDIA GPU (stock driver):
# functional checks against real CUDA processes, then the LC/BE benchmark
# (LC alone, 2 LC + 4 BE with the driver's defaults, the same with
# `gpuctl sched run lc-be`), all in one run.  Root; writes to $OUT.
#
# Needs: nvcc; gpuctl at $GPUCTL_DIR/gpuctl with its libraries and loader in
# $GPUCTL_DIR/lib (or GPUCTL=gpuctl on a system with gpuctl installed);
# tests/model/rmclient-like probe at $GPUCTL_DIR/rmclient (optional).
# Knobs: DUR (LC seconds, 10), LC_US (LC kernel, 50), LC_GAP (us between LC
# kernels, 1000), BE_MS (BE kernel, 20), NBE (4), NLC (2), BE_TS (200).
set -u
OUT=${OUT:-/tmp/sched-h200}
mkdir -p "$OUT"
H=${GPUCTL_DIR:-build/h200}
if [ -z "${GPUCTL:-}" ]; then
	# gpuctl with its own loader and libraries; exec keeps one process (signals reach it)
	GPUCTL=/tmp/gpuctl-wrap
	printf '#!/bin/sh\nexec %s/lib/ld-linux-x86-64.so.2 --library-path %s/lib %s/gpuctl "$@"\n' \
		"$(realpath "$H")" "$(realpath "$H")" "$(realpath "$H")" >"$GPUCTL"
	chmod +x "$GPUCTL"
fi
G() { "$GPUCTL" "$@"; }
DUR=${DUR:-10} LC_US=${LC_US:-50} LC_GAP=${LC_GAP:-1000} BE_MS=${BE_MS:-20}
NBE=${NBE:-4} NLC=${NLC:-2} BE_TS=${BE_TS:-200}
log() { echo; echo "== $*"; }
jq1() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }

log "machine"
date -u +%FT%TZ; uname -r
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
nvcc --version | tail -1
nvcc -O2 -arch=sm_90 -o /tmp/lcbe tests/gpu/lcbe.cu || exit 1
cp /tmp/lcbe /tmp/lcbe_lc; cp /tmp/lcbe /tmp/lcbe_be

# bpffs: /sys/fs/bpf when the machine has it, else a private mount.
if ! grep -q " /sys/fs/bpf bpf " /proc/mounts; then
	if [ -d /sys/fs/bpf ]; then mount -t bpf bpf /sys/fs/bpf
	else mkdir -p /tmp/gpuctl-bpffs; mount -t bpf bpf /tmp/gpuctl-bpffs
		export GPUCTL_BPFFS=/tmp/gpuctl-bpffs; fi
fi
echo "bpffs: ${GPUCTL_BPFFS:-/sys/fs/bpf}"
G sched unload >/dev/null 2>&1
log "watch"; G sched watch
if [ "${FUNC:-1}" = 1 ]; then

log "functional: one CUDA process"
/tmp/lcbe_be be 30 20 >"$OUT/f_be.txt" 2>&1 &
BEP=$!
for i in $(seq 100); do grep -q ready "$OUT/f_be.txt" && break; sleep 0.1; done
G sched list
G -j sched list >"$OUT/list.json"
ID=$(jq1 '[t["id"] for t in j if t["pid"]=='$BEP'][0]' <"$OUT/list.json")
CL=$(jq1 '[t["client"] for t in j if t["id"]=='$ID'][0]' <"$OUT/list.json")
TS=$(jq1 '[t["tsg"] for t in j if t["id"]=='$ID'][0]' <"$OUT/list.json")
ORIG=$(jq1 '[t["timeslice_us"] for t in j if t["id"]=='$ID'][0]' <"$OUT/list.json")
ORIGL=$(jq1 '[t["interleave"] for t in j if t["id"]=='$ID'][0]' <"$OUT/list.json")
echo "TSG $ID client $CL tsg $TS timeslice $ORIG interleave $ORIGL"
log "set-timeslice / set-interleave / preempt"
G sched set-timeslice --tsg "$ID" 500; echo "rc=$?"
G sched set-interleave --tsg "$ID" high; echo "rc=$?"
G -j sched set-timeslice --pid "$BEP" 3000; echo "rc=$?"
G sched preempt --tsg "$ID" --wait --timeout 100000; echo "rc=$?"
G sched preempt --tsg "$ID"; echo "rc=$?"
G sched preempt --pid "$BEP" --wait; echo "rc=$?"
log "timeslice range RM accepts"
for v in 1 10 100 1000000 4294967295 4294967296 5000000000 1000000000000; do
	echo "-- $v"; G sched set-timeslice --tsg "$ID" "$v"; echo "rc=$?"
done
log "bad input"
G sched set-timeslice --tsg 99999 100; echo "rc=$?"
G sched set-timeslice --tsg "$ID" 0; echo "rc=$?"
[ -x "$H/rmclient" ] && { echo "fresh open of /dev/nvidiactl:"; "$H/rmclient" -d /dev/nvidiactl -p "${CL#0x}:${TS#0x}"; }
log "restore"
G sched set-timeslice --pid "$BEP" "$ORIG"; G sched set-interleave --pid "$BEP" "$ORIGL"
G sched list --pid "$BEP"
G -j sched list --pid "$BEP"
kill "$BEP"; wait "$BEP" 2>/dev/null; sleep 0.5
G sched set-timeslice --pid "$BEP" 100; echo "process gone: rc=$?"
G sched status
fi

bench() {	# bench LABEL NBE: NLC LC processes against NBE BE processes
	local label=$1 nbe=$2 bepids="" lcpids=""
	for i in $(seq "$nbe"); do
		/tmp/lcbe_be be $((DUR + 8)) "$BE_MS" >"$OUT/${label}_be$i.txt" 2>&1 & bepids="$bepids $!"
	done
	[ "$nbe" -gt 0 ] && sleep 4
	for i in $(seq "$NLC"); do
		/tmp/lcbe_lc lc "$DUR" "$LC_US" "$LC_GAP" >"$OUT/${label}_lc$i.txt" 2>&1 & lcpids="$lcpids $!"
	done
	[ "$nbe" -gt 0 ] && sleep 3 && G sched list >"$OUT/${label}_list.txt" 2>&1
	wait $lcpids
	if [ -n "${RUN:-}" ]; then	# stop the policy while the BE processes still run
		kill -INT "$RUN"; wait "$RUN"; echo "run rc=$?"; RUN=
		echo "after the policy stopped (BE still running):"; G sched list
	fi
	wait $bepids
	echo "-- $label"; cat "$OUT/${label}"_*.txt | grep -v ready
}
[ "${SOLO:-1}" = 1 ] && { log "benchmark: LC alone"; bench solo 0; }
[ "${BASE:-1}" = 1 ] && { log "benchmark: defaults"; bench base "$NBE"; }
for bts in $BE_TS; do
	log "benchmark: gpuctl sched run lc-be lc comm:lcbe_lc be-timeslice $bts"
	"$GPUCTL" sched run lc-be lc comm:lcbe_lc be-timeslice "$bts" >"$OUT/run$bts.log" 2>&1 &
	RUN=$!
	sleep 1
	bench "lcbe$bts" "$NBE"
	for w in applied reapplied restored failed; do
		echo "$w: $(grep -c "^$w" "$OUT/run$bts.log")"
	done
	grep '^restored' "$OUT/run$bts.log" | head -3
	tail -1 "$OUT/run$bts.log"
done
G sched status
G sched unload
[ -n "${GPUCTL_BPFFS:-}" ] && umount "$GPUCTL_BPFFS"
echo done
