#!/bin/sh
# gpuctl sched run lc-be ... mechanism mps|tsg|auto and sched exec, against
# the MPS stand-in (tests/tools/mps/: nvidia-cuda-mps-control answering as
# the real daemon did on the H100) and the model's RM device: the daemon
# started on gpuctl's private pipe directory or adopted, clients started in
# a class (priority, pipe directory, thread percentage in their
# environment), their TSGs left to MPS, a stop that leaves a daemon with
# clients and quits it once they are gone, kill -9 of the run, a daemon
# that dies, the TSG path of sched exec, and bad input (one Error line,
# exit 2 or 1, nothing left), and a stop signal while a run starts.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR
STANDIN=$(pwd)/tests/tools/mps
ST=/run/gpuctl/sched-mps
PIPE=/run/gpuctl/mps/pipe
[ -x "$STANDIN/nvidia-cuda-mps-control" ] || { fail "stand-in" "$STANDIN missing (make -C tests/tools)"; summary; }
export PATH="$STANDIN:$PATH"

start_run() {	# start_run ARGS...: sched run lc-be in the background, RUN its pid
	# the last run's files go first: the & child truncates them only once it runs, and
	# a grep before that would find the last run's "active"
	rm -f "$W/run.out" "$W/run.err"
	"$GPUCTL" sched run lc-be lc comm:lc1 "$@" >"$W/run.out" 2>"$W/run.err" &
	RUN=$!
	i=0
	while ! grep -q "active" "$W/run.err" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05
		kill -0 $RUN 2>/dev/null || { echo "# run $RUN ended before it was active: $(cat "$W/run.err")"; break; }
	done
	if [ $i -gt 400 ]; then	# what keeps it: for the log
		echo "# run $RUN not active after 20 s: wchan $(cat /proc/$RUN/wchan 2>/dev/null); stack:"
		sed 's/^/#   /' /proc/$RUN/stack 2>/dev/null | head -8
		grep -E '^Sig(Blk|Ign)' /proc/$RUN/status 2>/dev/null | sed 's/^/#   /'
		for p in /proc/[0-9]*; do
			c=$(cat $p/comm 2>/dev/null)
			case $c in gpuctl*|nvidia-cuda-mps*)
				echo "#   ${p#/proc/} $c ppid $(awk '/^PPid/{print $2}' $p/status 2>/dev/null) $(cat $p/wchan 2>/dev/null)"
				for f in $p/fd/*; do echo "#     fd ${f##*/} $(readlink $f 2>/dev/null)"; done ;;
			esac
		done
		sed 's/^/#   lock /' /proc/locks 2>/dev/null
	fi
}
stop_run() {	# SIGINT, 15 s to end, then SIGKILL (a hang fails the checks, not the script)
	kill -INT $RUN 2>/dev/null
	i=0; while kill -0 $RUN 2>/dev/null && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.05; done
	kill -0 $RUN 2>/dev/null && { fail "run $RUN ends on SIGINT" "still running"; kill -9 $RUN; }
	wait $RUN 2>/dev/null
	settle
}
# settle: no gpuctl process left from the section before (10 s at most)
settle() {
	i=0
	while grep -qx 'gpuctl' /proc/[0-9]*/comm 2>/dev/null && [ $i -lt 200 ]; do
		i=$((i + 1)); sleep 0.05
	done
}
daemon() { cat "$1/nvidia-cuda-mps-control.pid" 2>/dev/null; }
# no_daemon DIR: the daemon there gone, files and all (10 s at most)
no_daemon() { i=0; while [ -e "$1/nvidia-cuda-mps-control.pid" ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done; }
# wait_daemon DIR: its pid once its pid file names a live daemon (10 s at most)
wait_daemon() { i=0; while ! kill -0 "$(daemon "$1")" 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done; daemon "$1"; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
pid_of() { grep -lx "$1" /proc/[0-9]*/comm 2>/dev/null | head -1 | cut -d/ -f3; }
expect_err_file() { grep -q -- "$2" "$W/run.err" && ok "$1" || fail "$1" "run.err: $(head -c 400 "$W/run.err")"; }
ctl() { printf '%s\n' "$2" | CUDA_MPS_PIPE_DIRECTORY=$1 nvidia-cuda-mps-control 2>&1; }

# --- bad input: exit 2, one line, nothing started ------------------------------
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism bogus
expect_stderr_line "unknown mechanism"
expect_err "the accepted words named" "mps, tsg or auto"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps be-threads 0
expect_stderr_line "be-threads 0"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps be-threads 150
expect_stderr_line "be-threads 150"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 be-threads 50
expect_stderr_line "be-threads without mechanism mps"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps mps-dir relative/dir
expect_stderr_line "mps-dir relative"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps mps-dir /tmp/nvidia-mps
expect_stderr_line "the default pipe directory"
expect_err "says why" "captures every CUDA process"
mkdir -p "$W/open"; chmod 777 "$W/open"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps mps-dir "$W/open"
expect_stderr_line "a pipe directory others can write"
mkdir -p "$W/nob"; chown 65534:65534 "$W/nob"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps mps-dir "$W/nob"
expect_stderr_line "a pipe directory of another user"
expect_exit 2 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps be-mem 4Q
expect_stderr_line "be-mem 4Q"
[ -e $ST ] && fail "bad input" "$ST written" || ok "bad input writes no MPS state"
expect_exit 2 "$GPUCTL" sched exec -- true
expect_stderr_line "exec without --class"
expect_exit 2 "$GPUCTL" sched exec --class xx -- true
expect_stderr_line "exec --class xx"
expect_exit 2 "$GPUCTL" sched exec --class be
expect_stderr_line "exec without a program"
expect_exit 1 "$GPUCTL" sched exec --class be -- true
expect_stderr_line "exec with no policy running"
expect_err "says what to run first" "sched run"

expect_exit 0 "$GPUCTL" sched watch

# --- no MPS binary ---------------------------------------------------------------
PATH=/bin:/usr/bin:/sbin:/usr/sbin:/opt/gpuctl/bin expect_exit 1 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps
expect_stderr_line "mechanism mps without nvidia-cuda-mps-control"
expect_err "names the program and how to get it" "nvidia-cuda-mps-control not found.*driver utilities"
PATH=/bin:/usr/bin:/sbin:/usr/sbin:/opt/gpuctl/bin expect_exit 0 "$GPUCTL" probe
expect_out "probe without MPS: says so and how to get it" "control program +no: nvidia-cuda-mps-control not found"
[ -e $ST ] && fail "no binary" "$ST left" || ok "no binary: no MPS state left"
expect_exit 0 "$GPUCTL" sched status
expect_out "no binary: no policy process left" "no policy process"
PATH=/bin:/usr/bin:/sbin:/usr/sbin:/opt/gpuctl/bin start_run mechanism auto
expect_exit 0 "$GPUCTL" sched status
expect_out "auto without MPS: TSG, and why" "mechanism tsg \(auto: nvidia-cuda-mps-control not found"
stop_run
[ -e $ST ] && fail "auto stop" "$ST left" || ok "auto: state removed at the end"

# --- auto and the policy's rules: TSG where a rule names what MPS cannot serve -------
start_run be uid:65534 mechanism auto
expect_exit 0 "$GPUCTL" sched status
expect_out "auto: a rule naming another uid: TSG, and why" \
	"mechanism tsg \(auto: rule 'be uid:65534' names uid 65534: an MPS server serves one user"
[ -e "$PIPE/nvidia-cuda-mps-control.pid" ] && fail "auto uid" "a daemon started" || ok "...and no daemon started"
stop_run
start_run be pid:$$ mechanism auto
expect_err_file "auto: a rule naming a pid: TSG, and why" \
	"mechanism tsg (auto: rule 'be pid:$$' names a process by its pid: it has started"
stop_run
cp "$RMC" "$W/lc1"
"$W/lc1" -n 1 >"$W/lc1.out" 2>&1 &
LC1=$!
i=0; while ! grep -q '^ready' "$W/lc1.out" 2>/dev/null; do i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05; done
start_run mechanism auto
expect_err_file "auto: a rule matching a running process: TSG, and why" \
	"mechanism tsg (auto: rule 'lc comm:lc1' matches pid $LC1 (lc1), running already: MPS takes a client only at its start)"
grep -q "pid $LC1 lc1, lc)" "$W/run.out" && ok "...and the run applies lc's values to it" \
	|| fail "auto running lc1" "$(tail -3 "$W/run.out")"
stop_run
kill "$LC1"; wait "$LC1" 2>/dev/null
start_run mechanism auto
expect_exit 0 "$GPUCTL" sched status
expect_out "auto with MPS and no such rule: mps, and why" "mechanism mps \(auto: MPS can serve"
stop_run
no_daemon $PIPE
[ -e "$PIPE/nvidia-cuda-mps-control.pid" ] && fail "auto mps stop" "daemon left" || ok "...its daemon quit at the end"

# --- mechanism mps: gpuctl's own daemon ------------------------------------------------
start_run mechanism mps be-threads 40 be-mem 2GiB
expect_err_file "the run says it started a daemon" "mechanism mps: MPS daemon [0-9]* on $PIPE (started by gpuctl)"
D=$(daemon $PIPE)
alive "$D" && ok "daemon $D runs on gpuctl's pipe directory" || fail "daemon" "none on $PIPE"
case $(stat -c %a:%u $PIPE) in 755:0) ok "pipe directory root's, 0755" ;; *) fail "pipe dir" "$(stat -c %a:%u $PIPE)" ;; esac
[ -f $ST ] && ok "state file written" || fail "state" "no $ST"
expect_exit 0 "$GPUCTL" sched exec --class be -- sh -c 'echo "$CUDA_MPS_CLIENT_PRIORITY $CUDA_MPS_PIPE_DIRECTORY $GPUCTL_SCHED_CLASS $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE $CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"'
[ "$OUT" = "1 $PIPE be 40 0=2048M" ] && ok "a BE client: priority 1, the pipe, its class, threads, memory limit" || fail "be env" "'$OUT'"
expect_exit 0 "$GPUCTL" sched exec --class lc -- sh -c 'echo "$CUDA_MPS_CLIENT_PRIORITY $GPUCTL_SCHED_CLASS ${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-none}"'
[ "$OUT" = "0 lc none" ] && ok "an LC client: priority 0, no thread limit" || fail "lc env" "'$OUT'"
expect_exit 7 "$GPUCTL" sched exec --class be -- sh -c 'exit 7'
ok "exec's exit status is the program's"
expect_exit 127 "$GPUCTL" sched exec --class be -- /nonexistent/prog
expect_stderr_line "exec of a program that does not exist"
expect_exit 127 "$GPUCTL" sched exec --class be -- no-such-prog-gpuctl
expect_stderr_line "exec of a name not on PATH"
cp "$RMC" "$W/be1"
"$GPUCTL" sched exec --class be -- "$W/be1" -n 2 >"$W/be1.out" 2>&1 &
EX1=$!
i=0; while ! grep -q '^ready' "$W/be1.out" 2>/dev/null; do i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05; done
BE1=$(pid_of be1)
sleep 0.5
i=0; while ! ctl $PIPE get_server_list | grep -q '^[0-9]'; do i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05; done
SRV=$(ctl $PIPE get_server_list)
[ -n "$SRV" ] && ok "a server started for the client ($SRV)" || fail "server" "none"
ctl $PIPE "get_client_list $SRV" | grep -qx "$BE1" && ok "the BE program is the server's client" || fail "client" "$(ctl $PIPE "get_client_list $SRV")"
expect_exit 0 "$GPUCTL" -j sched list --pid "$BE1"
expect_json_eq "list -j: a client's TSGs marked as MPS's" .[0].mps client
expect_exit 0 "$GPUCTL" sched list --pid "$BE1"
expect_out "list: the client's TSGs marked" "live, mps client"
expect_exit 0 "$GPUCTL" probe
expect_out "probe: the control program and its version" "control program .*tests/tools/mps/nvidia-cuda-mps-control \(version 13000\)"
expect_out "probe: gpuctl's daemon, its user" "daemon on gpuctl directory +pid $D, uid 0, on $PIPE"
expect_out "probe: its server" "server pid $SRV, uid 0"
expect_exit 0 "$GPUCTL" -j probe
expect_json_eq "probe -j: the daemon's pid" .mps.daemons[0].pid "$D"
expect_json_eq "probe -j: its server" .mps.daemons[0].servers[0].pid "$SRV"
expect_exit 0 "$GPUCTL" sched status
expect_out "status: the mechanism" "mechanism mps \(asked for\)"
expect_out "status: the daemon, started by gpuctl" "MPS daemon $D on $PIPE \(started by gpuctl\)"
expect_out "status: the server and its user" "server $SRV \(uid 0\): 1 client"
expect_out "status: the client's class and priority" "client $BE1 be1: class be, priority 1, threads 40%"
expect_exit 0 "$GPUCTL" -j sched status
expect_json "status -j"
expect_json_eq "status -j: mechanism" .mechanism.name mps
expect_json_eq "status -j: started by gpuctl" .mechanism.started_by_gpuctl true
expect_json_eq "status -j: the client's class" .mechanism.servers[0].clients[0].class be
expect_json_eq "status -j: its priority" .mechanism.servers[0].clients[0].priority 1
sleep 1.2	# the run's snapshot (once a second)
expect_exit 0 "$GPUCTL" exporter textfile --output "$W/m.prom"
grep -q "^gpuctl_mps_daemon_up{pipe_dir=\"$PIPE\"} 1" "$W/m.prom" && ok "exporter: the daemon up" \
	|| fail "exporter daemon" "$(grep mps "$W/m.prom" | head -5)"
