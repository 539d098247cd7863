#!/bin/sh
# lc-be's floor and stall bound (issue 26) and its hint file under attack
# (issue 23 items 1-2), on the model's RM device: the LC timeslice is derived
# from be-floor; a floor the timeslices cannot keep is said; the hint keeps
# BE off at most be-stall at once and about half the time, whatever its
# writer does (held busy, toggled 95 ms / 2 ms by another user); the file
# truncated, cut in a loop or filled with garbage by another user neither
# kills the policy nor keeps BE off; sched status, its JSON and the exporter
# show each BE process's share and longest stall per GPU.
# The model counts the channels disabled in parameters/rm_channels_off.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR
P=/sys/module/${MODEL_NAME:-uvm_model}/parameters
HP=tests/tools/hintpoke
NOBODY=65534
as_nobody() { tests/tools/bpfpoke user $NOBODY "$@"; }
D=/tmp/sfloor.$$
mkdir -p $D && chmod 755 $D
H=$D/lc.hint
STALL=300		# be-stall in these tests (ms)
SLACK=250		# what a TCG guest adds to a measured stall (ms)

choff() { cat $P/rm_channels_off; }
start_run() {	# start_run ARGS...: sched run lc-be lc comm:lc1 ARGS in the background
	rm -f "$W/run.out" "$W/run.err"	# else a grep before the & child truncates them finds the last run's "active"
	"$GPUCTL" sched run lc-be lc comm:lc1 "$@" >"$W/run.out" 2>"$W/run.err" &
	RUN=$!
	i=0
	while ! grep -q "active" "$W/run.err" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
	done
	sleep 0.5
}
stop_run() { kill -INT $RUN; wait $RUN; RC=$?; }
# wait_line FILE ERE [LAST]: up to 10 s for a line of FILE to match ERE (LAST: the
# last line matching LAST must match ERE): the run re-applies on its next look
wait_line() {
	i=0
	while [ $i -lt 100 ]; do
		if [ -n "$3" ]; then
			grep -E -- "$3" "$1" 2>/dev/null | tail -1 | grep -Eq -- "$2" && return 0
		else
			grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		fi
		i=$((i + 1)); sleep 0.1
	done
	return 1
}
# status_until REGEX: sched status, again every 0.2 s (10 s at most) until a
# line matches REGEX: the gate writes its shares once a second, a loaded host later
status_until() {
	i=0
	while [ $i -lt 50 ]; do
		"$GPUCTL" sched status 2>/dev/null | grep -Eq -- "$1" && break
		i=$((i + 1)); sleep 0.2
	done
	expect_exit 0 "$GPUCTL" sched status
}
# sampled SECONDS: the BE channels sampled every 2 ms: "on_pct P longest_off_ms L ..."
sampled() { S=$($HP sample $P/rm_channels_off "$1"); }
s_on() { echo "$S" | cut -d' ' -f2; }
s_long() { echo "$S" | cut -d' ' -f4; }
bounded() {	# bounded NAME: the sample S kept BE's floor and stall bound
	if [ "$(s_long)" -le $((STALL + SLACK)) ] && [ "$(s_on)" -ge 25 ]; then
		ok "$1: BE held off at most $(s_long) ms at once, on $(s_on)% ($S)"
	else
		fail "$1" "be-stall $STALL ms, floor: on >= 25%; sampled: $S"
	fi
}

expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 be-floor 95
expect_stderr_line "be-floor over 90"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 be-stall 5
expect_stderr_line "be-stall under 10 ms"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 be-floor x
expect_stderr_line "bad be-floor"

expect_exit 0 "$GPUCTL" sched watch
start_client be1 -n 2; BE1=$CPID
start_client be2 -n 1; BE2=$CPID
start_client lc1 -n 1; LC1=$CPID

# --- the default: the LC timeslice leaves BE its floor -------------------------------
start_run lc comm:lc2
grep -q "BE keep 10% of each GPU, held off 100 ms at most, LC timeslice 1800 us" "$W/run.err" &&
	ok "default lc-be: floor 10%, LC timeslice derived (1800 us against BE 200)" ||
	fail "default floor" "$(cat $W/run.err)"
grep -q "lc1, lc): timeslice [0-9]* -> 1800 us" "$W/run.out" &&
	ok "the LC TSG gets 1800 us, not 1 s" || fail "LC timeslice" "$(cat $W/run.out)"
