#!/bin/sh
# gpuctl sched run lc-be ... hint FILE on the model's RM device: the BE TSGs
# go off their runlist (GPFIFO_SCHEDULE, through each owner's borrowed file)
# while the hint page says an LC request is in flight, and back on after;
# hint-hold bounds it; hint-min-off bounds how often a flapping writer
# switches BE (RM calls counted in parameters/rm_schedule_calls); SIGINT,
# SIGKILL of the run (watchdog), SIGKILL of run and watchdog (next stop),
# and a BE killed while off all leave nothing off.
# The model counts the TSGs off their runlist in parameters/rm_tsgs_off.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR
P=/sys/module/${MODEL_NAME:-uvm_model}/parameters
H=$W/lc.hint

if [ ! -r $P/rm_tsgs_off ]; then
	fail "model" "$P/rm_tsgs_off missing (model without GPFIFO_SCHEDULE?)"
	summary
fi
off() { cat $P/rm_tsgs_off; }
# busy N: what an LC process's gpuctl_hint_begin/end leave in the futex word
busy() { printf "\\$(printf %03o "$1")\\000\\000\\000" | dd of="$H" bs=1 seek=8 conv=notrunc 2>/dev/null; }
# wait_off N: rm_tsgs_off reaches N within 3 s
wait_off() {
	i=0
	while [ "$(off)" != "$1" ] && [ $i -lt 60 ]; do i=$((i + 1)); sleep 0.05; done
	[ "$(off)" = "$1" ]
}
start_run() {	# start_run ARGS...: sched run lc-be in the background, RUN its pid
	rm -f "$W/run.out" "$W/run.err"	# else a grep before the & child truncates them finds the last run's "active"
	"$GPUCTL" sched run lc-be lc comm:lc1 hint "$H" "$@" >"$W/run.out" 2>"$W/run.err" &
	RUN=$!
	i=0
	while ! grep -q "active" "$W/run.err" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
	done
	sleep 0.3
}
watchdog_pid() { grep -l '^gpuctl-watchdog$' /proc/[0-9]*/comm 2>/dev/null | head -1 | cut -d/ -f3; }

# --- bad input: exit 2, nothing created ---------------------------------------
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 hint /nonexistent/dir/f
expect_stderr_line "hint in a missing directory"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 hint "$H" hint-hold x
expect_stderr_line "bad hint-hold"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 hint-hold 5
expect_stderr_line "hint-hold without hint"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 hint "$H" hint-mode 999
expect_stderr_line "bad hint-mode"
expect_exit 2 "$GPUCTL" sched run fixed timeslice 100 hint "$H"
expect_stderr_line "hint is lc-be's"
[ -e "$H" ] && fail "bad input" "hint file created" || ok "bad input creates no hint file"

