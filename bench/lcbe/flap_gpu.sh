#!/bin/bash
# bench/lcbe/flap_gpu.sh - the LC's latency under a flapping hint writer
# (issue 32 item 7) on a real NVIDIA GPU (stock driver), root.  PREPARED, NOT
# YET RUN: no result of it is in bench/results/ until someone runs it.
#
# LC: tests/gpu/lcbe.cu's lc (a KERNEL_US 1-block kernel every ~1 ms, each
# bracketed by gpuctl_hint_begin/end through $GPUCTL_HINT).  BE: NBE lcbe be
# (20 ms kernels on every SM).  The flapper: an unprivileged user (FLAP_USER)
# flipping the hint's busy word every FLAP_MS with futex wakes
# (tests/tools/hintpoke toggle), the file made writable by hint-mode 0666.
# Cases, per round, interleaved:
#   solo      LC alone
#   hint      BE + lc-be hint, no flapper (the LC's own requests)
#   flap0     + the flapper, hint-min-off 0 (no bound: the RM call storm)
#   flapdef   + the flapper, hint-min-off left at its default (5 ms)
#   flap20    + the flapper, hint-min-off 20
# One line per LC run (n, p50/p90/p99/max us), per BE (kernels/s), and the
# run's "hint gate:" line (switches, RM calls, switches saved, the LC's busy
# turns, the writers' count); the RM calls a second = calls / DUR.  What to
# look for: flapdef/flap20 keep the LC's P99 near "hint" and cut the calls a
# second to about NBE x 2 x 1000 / MIN_OFF at most (flap0: the storm).
# Writes $OUT/log.txt.
#
# Needs: nvcc, cc, gpuctl ($GPUCTL; default the bundle's run-gpuctl in $D,
# else the repo's ./gpuctl), the sources ($SRC: lcbe.cu, gpuctl_hint.[ch],
# hintpoke.c; default $D, else the repo's tests/gpu, hint, tests/tools).
# Knobs: ROUNDS (1), NBE (4), DUR (8 s), KERNEL_US (50), FLAP_MS (1),
# FLAP_USER (nobody), BE_OFF (channels), ARCH (sm_90).
set -u
D=${D:-$(dirname "$(readlink -f "$0")")}
R=$(readlink -f "$D/../..")
OUT=${OUT:-/tmp/lcbe-flap-out}; mkdir -p "$OUT"
W=${W:-/tmp/lcbe-flap-work}; rm -rf "$W"; mkdir -p "$W"; chmod 755 "$W"
if [ -z "${GPUCTL:-}" ]; then
	GPUCTL=$D/run-gpuctl; [ -x "$GPUCTL" ] || GPUCTL=$R/gpuctl
fi
ROUNDS=${ROUNDS:-1} NBE=${NBE:-4} DUR=${DUR:-8} KERNEL_US=${KERNEL_US:-50}
FLAP_MS=${FLAP_MS:-1} FLAP_USER=${FLAP_USER:-nobody} BE_OFF=${BE_OFF:-channels} ARCH=${ARCH:-sm_90}
H=$W/lc.hint
G() { timeout 20 "$GPUCTL" "$@"; }
log() { echo "== $(date +%T) $*"; }
src() {	# src NAME: the file from $SRC, $D or the repo
	for p in ${SRC:+"$SRC/$1"} "$D/$1" "$R/tests/gpu/$1" "$R/hint/$1" "$R/tests/tools/$1"; do
		[ -f "$p" ] && { echo "$p"; return 0; }
	done
	echo "missing source: $1" >&2; exit 1
}
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; G sched stop >/dev/null 2>&1; G sched unload >/dev/null 2>&1; }
trap cleanup EXIT
exec > >(tee "$OUT/log.txt") 2>&1