grep -q "^gpuctl_mps_server_clients{server_pid=\"$SRV\",uid=\"0\"} 1" "$W/m.prom" && ok "exporter: the server's clients" \
	|| fail "exporter server" "$(grep mps_server "$W/m.prom")"
grep -q "^gpuctl_mps_client_priority{pid=\"$BE1\",comm=\"be1\",class=\"be\",server_pid=\"$SRV\",active_thread_pct=\"40\".*} 1" "$W/m.prom" \
	&& ok "exporter: the client, its class, priority and threads" || fail "exporter client" "$(grep mps_client "$W/m.prom")"
grep -q "pid $BE1 " "$W/run.out" && fail "MPS client's TSGs" "applied: $(grep "pid $BE1 " "$W/run.out")" \
	|| ok "an MPS client's TSGs are left to MPS (nothing applied)"

# --- stop with a client connected: the daemon stays, the next stop quits it ---------
# (the stand-in rescans every 50 ms: a client of the checks above may still be listed)
i=0; while [ "$(ctl $PIPE "get_client_list $SRV" | grep -c .)" != 1 ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05; done
CLIENTS=$(for p in $(ctl $PIPE "get_client_list $SRV"); do printf '%s:%s ' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done)
stop_run
grep -q "MPS daemon $D on $PIPE left running: 1 client" "$W/run.err" && ok "stop with a client: daemon left, said why" \
	|| fail "stop with client" "$(tail -4 "$W/run.err" | tr '\n' '|') the stand-in's clients before the stop: $CLIENTS; after: $(ctl $PIPE "get_client_list $SRV" | tr '\n' ' ')"
alive "$D" && ok "daemon alive while its client runs" || fail "daemon" "gone with a client connected"
[ -f $ST ] && ok "state kept for the next command" || fail "state" "removed"
[ -n "$BE1" ] && kill "$BE1"; wait $EX1 2>/dev/null
i=0; while [ -n "$(ctl $PIPE "get_client_list $SRV")" ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
expect_exit 0 "$GPUCTL" sched stop
expect_err "the next stop quits it" "MPS daemon $D on $PIPE quit" || {
	S=$(ctl $PIPE get_server_list); for c in $(ctl $PIPE "get_client_list $S"); do
		echo "  client $c: $(tr '\0' ' ' </proc/$c/cmdline) ppid $(awk '/^PPid/{print $2}' /proc/$c/status)"; done; }
i=0; while alive "$D" && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.05; done
alive "$D" && fail "sweep" "daemon $D still runs" || ok "daemon gone once its clients are"
[ -e $ST ] && fail "sweep" "$ST left" || ok "state removed"
[ -e $ST-clients ] && fail "sweep" "$ST-clients left" || ok "snapshot removed"
expect_exit 0 "$GPUCTL" exporter textfile --output "$W/m2.prom"
grep -q "gpuctl_mps_" "$W/m2.prom" && fail "exporter after stop" "MPS series left" || ok "exporter: no MPS series without a policy"

# --- kill -9 of the run: the next stop quits the daemon gpuctl started ---------------
no_daemon $PIPE
start_run mechanism mps
D=$(wait_daemon $PIPE)
kill -9 $RUN; wait $RUN 2>/dev/null
WD=$(grep -l '^gpuctl-watchdog$' /proc/[0-9]*/comm 2>/dev/null | head -1 | cut -d/ -f3)
[ -n "$WD" ] && kill -9 "$WD" 2>/dev/null
alive "$D" && ok "kill -9: the daemon outlives the run" || fail "kill -9" "daemon gone"
expect_exit 0 "$GPUCTL" sched stop
expect_err "kill -9: the next stop quits it" "MPS daemon $D on $PIPE quit"
alive "$D" && fail "kill -9 sweep" "daemon $D runs" || ok "kill -9: daemon gone after stop"

# --- kill -9 of the run, then a new run adopts the daemon and owns it ----------------
settle
no_daemon $PIPE
start_run mechanism mps
D=$(wait_daemon $PIPE)
kill -9 $RUN; wait $RUN 2>/dev/null
WD=$(grep -l '^gpuctl-watchdog$' /proc/[0-9]*/comm 2>/dev/null | head -1 | cut -d/ -f3)
[ -n "$WD" ] && kill -9 "$WD" 2>/dev/null
settle
start_run mechanism mps
expect_err_file "a new run adopts a killed run's daemon" "MPS daemon $D on $PIPE (adopted from a run that ended"
stop_run
alive "$D" && fail "adopted from a killed run" "daemon $D still runs" || ok "...and quits it at its end (gpuctl started it)"

# --- an operator's daemon: adopted, never stopped ----------------------------------
OPD=$W/op/pipe; mkdir -p "$OPD" "$W/op/log"
CUDA_MPS_PIPE_DIRECTORY=$OPD CUDA_MPS_LOG_DIRECTORY=$W/op/log nvidia-cuda-mps-control -d
OD=$(daemon "$OPD")
settle
start_run mechanism mps mps-dir "$OPD"
expect_err_file "mps-dir: the operator's daemon adopted" "MPS daemon $OD on $OPD (adopted, left running"
expect_exit 0 "$GPUCTL" sched exec --class be -- sh -c 'echo $CUDA_MPS_PIPE_DIRECTORY'
[ "$OUT" = "$OPD" ] && ok "clients go to the adopted daemon" || fail "adopted env" "$OUT"
stop_run
alive "$OD" && ok "an adopted daemon is never stopped" || fail "adopted" "stopped"
[ -e $ST ] && fail "adopted stop" "$ST left" || ok "adopted: state removed"
ctl "$OPD" quit >/dev/null
expect_exit 1 "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps mps-dir "$OPD"
expect_stderr_line "mps-dir with no daemon there"
expect_err "says what mps-dir does" "no MPS daemon answers on"

# --- the daemon dies mid-run -----------------------------------------------------------
no_daemon $PIPE
start_run mechanism mps
D=$(wait_daemon $PIPE)
kill -9 "$D"; sleep 0.2
expect_exit 1 "$GPUCTL" sched exec --class be -- true
expect_stderr_line "exec after the daemon died"
expect_err "says the daemon is gone" "MPS daemon on $PIPE is gone"
expect_exit 0 "$GPUCTL" sched status
expect_out "status: the daemon gone" "MPS daemon on $PIPE: gone"
stop_run
[ -e $ST ] && fail "dead daemon stop" "$ST left" || ok "dead daemon: state removed at the end"

# --- a stop signal while the run starts ----------------------------------------------
# A background job of this shell starts with SIGINT ignored: the run must
# take it from its first step on, finish starting (each wait bounded) and
# stop at once, undoing what it started (here: its own daemon).
no_daemon $PIPE
rm -f "$W/run.out" "$W/run.err" "$W/slow.started"
STANDIN_SLOW_START=$W/slow.started "$GPUCTL" sched run lc-be lc comm:lc1 mechanism mps >"$W/run.out" 2>"$W/run.err" &
RUN=$!
i=0; while [ ! -e "$W/slow.started" ] && [ $i -lt 400 ]; do i=$((i + 1)); sleep 0.05; done
grep -q "active" "$W/run.err" && fail "stop while starting" "already active: $(cat "$W/run.err")"
kill -INT $RUN
i=0; while kill -0 $RUN 2>/dev/null && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.05; done
if kill -0 $RUN 2>/dev/null; then
	fail "a SIGINT while the run starts its daemon ends the run" "still running: $(head -c 300 "$W/run.err")"
	kill -9 $RUN
	"$GPUCTL" sched stop >/dev/null 2>&1
else
	ok "a SIGINT while the run starts its daemon ends the run"
fi
wait $RUN; RC=$?
[ $RC = 0 ] && ok "...with exit status 0" || fail "stop while starting" "exit status $RC: $(head -c 300 "$W/run.err")"
grep -q "policy lc-be stopped" "$W/run.out" && ok "...as a stopped policy (its summary)" \
	|| fail "stop while starting" "run.out: $(head -c 300 "$W/run.out")"
grep -q "MPS daemon [0-9]* on $PIPE quit" "$W/run.err" && ok "...and quits the daemon it started" \
	|| fail "stop while starting: daemon" "$(tail -2 "$W/run.err")"
no_daemon $PIPE
[ -e "$PIPE/nvidia-cuda-mps-control.pid" ] && fail "stop while starting" "daemon left" || ok "...none left on its pipe directory"
[ -e $ST ] && fail "stop while starting" "$ST left" || ok "...nor its state"
settle

# --- mechanism tsg: sched exec gives the program's TSGs its class ---------------------
start_run
cp "$RMC" "$W/anyname"
"$GPUCTL" sched exec --class lc -- "$W/anyname" -n 1 >"$W/any.out" 2>&1 &
EX2=$!
i=0; while ! grep -q '^ready' "$W/any.out" 2>/dev/null; do i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05; done
AP=$(pid_of anyname)
sleep 0.3
expect_exit 0 "$GPUCTL" -j sched list --pid "$AP"
expect_json_eq "tsg: exec --class lc gives an unmatched program class lc" .[0].class lc
grep -q "pid $AP anyname, lc)" "$W/run.out" && ok "the run applied lc's values to it" \
	|| fail "tsg apply" "$(tail -3 "$W/run.out")"
[ -n "$AP" ] && kill "$AP"; wait $EX2 2>/dev/null
stop_run
expect_exit 0 "$GPUCTL" sched unload
summary
