#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 23: a pid file names a process by pid, start time and boot id
# (cmd/lib/liveproc.c), on the host through the prefetch engines' registry
# (GPUCTL_RUN_DIR): `prefetch unload -p T` after the engine was killed with
# -9 and its pid reused by another program at once (often within the same
# clock tick: the start time alone would not tell) (a real reuse through
# /proc/sys/kernel/ns_last_pid, else the reuse simulated by a start time
# that is not the process's) signals nothing; a pid file of an earlier boot
# or in the old bare-pid format names nothing; a pid file that names a live
# process exactly gets it stopped.  sched-run.pid and --pid-file run in
# tests/vm/t_reliability_pids.sh.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; ok "skipped"; summary; }
export GPUCTL_RUN_DIR=$T/run
mkdir -p -m 755 "$GPUCTL_RUN_DIR/prefetch"
R=$GPUCTL_RUN_DIR/prefetch
BOOT=$(cat /proc/sys/kernel/random/boot_id)
starttime() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
exeid() { stat -L -c '%d:%i' "/proc/$1/exe"; }
ident() { echo "$1 $(starttime $1) $BOOT $(exeid $1)"; }	# what gpuctl writes
# the "engine": a program of its own (a copy of sleep); the reuser: sleep itself
cp "$(command -v sleep)" "$T/engine"
alive() { kill -0 "$1" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]; }

# --- a live engine, exactly named: stopped ----------------------------------------
"$T/engine" 300 >/dev/null 2>&1 &
Z=$!
ident $Z >"$R/701.pid"
expect_exit 0 "$G" prefetch unload -p 701
expect_err "exact pid file: the engine is stopped" "prefetch engine \\(pid $Z\\) of process 701 ended"
wait $Z 2>/dev/null
alive $Z && fail "exact pid file" "$Z still runs" || ok "exact pid file: the process got SIGTERM"

# --- the engine killed with -9, its pid reused ------------------------------------
"$T/engine" 300 >/dev/null 2>&1 &
X=$!
XI=$(ident $X)
kill -9 $X
wait $X 2>/dev/null
echo "$XI" >"$R/702.pid"
Y=
if [ -w /proc/sys/kernel/ns_last_pid ]; then
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		echo $((X - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null || break
		sleep 300 >/dev/null 2>&1 &
		Y=$!
		[ "$Y" = "$X" ] && break
		kill $Y; wait $Y 2>/dev/null; Y=
	done
fi
if [ -n "$Y" ]; then
	ok "pid $X reused by another process (ns_last_pid)"
else
	# the reuse simulated: a live process under that pid file, its start time not ours
	sleep 300 >/dev/null 2>&1 &
	Y=$!
	echo "$Y $(( $(starttime $Y) + 1 )) $BOOT $(exeid $Y)" >"$R/702.pid"
	ok "pid reuse simulated (no ns_last_pid): pid $Y, another start time"
fi
expect_exit 0 "$G" prefetch unload -p 702
expect_err "reused pid: no engine" "no prefetch engine on process 702"
alive $Y && ok "reused pid: the process that reused it was not signalled" ||
	fail "reused pid" "$Y was killed"
kill $Y 2>/dev/null; wait $Y 2>/dev/null

# --- another boot, the old format, garbage: nothing signalled ------------------------
sleep 300 >/dev/null 2>&1 &
V=$!
echo "$V $(starttime $V) 00000000-0000-0000-0000-000000000000 $(exeid $V)" >"$R/703.pid"
echo "$V" >"$R/704.pid"
printf '%s' "$(ident $V)" >"$R/705.pid"	# no newline: cut short
echo "$(ident $V) extra" >"$R/706.pid"
ln -s 701.pid "$R/707.pid"
ident $V >"$R/x"
echo "$V $(starttime $V) $BOOT 1:1" >"$R/708.pid"	# another program
ln -sf x "$R/707.pid"
for t in 703 704 705 706 707 708; do
	expect_exit 0 "$G" prefetch unload -p $t
done
alive $V && ok "another boot, bare pid (an earlier gpuctl), cut short, extra field, a symlink, another program: $V not signalled" ||
	fail "stale formats" "$V was killed"
expect_exit 0 "$G" -j prefetch show
expect_json_expr "show lists none of them" 'j["engines"] == [] if isinstance(j, dict) and "engines" in j else True'
kill $V 2>/dev/null; wait $V 2>/dev/null
summary