[ "$(id -u)" = 0 ] || { echo "run as root (sched run borrows the BE processes' files)"; exit 1; }
log "machine"; nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
"$GPUCTL" --version 2>/dev/null
for f in lcbe.cu gpuctl_hint.c gpuctl_hint.h hintpoke.c; do cp "$(src $f)" "$W/" || exit 1; done
(cd "$W" && timeout 120 nvcc -O2 -arch="$ARCH" -I. -o lcbe lcbe.cu gpuctl_hint.c) || { echo "nvcc failed"; exit 1; }
cc -std=gnu11 -O2 -o "$W/hintpoke" "$W/hintpoke.c" || { echo "cc hintpoke failed"; exit 1; }
chmod 755 "$W/hintpoke"
cp "$W/lcbe" "$W/lcbe_lc"; cp "$W/lcbe" "$W/lcbe_be"
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
G sched unload >/dev/null 2>&1
G sched watch || exit 1

waitready() { for i in $(seq 300); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "not ready: $1"; }

one() {	# one LABEL NBE FLAP [hint-min-off MS | -]: a case; FLAP 1: the flapper runs
	local label=$1 nbe=$2 flap=$3 minoff=${4:-} bepids="" run="" fl="" t0 t1
	for i in $(seq "$nbe"); do
		timeout $((DUR + 60)) "$W/lcbe_be" be $((DUR + 6)) 20 >"$W/${label}_be$i.txt" 2>&1 &
		bepids="$bepids $!"
	done
	PIDS="$PIDS $bepids"
	for i in $(seq "$nbe"); do waitready "$W/${label}_be$i.txt"; done
	if [ -n "$minoff" ]; then
		set -- lc-be lc comm:lcbe_lc hint "$H" hint-mode 0666 be-off "$BE_OFF"
		[ "$minoff" != - ] && set -- "$@" hint-min-off "$minoff"
		"$GPUCTL" sched run "$@" >"$W/${label}_run.txt" 2>&1 & run=$!
		for i in $(seq 100); do grep -q active "$W/${label}_run.txt" && break; sleep 0.05; done
		export GPUCTL_HINT=$H
	fi
	if [ "$flap" = 1 ]; then
		# another user, through hint-mode 0666: as any local user could
		setpriv --reuid="$FLAP_USER" --regid=nogroup --clear-groups \
			"$W/hintpoke" toggle "$H" "$FLAP_MS" "$FLAP_MS" $((DUR + 4)) >"$W/${label}_flap.txt" 2>&1 &
		fl=$!; PIDS="$PIDS $fl"; sleep 0.5
	fi
	t0=$(date +%s.%N)
	timeout $((DUR + 40)) "$W/lcbe_lc" lc "$DUR" "$KERNEL_US" 1000 >"$W/${label}_lc.txt" 2>&1
	t1=$(date +%s.%N)
	unset GPUCTL_HINT
	[ -n "$fl" ] && { kill "$fl" 2>/dev/null; wait "$fl" 2>/dev/null; }
	if [ -n "$run" ]; then
		G -j sched status >"$W/${label}_status.json" 2>&1
		kill -TERM $run; wait $run
	fi
	for p in $bepids; do wait $p; done
	printf '%-8s LC %s\n' "$label" "$(grep -v ready "$W/${label}_lc.txt" | tail -1)"
	for i in $(seq "$nbe"); do printf '%-8s BE%d %s\n' "$label" "$i" "$(grep -v ready "$W/${label}_be$i.txt" | tail -1)"; done
	if [ -n "$run" ]; then
		grep -E "^hint gate" "$W/${label}_run.txt" | sed "s/^/$label run: /"
		calls=$(sed -n 's/^hint gate: .* switches (\([0-9]*\) calls.*/\1/p' "$W/${label}_run.txt")
		[ -n "$calls" ] && awk -v c="$calls" -v a="$t0" -v b="$t1" -v l="$label" \
			'BEGIN { printf "%-8s RM calls a second (during the LC run and after): %.0f\n", l, c / (b - a) }'
		grep -o '"hint_gate":{[^}]*}' "$W/${label}_status.json" | sed "s/^/$label status: /"
	fi
	true
}

for r in $(seq "$ROUNDS"); do
	log "round $r: $NBE BE, flapper every $FLAP_MS ms as $FLAP_USER, be-off $BE_OFF"
	one solo 0 0
	one hint "$NBE" 0 -
	one flap0 "$NBE" 1 0
	one flapdef "$NBE" 1 -
	one flap20 "$NBE" 1 20
done
G sched status | head -3
log "done"