# --- the gate ------------------------------------------------------------------
expect_exit 0 "$GPUCTL" sched watch
mkdir "$W/adir"; ln -s "$W/elsewhere" "$W/alink"
expect_exit 1 "$GPUCTL" sched run lc-be lc comm:lc1 hint "$W/adir"
expect_stderr_line "hint FILE a directory: exit 1"
expect_exit 1 "$GPUCTL" sched run lc-be lc comm:lc1 hint "$W/alink"
expect_stderr_line "hint FILE a symlink: exit 1"
[ -e "$W/elsewhere" ] && fail "symlink" "followed" || ok "symlink not followed"
expect_exit 0 "$GPUCTL" sched status
expect_out "refused run left no policy process" "no policy process"
start_client be1 -n 2; BE1=$CPID
start_client be2 -n 2; BE2=$CPID
start_client lc1 -n 1; LC1=$CPID
start_run hint-hold 0 be-stall 600000 be-off schedule
[ -f "$H" ] && ok "hint file created" || fail "hint file" "missing; $(cat $W/run.err)"
case $(stat -c %a "$H" 2>/dev/null) in 600) ok "hint file mode 0600 by default (hint-mode widens it)" ;;
*) fail "hint mode" "$(stat -c %a "$H")" ;; esac
[ "$(off)" = 0 ] && ok "LC idle: every TSG on its runlist" || fail "idle" "$(off) off"
busy 1
wait_off 4 && ok "LC busy: the 4 BE TSGs off, the LC TSG on" || fail "busy" "$(off) off"
start_client be3 -n 1; BE3=$CPID
wait_off 5 && ok "a BE TSG created while LC is busy goes off too" || fail "new BE" "$(off) off"
busy 0
wait_off 0 && ok "LC idle again: all back on" || fail "idle again" "$(off) off"
busy 1; wait_off 5
kill -9 $BE1; wait $BE1 2>/dev/null
wait_off 3 && ok "a BE killed while off: its client freed (gate let its file go)" || fail "BE killed" "$(off) off"
busy 0; wait_off 0
busy 1; wait_off 3
kill -INT $RUN; wait $RUN; rc=$?
[ $rc = 0 ] && ok "SIGINT: run exits 0" || fail "SIGINT rc" "$rc"
[ "$(off)" = 0 ] && ok "SIGINT while off: all back on" || fail "SIGINT restore" "$(off) off"
grep -q "^hint gate: BE off [0-9]* times, [0-9]* switches" "$W/run.out" && ok "stop line reports the gate" || fail "gate line" "$(cat $W/run.out)"
grep -q "the LC turned busy [0-9]* times as the gate saw it (the hint file's writers report [0-9]* requests: not checked)" "$W/run.out" &&
	ok "stop line: the writers' request count said to be theirs" || fail "requests line" "$(cat $W/run.out)"
[ -e "$H" ] && fail "hint file" "left behind" || ok "hint file removed"

# --- a writer flipping the hint every 1 ms: hint-min-off bounds the RM calls ------
# 3 BE TSGs (be2: 2, be3: 1); each switch of BE is one GPFIFO_SCHEDULE per TSG.
HP=tests/tools/hintpoke
calls() { cat $P/rm_schedule_calls; }
flap() {	# flap SECONDS: a writer flipping busy every 1 ms (futex wakes); CALLS: RM calls meanwhile
	c0=$(calls)
	$HP toggle "$H" 1 1 "$1"
	CALLS=$(( $(calls) - c0 ))
}
start_run hint-hold 0 be-stall 600000 be-off schedule hint-min-off 20
flap 2
echo "# hint-min-off 20: $CALLS GPFIFO_SCHEDULE calls in 2 s"
[ "$CALLS" -gt 0 ] && [ "$CALLS" -le 660 ] &&
	ok "flapping writer, hint-min-off 20: $CALLS RM calls in 2 s (at most 3 TSGs x 2 x 50/s x 2 s = 600)" ||
	fail "min-off 20" "$CALLS calls: $(cat $W/run.err)"
wait_off 0 || fail "after flapping" "$(off) off"
busy 1
wait_off 3 && ok "after the flapping, the LC's request takes BE off" || fail "busy after flap" "$(off) off"
busy 0
i=0	# the share file is written every second: poll it (3 s at most)
while :; do
	case $("$GPUCTL" -j sched status 2>/dev/null) in
	*'"hint_gate":{"min_off_ms":20,"switches":'[1-9]*'"suppressed":'[1-9]*) break ;; esac
	i=$((i + 1)); [ $i -gt 30 ] && break; sleep 0.1
done
expect_exit 0 "$GPUCTL" -j sched status
case $OUT in *'"hint_gate":{"min_off_ms":20,"switches":'[1-9]*'"suppressed":'[1-9]*) ok "status -j: the gate's switches and the ones saved" ;;
	*) fail "status hint_gate" "$OUT" ;; esac
