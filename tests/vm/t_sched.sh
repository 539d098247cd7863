#!/bin/sh
# gpuctl sched on the model's RM device (/dev/uvm_model_rm): watcher, list,
# set-timeslice / set-interleave / preempt, bad input, run lc-be with
# re-apply and restore, run --detach + stop, unload.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR

if [ ! -c /dev/uvm_model_rm ]; then
	fail "model RM device" "/dev/uvm_model_rm missing (model without uvm_model_rm.c?)"
	summary
fi

# start_client NAME ARGS...: runs rmclient as comm NAME; sets CPID; waits for "ready"
# client_view NAME: the client's own GET of its TSGs (SIGUSR2)
client_view() {
	: >"$W/$1.out"
	kill -USR2 "$(pidof "$1" | cut -d' ' -f1)"
	sleep 0.4
	cat "$W/$1.out"
}
field() {	# field LINE_REGEX COLUMN: a column of the first matching `sched list` line
	printf '%s\n' "$OUT" | awk -v re="$1" -v c="$2" '$0 ~ re { print $c; exit }'
}

# --- before the watcher -----------------------------------------------------
start_client early -n 1
EARLY=$CPID
expect_exit 1 "$GPUCTL" sched list && expect_stderr_line "list without watcher"
case $ERR in *"sched watch"*) ok "hint names 'sched watch'" ;; *) fail "hint" "$ERR" ;; esac

expect_exit 0 "$GPUCTL" sched watch
expect_out "watch attached" "attached"
expect_exit 0 "$GPUCTL" sched watch
expect_out "watch twice" "already running"

# --- TSGs of several clients, every ALLOC form --------------------------------
start_client app64 -n 2 -f 64;  P64=$CPID
start_client app21 -n 1 -f 21;  P21=$CPID
start_client appx -n 1 -f x64;  PX=$CPID
sleep 0.2
expect_exit 0 "$GPUCTL" sched list
printf '%s\n' "$OUT" | sed 's/^/# /'
n=$(printf '%s\n' "$OUT" | grep -c ' live$')
[ "$n" = 4 ] && ok "list shows 4 live TSGs" || fail "list count" "$n live TSGs"
printf '%s\n' "$OUT" | grep -q " early " && fail "early" "TSG allocated before the watcher is listed" || ok "TSG allocated before the watcher is not listed"
expect_out "NVOS21 form seen" " app21 "
expect_out "XFER form seen" " appx "
expect_out "default timeslice 1024us, level not readable (as RM 580)" "1024us +n/a "
expect_out "note about earlier TSGs" "before it started"
ID=$(field " app64 " 1)
CL=$(field " app64 " 5)
TS=$(field " app64 " 6)

expect_exit 0 "$GPUCTL" -j sched list
case $OUT in '[{"id":'*'"timeslice_us":1024'*) ok "JSON list" ;; *) fail "JSON list" "$OUT" ;; esac

# RM's ownership rule, as on the real driver: a fresh open cannot reach the client.
r=$("$RMC" -p "${CL#0x}:${TS#0x}")
[ "$r" = "status 0x23" ] && ok "fresh open gets NV_ERR_INVALID_CLIENT" || fail "ownership rule" "$r"

# --- set / read back ----------------------------------------------------------
expect_exit 0 "$GPUCTL" sched set-timeslice --tsg "$ID" 500
expect_out "set-timeslice reads back" "RM applied 500 us"
case $(client_view app64) in *"tsg $TS timeslice 500 "*) ok "app sees 500 us" ;; *) fail "app view" "$(cat $W/app64.out)" ;; esac
expect_exit 0 "$GPUCTL" sched set-interleave --pid "$P64" high
n=$(printf '%s\n' "$OUT" | grep -c 'cannot read the level back')
[ "$n" = 2 ] && ok "set-interleave --pid: both accepted, not readable" || fail "set-interleave --pid" "$OUT"
expect_exit 0 "$GPUCTL" sched list --pid "$P64"
expect_out "list shows the level set, marked" " 500us +high\* "
# From here the model answers GET_INTERLEAVE_LEVEL, to check what was applied.
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/rm_get_interleave
case $(client_view app64) in *"tsg $TS timeslice 500 interleave 2"*) ok "app sees high" ;; *) fail "app view" "$(cat $W/app64.out)" ;; esac
expect_exit 0 "$GPUCTL" sched set-interleave --pid "$P64" high
n=$(printf '%s\n' "$OUT" | grep -c 'reads back high')
[ "$n" = 2 ] && ok "set-interleave --pid: both TSGs read back high" || fail "set-interleave readback" "$OUT"
expect_exit 0 "$GPUCTL" -j sched set-timeslice --pid "$P21" 3000
case $OUT in *'"timeslice_us":3000'*) ok "JSON set-timeslice" ;; *) fail "JSON set" "$OUT" ;; esac
expect_exit 0 "$GPUCTL" sched preempt --tsg "$ID" --wait --timeout 1000
expect_out "preempt" "preempted \\(waited\\)"
expect_exit 0 "$GPUCTL" sched preempt --pid "$PX"