grep -q "warning" "$W/run.err" && fail "default warns" "$(cat $W/run.err)" || ok "default: no warning"
status_until "^  0 +$BE2 "
expect_out "status: the floor line" "^BE floor: 10% of each GPU for its BE processes, held off 100 ms at most"
expect_out "status: be1's row, kept" "^  0 +$BE1 +be1 +100.0 +[0-9.]+ +5.0 .* kept$"
expect_out "status: be2's row, kept" "^  0 +$BE2 +be2 .* kept$"
expect_exit 0 "$GPUCTL" -j sched status
expect_json "status JSON"
if command -v python3 >/dev/null 2>&1; then
	expect_json_expr "status JSON: per GPU, each BE's share and stall" \
		'len(j["be_floor"]["be"]) == 2 and all(b["gpu"] == 0 and b["floor_kept"] and "longest_stall_ms" in b for b in j["be_floor"]["be"])'
else
	expect_json_eq "status JSON: floor" ".be_floor.floor_pct" 10
	expect_json_eq "status JSON: a BE's GPU" ".be_floor.be[0].gpu" 0
	expect_json_eq "status JSON: kept" ".be_floor.be[1].floor_kept" true
fi
expect_exit 0 "$GPUCTL" exporter textfile --output $W/x.prom
grep -q "^gpuctl_sched_be_share_ratio{gpu=\"0\",pid=\"$BE1\",comm=\"be1\"[^}]*} 0.0[0-9]" $W/x.prom &&
	grep -q "^gpuctl_sched_be_longest_stall_seconds{gpu=\"0\",pid=\"$BE2\"" $W/x.prom &&
	grep -q "^gpuctl_sched_be_floor_kept{gpu=\"0\",pid=\"$BE2\",comm=\"be2\"[^}]*} 1" $W/x.prom &&
	ok "exporter: share, stall and kept per GPU and BE process" ||
	fail "exporter" "$(grep be_ $W/x.prom)"
# a second LC process on the GPU: the derived LC timeslice is divided between them
cp "$RMC" "$W/lc2"
"$W/lc2" -n 1 >"$W/lc2.out" 2>&1 &
LC2=$!
wait_line "$W/run.out" "lc1, lc\): timeslice [0-9]* -> 900 us" &&
	wait_line "$W/run.out" "lc2, lc\): timeslice [0-9]* -> 900 us" &&
	ok "two LC processes on the GPU: 900 us each (1800 / 2), re-applied to the first" ||
	fail "LC timeslice divided" "$(cat $W/run.out)"
rm -f /run/gpuctl/sched-share	# a share written after the second LC joined, not one from before
status_until "^  0 +$BE1 +be1 .* kept$"
expect_out "status: be1 still kept with two LC processes" "^  0 +$BE1 +be1 .* kept$"
kill $LC2; wait $LC2 2>/dev/null
wait_line "$W/run.out" "-> 1800 us" "lc1, lc\): timeslice" &&
	ok "the second LC gone: the first's 1800 us back" || fail "LC timeslice back" "$(cat $W/run.out)"
stop_run
[ $RC = 0 ] && ok "stopped" || fail "stop" "rc $RC"
grep -q "^BE floor: longest any BE process was held off: 0 ms" "$W/run.out" &&
	ok "stop line: BE never held off" || fail "stop line" "$(cat $W/run.out)"
[ -e /run/gpuctl/sched-share ] && fail "share file" "left behind" || ok "share file removed on stop"

# --- a floor the timeslices cannot keep is said --------------------------------------
start_run lc-timeslice 1000000
grep -q "warning: be-floor 10% cannot be kept: lc-timeslice 1000000 us against be-timeslice 200 us leaves BE 0.0% of a GPU" "$W/run.err" &&
	ok "lc-timeslice 1 s: run warns the floor cannot be kept" || fail "warn" "$(cat $W/run.err)"
status_until "^  0 +$BE1 .*NOT KEPT$"
expect_out "status: rows NOT KEPT" "^  0 +$BE1 .*NOT KEPT$"
expect_out "status: the warning" "^warning: be-floor 10% cannot be kept"
expect_out "status: the BE under its floor" "^warning: GPU 0: BE pid $BE1 \(be1\) keeps 0.0% of the GPU, under its floor of 5.0%"
stop_run
start_run be-floor 0
grep -q "warning: be-floor 0: no share is promised" "$W/run.err" &&
	ok "be-floor 0 is said" || fail "floor 0" "$(cat $W/run.err)"
stop_run

