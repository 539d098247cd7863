#!/bin/sh
# gpuctl sched run lc-be ... lc-p99 MS refused: the LC's P99 above the target
# with no BE process on its GPU (6 spans of 3 s in a row, before the target
# was met once) means no BE share can meet it: the run ends by itself with
# one Error line that gives the P99 measured, exit status 1, and everything
# put back as a stop does (the TSG values, the hint file, the ledger, the
# pid file; under mechanism mps its daemon quit and its state removed).
# Not refused: while a BE process runs beside the LC (a TSG client, or an
# MPS client of the run's daemon, which the gate leaves alone), and once the
# target was met.  Under --detach the line goes to /run/gpuctl/sched-run.log
# (the detached process's stderr, its pid first), and sched status shows it
# while no policy process runs.  On the model's RM device, the LC's latencies fed as
# libgpuctl-hint.so adds them (tests/tools/hintpoke lat).
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR
H=$W/lc.hint
HP=tests/tools/hintpoke
STANDIN=$(pwd)/tests/tools/mps
PIPE=/run/gpuctl/mps/pipe
[ -x "$STANDIN/nvidia-cuda-mps-control" ] || { fail "stand-in" "$STANDIN missing (make -C tests/tools)"; summary; }
export PATH="$STANDIN:$PATH"
# the model answers GET_INTERLEAVE_LEVEL: the levels put back can be read
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/rm_get_interleave

start_run() {	# start_run [-j] ARGS...: sched run lc-be in the background, RUN its pid
	rm -f "$W/run.out" "$W/run.err"
	if [ "$1" = -j ]; then
		shift
		"$GPUCTL" -j sched run lc-be lc comm:lc1 hint "$H" "$@" >"$W/run.out" 2>"$W/run.err" &
		UP='"event":"applied"'; UPF=$W/run.out	# -j says nothing on stderr: its first event
	else
		"$GPUCTL" sched run lc-be lc comm:lc1 hint "$H" "$@" >"$W/run.out" 2>"$W/run.err" &
		UP=active; UPF=$W/run.err
	fi
	RUN=$!
	i=0
	while ! grep -q "$UP" "$UPF" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05
		kill -0 $RUN 2>/dev/null || break
	done
	sleep 0.3
}
# feed US SECONDS: 100 requests of US a second, as the library adds them, while the run lives;
# FED: the seconds fed
feed() {
	FED=0
	while [ $FED -lt "$2" ] && kill -0 $RUN 2>/dev/null; do
		"$HP" lat "$H" "$1" 100 2>/dev/null || break
		sleep 1; FED=$((FED + 1))
	done
}
alive() { kill -0 $RUN 2>/dev/null && ok "$1" || fail "$1" "the run ended: $(cat "$W/run.err")"; }
ended() {	# ended NAME RC: the run ended by itself (15 s more fed at most) with RC
	feed 20000 15
	# a refused run ends as a stop does (its hint file goes first, which ends the
	# feed): 10 s for the rest (under ASan an MPS daemon's quit takes seconds)
	i=0; while kill -0 $RUN 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
	if kill -0 $RUN 2>/dev/null; then
		fail "$1" "still running after $FED s more: $(grep -i 'target' "$W/run.err")"
		kill -INT $RUN; wait $RUN; return 1
	fi
	wait $RUN; rc=$?
	[ $rc = "$2" ] && ok "$1 (exit $rc)" || fail "$1" "exit status $rc, not $2: $(cat "$W/run.err")"
}
stop_run() { kill -INT $RUN 2>/dev/null; wait $RUN; rc=$?; [ $rc = 0 ] && ok "$1" || fail "$1" "exit $rc"; }
nothing_left() {	# nothing_left WHAT: no pid file, ledger, hint file; no policy runs
	for f in /run/gpuctl/sched-run.pid /run/gpuctl/sched-share "$H"; do
		[ -e "$f" ] && fail "$1: nothing left" "$f is there" || ok "$1: no $f"
	done
	expect_exit 0 "$GPUCTL" -j sched status
	expect_json_eq "$1: status -j: no policy process" .policy_pid 0
	expect_json_eq "$1: status -j: the watcher's policy inactive" .policy_active false
	case $OUT in *lc_p99*|*be_floor*) fail "$1: status -j: no ledger" "$OUT" ;; *) ok "$1: status -j: no ledger" ;; esac
}
lc_back() {	# lc_back WHAT: the LC's TSG at RM's values again (1024 us, medium)
	expect_exit 0 "$GPUCTL" -j sched list --pid "$LC1"
	expect_json_eq "$1: the LC's timeslice back" '[0].timeslice_us' 1024
	expect_json_eq "$1: the LC's level back" '[0].interleave' medium
}