# --- bad input: one line each, nothing half-applied ----------------------------
expect_exit 1 "$GPUCTL" sched set-timeslice --tsg 9999 100 && expect_stderr_line "unknown TSG"
expect_exit 2 "$GPUCTL" sched set-timeslice --tsg "$ID" 0 && expect_stderr_line "timeslice 0"
expect_exit 2 "$GPUCTL" sched set-interleave --tsg "$ID" urgent && expect_stderr_line "bad level"
expect_exit 2 "$GPUCTL" sched set-timeslice 100 && expect_stderr_line "no target"
expect_exit 2 "$GPUCTL" sched preempt --tsg "$ID" --timeout 5 && expect_stderr_line "timeout without wait"
# RM on the H200 took 1..10^12 us; the model's knob makes it refuse, to see the decoding.
echo 4294967295 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/rm_timeslice_max
expect_exit 1 "$GPUCTL" sched set-timeslice --pid "$P64" 5000000000 && expect_stderr_line "RM refuses"
case $ERR in *"NV_ERR_NOT_SUPPORTED"*"nothing changed"*) ok "RM status decoded" ;; *) fail "RM status" "$ERR" ;; esac
echo 0 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/rm_timeslice_max
case $(client_view app64) in *"tsg $TS timeslice 500 "*) ok "refused set changed nothing" ;; *) fail "half-applied" "$(cat $W/app64.out)" ;; esac
expect_exit 1 "$GPUCTL" -j sched set-timeslice --tsg 9999 100
case $OUT in '{"error":'*) ok "JSON error" ;; *) fail "JSON error" "$OUT" ;; esac
kill "$P21"; wait "$P21" 2>/dev/null
expect_exit 1 "$GPUCTL" sched set-timeslice --pid "$P21" 100 && expect_stderr_line "process gone"
# A freed TSG leaves the table.
kill -USR1 "$PX"; sleep 0.3
expect_exit 0 "$GPUCTL" sched list
printf '%s\n' "$OUT" | grep -q " appx " && fail "free" "freed TSG still listed" || ok "freed TSG leaves the table"

# --- run lc-be: new TSGs, existing ones, re-apply, restore ----------------------
"$GPUCTL" sched run lc-be lc comm:lcapp be-timeslice 200 >"$W/run.out" 2>&1 &
RUN=$!
sleep 0.5
start_client lcapp -n 1; LC=$CPID
start_client beapp -n 1 -r 1024; BE=$CPID
sleep 1
expect_exit 0 "$GPUCTL" sched list
printf '%s\n' "$OUT" | sed 's/^/# /'
expect_out "LC TSG: the timeslice be-floor allows (1800 us against BE 200), high" " lcapp .* 1800us high +lc "
expect_out "BE TSG: short timeslice, low" " beapp .* 200us low +be "
grep -q "^applied .*app64.*be" "$W/run.out" && ok "TSG from before run classified BE" || fail "existing TSG" "$(cat $W/run.out)"
grep -q "^reapplied .*beapp" "$W/run.out" && ok "app's own reset is re-applied" || fail "re-apply" "$(cat $W/run.out)"
case $(client_view lcapp) in *"timeslice 1800 interleave 2"*) ok "LC app sees its new values" ;; *) fail "lc view" "$(cat $W/lcapp.out)" ;; esac
expect_exit 1 "$GPUCTL" sched run fixed timeslice 100 && expect_stderr_line "second run refused"
expect_exit 0 "$GPUCTL" sched status
expect_out "status: policy active" "policy active"
kill -INT "$RUN"; wait "$RUN"
rc=$?
[ $rc = 0 ] && ok "run exits 0 on SIGINT" || fail "run exit" "$rc"
grep -q "^restored .*lcapp" "$W/run.out" && ok "run restores" || fail "restore" "$(cat $W/run.out)"
kill "$BE"; wait "$BE" 2>/dev/null
expect_exit 0 "$GPUCTL" sched list
expect_out "LC restored to 1024 medium" " lcapp .* 1024us medium "
sed 's/^/# run: /' "$W/run.out"

# --- run --detach / stop ---------------------------------------------------------
expect_exit 0 "$GPUCTL" sched run fixed timeslice 700 interleave low match comm:lcapp --detach
expect_out "detached" "background"
sleep 0.3
expect_exit 0 "$GPUCTL" sched list
expect_out "fixed applied by the detached runner" " lcapp .* 700us low +fixed "
expect_exit 0 "$GPUCTL" sched stop
expect_out "stop" "restored"
expect_exit 0 "$GPUCTL" sched list
expect_out "stop restored" " lcapp .* 1024us medium "

# --- unload ---------------------------------------------------------------------
expect_exit 0 "$GPUCTL" sched unload
[ -e /sys/fs/bpf/gpuctl/sched ] && fail "unload" "pins left" || ok "unload removes the pins"
expect_exit 1 "$GPUCTL" sched list
kill "$P64" "$LC" "$EARLY" "$PX" 2>/dev/null
summary