expect_exit 0 "$GPUCTL" sched status
expect_out "status: the writers' count is theirs" "hint file's writers report [0-9]* requests: not checked"
# the LC's latencies, as libgpuctl-hint.so adds them: 980 at 5 ms, 20 at 40 ms (P99
# in the 40 ms bucket, [36.9, 41.0) ms; P50 in 5 ms's, [4.6, 5.1) ms); the ledger's
# next second shows them (status polled for 3 s)
$HP lat "$H" 5000 980 40000 20 || fail "hintpoke lat" "no histogram in $H"
want="LC latency, last second \\(the hint library's report\\): 1000 requests, P50 (4\\.[6-9]|5\\.[01])[0-9]* ms, P99 (3[7-9]|40)\\.[0-9]* ms, max 4[01]\\.[0-9]* ms"
i=0
while [ $i -lt 30 ]; do
	"$GPUCTL" sched status >"$W/st" 2>&1
	grep -Eq -- "$want" "$W/st" && break
	i=$((i + 1)); sleep 0.1
done
grep -Eq -- "$want" "$W/st" && ok "status: the LC's P50 and P99 from the library's histogram" \
	|| fail "status latency" "$(grep 'LC latency' "$W/st")"
i=0	# the next second's window has nothing new (3 s at most)
while :; do
	"$GPUCTL" -j sched status >"$W/st" 2>&1
	grep -q '"timed":0[,}]' "$W/st" && break
	i=$((i + 1)); [ $i -gt 30 ] && break; sleep 0.1
done
expect_exit 0 "$GPUCTL" -j sched status
expect_json_eq "status -j: the last second's window, nothing new" .be_floor.hint_gate.lc_latency_last_second.timed 0
kill -INT $RUN; wait $RUN
start_run hint-hold 0 be-stall 600000 be-off schedule
flap 2
echo "# hint-min-off default (5): $CALLS GPFIFO_SCHEDULE calls in 2 s"
[ "$CALLS" -gt 0 ] && [ "$CALLS" -le 2640 ] &&
	ok "flapping writer, default hint-min-off 5: $CALLS RM calls in 2 s (at most 2400)" ||
	fail "min-off default" "$CALLS calls"
kill -INT $RUN; wait $RUN
start_run hint-hold 0 be-stall 600000 be-off schedule hint-min-off 0
flap 2
echo "# hint-min-off 0 (no bound): $CALLS GPFIFO_SCHEDULE calls in 2 s"
kill -INT $RUN; wait $RUN
wait_off 0 || fail "flap runs" "$(off) off"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 hint "$H" hint-min-off 5000
expect_stderr_line "hint-min-off over its maximum"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 hint-min-off 5
expect_stderr_line "hint-min-off without hint"

# --- hint-hold: a request held too long puts BE back on --------------------------
start_run hint-hold 1500 be-stall 600000 be-off schedule
busy 1
wait_off 3 && ok "hold: off at first" || fail "hold first" "$(off) off"
sleep 1	# the hold is 1.5 s: back on within 3 s after this
wait_off 0 && ok "hint-hold 1500: back on while the request lasts" || fail "hold" "$(off) off"
busy 0; sleep 0.5; busy 1
wait_off 3 && ok "next request: off again" || fail "hold next" "$(off) off"
busy 0; wait_off 0
kill -INT $RUN; wait $RUN
start_run hint-hold 0 be-stall 600000 be-off schedule

# --- SIGKILL of the run: the watchdog restores -----------------------------------
busy 1; wait_off 3
WD=$(watchdog_pid)
[ -n "$WD" ] && ok "watchdog process runs" || fail "watchdog" "none"
kill -9 $RUN; wait $RUN 2>/dev/null
wait_off 0 && ok "kill -9 of the run while off: watchdog put BE back on" || fail "kill -9" "$(off) off"
i=0
while [ -n "$(watchdog_pid)" ] && [ $i -lt 30 ]; do i=$((i + 1)); sleep 0.1; done
[ -z "$(watchdog_pid)" ] && ok "watchdog gone after it restored" || fail "watchdog" "still there"
expect_exit 0 "$GPUCTL" sched status
expect_out "status: no policy process" "no policy process"
expect_out "status: the watchdog deactivated the killed run's policy" "policy inactive"