expect_exit 0 "$GPUCTL" sched watch
start_client be1 -n 1; BE1=$CPID
start_client lc1 -n 1; LC1=$CPID

# --- a BE process beside the LC: a miss stays a miss; BE gone: refused ------------------
start_run lc-p99 10ms
feed 20000 10
alive "BE beside the LC, 10 s above the target: not refused"
expect_exit 0 "$GPUCTL" sched status
expect_out "... the target said NOT KEPT, as before" "LC P99 target 10\.00 ms: last 3 s (1[89]|2[0-9])\.[0-9]* ms, NOT KEPT"
kill $BE1; wait $BE1 2>/dev/null
feed 20000 5
alive "BE gone: 5 s alone do not decide (6 spans, each all alone)"
ended "the LC alone above the target: refused" 1
e=$(grep -c '^Error: ' "$W/run.err")
[ "$e" = 1 ] && ok "one Error line" || fail "one Error line" "$e in: $(cat "$W/run.err")"
L=$(grep '^Error: ' "$W/run.err")
case $L in
"Error: lc-p99 10.00 ms is below the LC's P99 alone: "*" ms ("*" requests over the last 3 s with no BE process on its GPU"*"ask for more than "*" ms"*)
	ok "the line: the target, the P99 alone, the requests and span, what to ask for" ;;
*) fail "the refusal's words" "$L" ;;
esac
echo "$L" | grep -Eq "alone: (1[89]|2[0-9])\.[0-9]{2} ms \((2|3)[0-9]{2} requests" &&
	ok "the figure measured (about 20 ms, 300 requests a span)" || fail "the figure" "$L"
tail -1 "$W/run.err" | grep -q '^Error: ' && ok "the Error line last" || fail "Error last" "$(tail -2 "$W/run.err")"
grep -q "^restored .*lc1, lc): timeslice 1024 us, interleave medium" "$W/run.out" &&
	ok "the LC's TSG restored as on a stop" || fail "restored" "$(cat "$W/run.out")"
grep -q "policy lc-be stopped" "$W/run.out" && ok "its summary, as on a stop" || fail "summary" "$(tail -3 "$W/run.out")"
nothing_left "refused"
lc_back "refused"

# --- the target met once: a miss alone afterwards stays a miss --------------------------
start_run lc-p99 10ms
feed 5000 2
feed 20000 10
alive "met once, then 10 s alone above it: not refused"
grep -q '^Error' "$W/run.err" && fail "no Error line" "$(cat "$W/run.err")" || ok "no Error line"
stop_run "stopped by SIGINT: exit 0"

# --- mechanism mps, -j: a BE client of the run's daemon is a BE process beside the LC ---
start_run -j lc-p99 10ms mechanism mps
"$GPUCTL" sched exec --class be -- sleep 60 >/dev/null 2>&1 &
BEC=$!
i=0; while ! printf 'get_server_list\n' | CUDA_MPS_PIPE_DIRECTORY=$PIPE nvidia-cuda-mps-control 2>/dev/null | grep -q '^[0-9]'; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
done
feed 20000 10
alive "mps: a BE client beside the LC, 10 s above the target: not refused"
kill $BEC; wait $BEC 2>/dev/null
ended "mps: the client gone, the LC alone above the target: refused" 1
OUT=$(cat "$W/run.out")
expect_json "-j: the run's output"
grep -q '"error":"lc-p99 10.00 ms is below the LC'"'"'s P99 alone: [0-9.]* ms (' "$W/run.out" &&
	ok "-j: the refusal is {\"error\":...}" || fail "-j error" "$(tail -c 600 "$W/run.out")"