# --- no derived LC timeslice under 200 us (GATE_TS_PROGRESS_US): the LC would starve --
# (an H100 answered 0 LC requests in 40 s at the 116 us be-timeslice 50 be-floor 30 derived)
start_run be-timeslice 50 be-floor 30
grep -q "BE keep 30% of each GPU, held off 100 ms at most, LC timeslice 200 us /" "$W/run.err" &&
	ok "be-timeslice 50 be-floor 30: LC timeslice 200 us on the active line, not 116" ||
	fail "derived minimum" "$(cat $W/run.err)"
grep -q "lc1, lc): timeslice [0-9]* -> 200 us" "$W/run.out" &&
	ok "the LC TSG gets 200 us" || fail "LC TSG at the minimum" "$(cat $W/run.out)"
status_until "^BE floor: 30% "
expect_out "status: LC timeslice 200 us" "^BE floor: 30% .*\(LC timeslice 200 us, BE 50 us\)$"
expect_exit 0 "$GPUCTL" -j sched status
expect_json_eq "status JSON: lc_timeslice_us 200" ".be_floor.lc_timeslice_us" 200
stop_run
# raised to 200 us, the LC leaves BE less than its floor: said with the actual numbers
start_run be-timeslice 200 be-floor 90
grep -q "LC timeslice 200 us /" "$W/run.err" &&
	grep -q "warning: be-floor 90% cannot be kept: lc-timeslice 200 us against be-timeslice 200 us leaves BE 50.0% of a GPU while an LC is busy (an LC needs 200 us: be-timeslice 1800+)" "$W/run.err" &&
	ok "be-floor 90 raised to 200 us: the run says the floor cannot be kept" ||
	fail "raised floor warning" "$(cat $W/run.err)"
status_until "^warning: be-floor 90% "
expect_out "status: the raised floor's warning" "^warning: be-floor 90% cannot be kept: lc-timeslice 200 us against be-timeslice 200 us"
stop_run
# a derived 300 us divided between two LC processes: 200 us each, not 150
start_run lc comm:lc2 be-timeslice 200 be-floor 40
grep -q "LC timeslice 300 us /" "$W/run.err" && ok "be-timeslice 200 be-floor 40: 300 us derived" ||
	fail "300 derived" "$(cat $W/run.err)"
"$W/lc2" -n 1 >"$W/lc2.out" 2>&1 &
LC2=$!
wait_line "$W/run.out" "lc2, lc\): timeslice [0-9]* -> 200 us" &&
	wait_line "$W/run.out" "-> 200 us" "lc1, lc\): timeslice" &&
	! grep -q -- "-> 150 us" "$W/run.out" &&
	ok "two LC processes: 200 us each, not 150" || fail "divided under the minimum" "$(cat $W/run.out)"
kill $LC2; wait $LC2 2>/dev/null
stop_run
# an lc-timeslice given under it: kept as given, said on the run and in status
start_run lc-timeslice 100
grep -q "lc1, lc): timeslice [0-9]* -> 100 us" "$W/run.out" &&
	ok "lc-timeslice 100 given: kept at 100 us" || fail "given kept" "$(cat $W/run.out)"
[ "$(grep -c "warning: lc-timeslice 100 us is under what switching a TSG out costs (~200 us on an H100)" "$W/run.err")" = 1 ] &&
	ok "lc-timeslice 100 given: one warning line" || fail "given warned" "$(cat $W/run.err)"
status_until "^warning: lc-timeslice 100 us "
expect_out "status: the given LC timeslice's warning" "^warning: lc-timeslice 100 us is under what switching"
expect_exit 0 "$GPUCTL" -j sched status
if command -v python3 >/dev/null 2>&1; then
	expect_json_expr "status JSON: the given LC timeslice's warning" \
		'any(w.startswith("lc-timeslice 100 us is under") for w in j["be_floor"]["warnings"])'
else
	expect_json_eq "status JSON: lc_timeslice_us 100" ".be_floor.lc_timeslice_us" 100
fi
stop_run
# over it: derived as before
start_run be-timeslice 200 be-floor 30
grep -q "LC timeslice 466 us /" "$W/run.err" && ok "be-timeslice 200 be-floor 30: 466 us, unchanged" ||
	fail "466" "$(cat $W/run.err)"
grep -q "warning" "$W/run.err" && fail "466 warns" "$(cat $W/run.err)" || ok "466: no warning"
stop_run