# --- SIGKILL of run and watchdog: the next stop restores ---------------------------
start_run hint-hold 0 be-stall 600000 be-off schedule
busy 1; wait_off 3 || fail "second run" "$(off) off: $(cat $W/run.err)"
WD=$(watchdog_pid)
kill -9 $WD $RUN; wait $RUN 2>/dev/null
sleep 0.3
[ "$(off)" = 3 ] && ok "both killed: BE stays off (documented)" || fail "both killed" "$(off) off, wd $WD: $(cat $W/run.err)"
expect_exit 0 "$GPUCTL" sched stop
[ "$(off)" = 0 ] && ok "sched stop after both were killed: BE back on" || fail "stop restore" "$(off) off"
busy 0

# --- be-rotate: one BE process on the runlist at a time (be2: 2 TSGs, be3: 1) ---
"$GPUCTL" sched run lc-be lc comm:lc1 be-rotate 400 be-stall 600000 be-off schedule >"$W/rot.out" 2>"$W/rot.err" &
RUN=$!
sleep 1
seen=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do seen="$seen $(off)"; sleep 0.1; done
case " $seen " in *" 0 "*|*" 3 "*) fail "be-rotate" "states seen:$seen" ;;
*" 1 "*" 2 "*|*" 2 "*" 1 "*) ok "be-rotate: always one BE process on, turns pass (off:$seen)" ;;
*) fail "be-rotate turns" "states seen:$seen" ;; esac
kill -INT $RUN; wait $RUN
[ "$(off)" = 0 ] && ok "be-rotate stopped: all back on" || fail "rotate stop" "$(off) off"
grep -q "^be-rotate: [1-9][0-9]* turns" "$W/rot.out" && ok "be-rotate reports its turns" || fail "rotate line" "$(cat $W/rot.out)"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 be-rotate 0
expect_stderr_line "be-rotate 0"

# --- be-off channels: FIFO_DISABLE_CHANNELS on the BE TSGs' channels (2 each) ---
choff() { cat $P/rm_channels_off; }
wait_ch() {
	i=0
	while [ "$(choff)" != "$1" ] && [ $i -lt 60 ]; do i=$((i + 1)); sleep 0.05; done
	[ "$(choff)" = "$1" ]
}
start_run hint-hold 0 be-stall 600000
busy 1
wait_ch 6 && ok "be-off channels (the default): the 3 BE TSGs' 6 channels disabled" || fail "channels" "$(choff) channels off, $(cat $W/run.err)"
[ "$(off)" = 0 ] && ok "be-off channels: no GPFIFO_SCHEDULE" || fail "channels sched" "$(off)"
busy 0
wait_ch 0 && ok "be-off channels: enabled again when LC is idle" || fail "channels on" "$(choff)"
busy 1; wait_ch 6
kill -9 $RUN; wait $RUN 2>/dev/null
wait_ch 0 && ok "be-off channels, kill -9: the watchdog enabled them" || fail "channels kill" "$(choff)"
start_run hint-hold 0 be-stall 600000 be-off channels
busy 1; wait_ch 6
kill -9 $(watchdog_pid) $RUN; wait $RUN 2>/dev/null
sleep 0.3
expect_exit 0 "$GPUCTL" sched stop
[ "$(choff)" = 0 ] && ok "be-off channels, both killed: sched stop enabled them" || fail "channels stop" "$(choff)"
busy 0
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 hint "$H" be-off sometimes
expect_stderr_line "bad be-off"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 be-off channels
expect_stderr_line "be-off without hint or be-rotate"

# --- ownership: GPFIFO_SCHEDULE through a fresh open is refused ------------------------
CL=$(sed -n 's/^ready .*client=0x\([0-9a-f]*\).*/\1/p' $W/be2.out)
TS=$(sed -n 's/^ready .*tsgs=0x\([0-9a-f]*\).*/\1/p' $W/be2.out)
r=$("$RMC" -p "$CL:$TS" -s)
[ "$r" = "status 0x23" ] && ok "GPFIFO_SCHEDULE from a fresh open: NV_ERR_INVALID_CLIENT" || fail "ownership" "$r"

kill $BE2 $BE3 $LC1 2>/dev/null; wait 2>/dev/null
"$GPUCTL" sched unload >/dev/null 2>&1
summary