grep -q '^Error' "$W/run.err" && fail "-j: no Error line on stderr" "$(cat "$W/run.err")" || ok "-j: no Error line on stderr"
[ -e /run/gpuctl/sched-mps ] && fail "mps: state removed" "/run/gpuctl/sched-mps is there; the run said: $(grep -i 'mps' "$W/run.err" | tail -n 3)" ||
	ok "mps: its state removed"
i=0; while [ -e "$PIPE/nvidia-cuda-mps-control.pid" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
[ -e "$PIPE/nvidia-cuda-mps-control.pid" ] && fail "mps: the daemon it started quit" "still there" ||
	ok "mps: the daemon it started quit (no client left)"
nothing_left "mps refused"
lc_back "mps refused"

# --- --detach: refused in the background; sched status says why -----------------------
expect_exit 0 "$GPUCTL" -j sched status
expect_json_eq "status -j: last_run_error null before any detached run" .last_run_error null
expect_exit 0 "$GPUCTL" sched run lc-be lc comm:lc1 hint "$H" lc-p99 10ms --detach
RUN=$(cut -d" " -f1 /run/gpuctl/sched-run.pid 2>/dev/null)
[ "$(head -1 /run/gpuctl/sched-run.log 2>/dev/null)" = "pid $RUN" ] && ok "detach: its log begins with its pid" ||
	fail "detach log" "$(head -2 /run/gpuctl/sched-run.log 2>&1), pid file $RUN"
case $(stat -c %a:%u /run/gpuctl/sched-run.log) in 644:0) ok "detach: the log root's, 0644" ;;
	*) fail "detach log mode" "$(stat -c %a:%u /run/gpuctl/sched-run.log)" ;; esac
expect_exit 0 "$GPUCTL" -j sched status
expect_json_eq "detach: status -j while it runs: no last error" .last_run_error null
feed 20000 25
i=0; while kill -0 "$RUN" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done	# its stop (as in ended)
kill -0 "$RUN" 2>/dev/null && { fail "detach: refused in the background" "still running after $FED s"; kill -INT "$RUN"; } ||
	ok "detach: refused in the background ($FED s fed)"
i=0; while [ -e /run/gpuctl/sched-run.pid ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
grep -q "^Error: lc-p99 10.00 ms is below the LC's P99 alone" /run/gpuctl/sched-run.log &&
	ok "detach: the Error line in its log" || fail "detach log error" "$(cat /run/gpuctl/sched-run.log)"
grep -q "restored .*lc1" /run/gpuctl/sched-run.log && fail "detach: stdout not kept" "$(cat /run/gpuctl/sched-run.log)" ||
	ok "detach: the lines per TSG not kept"
expect_exit 0 "$GPUCTL" sched status
expect_out "detach: status says why the last detached run ended" \
	"^last detached run \(pid $RUN\) ended failed: lc-p99 10\.00 ms is below the LC's P99 alone: "
expect_exit 0 "$GPUCTL" -j sched status
expect_json_eq "detach: status -j: its pid" .last_run_error.pid "$RUN"
json_get .last_run_error.error | grep -q "^lc-p99 10.00 ms is below" && ok "detach: status -j: the error" ||
	fail "detach -j error" "$OUT"
lc_back "detach refused"
start_run lc-p99 50ms
expect_exit 0 "$GPUCTL" -j sched status
expect_json_eq "detach: a policy process running: no last error shown" .last_run_error null
stop_run "the next run stopped by SIGINT: exit 0"

kill $LC1 2>/dev/null; wait $LC1 2>/dev/null
expect_exit 0 "$GPUCTL" sched unload
summary