# --- the hint held busy for ever: BE off at most be-stall, about half the time -------
start_run hint $H hint-mode 0666 be-stall $STALL
$HP busy $H 1
sampled 3
bounded "hint held busy"
expect_exit 0 "$GPUCTL" sched status
expect_out "status under a held hint: kept" "^  0 +$BE1 .* kept$"
$HP busy $H 0

# --- another user toggles it 95 ms busy / 2 ms idle ----------------------------------
as_nobody $HP toggle $H 95 2 3.5 &
TG=$!
sleep 0.2
sampled 3
wait $TG
bounded "nobody toggling 95/2 ms"
kill -0 $RUN 2>/dev/null && ok "policy alive after the toggling" || fail "toggling" "policy gone"

# --- another user truncates it, cuts it in a loop, fills it with garbage -------------
expect_exit 0 as_nobody $HP truncate $H
sleep 0.5
kill -0 $RUN 2>/dev/null && ok "truncated by nobody: the policy lives (no SIGBUS)" ||
	fail "truncate" "policy gone: $(tail -3 $W/run.err)"
[ "$(stat -c %s $H)" = 4096 ] && ok "the file made whole again" || fail "size" "$(stat -c %s $H)"
as_nobody $HP truncloop $H 2 >$W/tl.out &
TL=$!
sampled 2.2
wait $TL
kill -0 $RUN 2>/dev/null && ok "cut and regrown $(cat $W/tl.out | cut -d' ' -f2) times: the policy lives" ||
	fail "truncloop" "policy gone: $(tail -3 $W/run.err)"
bounded "during the truncation loop"
$HP busy $H 0
expect_exit 0 as_nobody $HP garbage $H
sleep 0.4
[ "$(choff)" = 0 ] && ok "garbage (busy 0xffffffff): no request seen, BE on" || fail "garbage" "$(choff) off"
[ "$(od -An -c -N4 $H | tr -d ' ')" = "hint" ] && ok "garbage: the header written again" ||
	fail "header" "$(od -An -c -N4 $H)"
expect_exit 0 as_nobody $HP busy $H 0x7fffffff
sleep 0.4
[ "$(choff)" = 0 ] && ok "an impossible count: ignored" || fail "huge" "$(choff) off"
$HP busy $H 0
stop_run
[ $RC = 0 ] && ok "policy stops cleanly after the attacks" || fail "stop" "rc $RC"
grep -q "^hint file: cut short [1-9][0-9]* times (made whole), garbage read [1-9][0-9]* times" "$W/run.out" &&
	ok "stop line counts the repairs and the garbage" || fail "repairs line" "$(cat $W/run.out)"
[ "$(choff)" = 0 ] && ok "all BE on after stop" || fail "after stop" "$(choff)"

# --- the default mode: only the policy's user may write the hint -----------------------
start_run hint $H
[ "$(stat -c %a $H)" = 600 ] && ok "hint file 0600 by default" || fail "mode" "$(stat -c %a $H)"
expect_exit 1 as_nobody $HP busy $H 1
stop_run

# --- be-rotate: each BE process comes back within be-stall ---------------------------
start_run be-rotate 5000 be-stall $STALL
sampled 2
expect_exit 0 "$GPUCTL" sched status
expect_out "be-rotate: both BE processes in the ledger" "^  0 +$BE2 +be2 "
expect_out "be-rotate: be1 in the ledger" "^  0 +$BE1 +be1 "
# rotation keeps one BE off at any time: judge each process by the ledger
expect_exit 0 "$GPUCTL" -j sched status
if command -v python3 >/dev/null 2>&1; then
	expect_json_expr "be-rotate 5000 with be-stall $STALL: turns cut to keep the bound" \
		"all(b['longest_off_ms'] <= $STALL + $SLACK for b in j['be_floor']['be'])"
else
	l=$(json_get ".be_floor.be[0].longest_off_ms" | cut -d. -f1)
	[ -n "$l" ] && [ "$l" -le $((STALL + SLACK)) ] && ok "be-rotate 5000: turns cut to keep the bound ($l ms)" ||
		fail "rotate bound" "$OUT"
fi
stop_run
grep -q "^be-rotate: [1-9][0-9]* turns" "$W/run.out" && ok "turns passed" || fail "turns" "$(cat $W/run.out)"

kill $BE1 $BE2 $LC1 2>/dev/null; wait 2>/dev/null
"$GPUCTL" sched unload >/dev/null 2>&1
rm -rf $D
summary
