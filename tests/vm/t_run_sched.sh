#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# t_run_sched.sh - gpuctl run --sched CLASS: CMD started in a class of the
# running policy through sched exec's steps, against the MPS stand-in
# (tests/tools/mps/) and the model's RM device, as t_sched_mps sets a run
# up: refused with one line, nothing run, while no sched run is active; under
# mechanism mps CMD is a client with its class's environment; under
# mechanism tsg its TSGs get the class; -j's document says the class and the
# mechanism; CMD's status is run's; a program that cannot run is 127; with a
# tool (--stat) the tool follows CMD.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR
G=$GPUCTL
STANDIN=$(pwd)/tests/tools/mps
PIPE=/run/gpuctl/mps/pipe
[ -x "$STANDIN/nvidia-cuda-mps-control" ] || { fail "stand-in" "$STANDIN missing (make -C tests/tools)"; summary; }
export PATH="$STANDIN:$PATH"
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device 2>/dev/null

start_run() {	# start_run ARGS...: sched run lc-be in the background, RUN its pid
	# the last run's files go first: the & child truncates them only once it runs, and
	# a grep before that would find the last run's "active"
	rm -f "$W/run.out" "$W/run.err"
	"$G" sched run lc-be lc comm:lc1 "$@" >"$W/run.out" 2>"$W/run.err" &
	RUN=$!
	i=0
	while ! grep -q "active" "$W/run.err" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05
		kill -0 $RUN 2>/dev/null || break
	done
	[ $i -gt 400 ] && fail "sched run active" "not after 20 s: $(head -c 300 "$W/run.err")"
}
stop_run() {	# SIGINT, 15 s to end, then SIGKILL
	kill -INT $RUN 2>/dev/null
	i=0; while kill -0 $RUN 2>/dev/null && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.05; done
	kill -0 $RUN 2>/dev/null && { fail "run $RUN ends on SIGINT" "still running"; kill -9 $RUN; }
	wait $RUN 2>/dev/null
	i=0
	while grep -qx 'gpuctl' /proc/[0-9]*/comm 2>/dev/null && [ $i -lt 200 ]; do
		i=$((i + 1)); sleep 0.05
	done
}
pid_of() { grep -lx "$1" /proc/[0-9]*/comm 2>/dev/null | head -1 | cut -d/ -f3; }

# --- no sched run: one line, nothing started -------------------------------------
expect_exit 1 "$G" run --sched be -- touch "$W/ran" && expect_stderr_line "run --sched, no sched run"
expect_err "names what to start first" "sched run"
[ -e "$W/ran" ] && fail "run --sched, no sched run: CMD not run" "it ran" || ok "run --sched, no sched run: CMD not run"
expect_exit 1 "$G" -j run --sched be --stat -- touch "$W/ran"
expect_json_expr "-j: one error document" "'sched run' in j['error'] and j['code'] == 'FAILED'"
[ -e "$W/ran" ] && fail "-j run --sched: CMD not run" "it ran" || ok "-j run --sched: CMD not run"
expect_exit 2 "$G" run --sched xx -- true && expect_stderr_line "run --sched xx"
expect_err "names the classes" "lc, be"

# --- mechanism mps: CMD a client, its class's environment ---------------------------
start_run mechanism mps be-threads 40
expect_exit 0 "$G" run --sched be -- sh -c 'echo "$CUDA_MPS_CLIENT_PRIORITY $CUDA_MPS_PIPE_DIRECTORY $GPUCTL_SCHED_CLASS $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"'
[ "$OUT" = "1 $PIPE be 40" ] && ok "run --sched be: a BE client (priority, pipe, class, threads)" || fail "be env" "'$OUT'"
expect_exit 0 "$G" run --sched lc -- sh -c 'echo "$CUDA_MPS_CLIENT_PRIORITY $GPUCTL_SCHED_CLASS ${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-none}"'
[ "$OUT" = "0 lc none" ] && ok "run --sched lc: an LC client" || fail "lc env" "'$OUT'"
# the environment is CMD's alone: gpuctl itself is no client
[ -z "$CUDA_MPS_PIPE_DIRECTORY" ] && ok "the shell's environment untouched" || fail "env leak" "$CUDA_MPS_PIPE_DIRECTORY"
expect_exit 5 "$G" -j run --sched be -- sh -c 'exit 5'
expect_json_expr "-j run --sched be: class, mechanism, CMD's status" \
	"j['sched'] == {'class': 'be', 'mechanism': 'mps'} and j['command_status'] == 5 and j['schema_version'] == 2"
expect_exit 127 "$G" run --sched be -- /nonexistent/prog && expect_stderr_line "run --sched of a program that does not exist"
# a tool with --sched follows CMD (started here, in its class)
expect_exit 0 "$G" -j run --sched be --stat -- sh -c 'echo "$GPUCTL_SCHED_CLASS" >&2; uvmsim run seq blocks 4 wait_ms 300 slice 32 gap_ms 20 >/dev/null'
expect_json_expr "-j run --sched be --stat: stat's document, the class" \
	"'counters' in j['stat'] and j['sched']['class'] == 'be' and j['command_status'] == 0"
expect_err "--stat: CMD got its class" "^be$"
stop_run

# --- mechanism tsg: CMD's TSGs get the class ------------------------------------------
start_run mechanism tsg
cp "$RMC" "$W/anyname"
"$G" -j run --sched lc -- "$W/anyname" -n 1 >"$W/any.json" 2>"$W/any.out" &
EX=$!
i=0; while ! grep -q '^ready' "$W/any.out" 2>/dev/null; do i=$((i + 1)); [ $i -gt 400 ] && break; sleep 0.05; done
AP=$(pid_of anyname)
sleep 0.3
expect_exit 0 "$G" -j sched list --pid "$AP"
expect_json_eq "tsg: run --sched lc gives an unmatched program class lc" .[0].class lc
grep -q "pid $AP anyname, lc)" "$W/run.out" && ok "the run applied lc's values to it" ||
	fail "tsg apply" "$(tail -3 "$W/run.out")"
# completion offers the watcher's TSG ids where a command takes --tsg
ID=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null)
ids=" $("$G" __complete sched set-timeslice --tsg '' | tr '\n' ' ') "
case $ids in *" $ID "*) ok "__complete ... --tsg: the watcher's TSG ids ($ID)" ;;
*) fail "__complete --tsg" "id '$ID' not in:$ids" ;; esac
[ -n "$AP" ] && kill "$AP"
wait $EX
OUT=$(cat "$W/any.json")
expect_json_expr "-j run --sched lc under tsg: the mechanism" \
	"j['sched'] == {'class': 'lc', 'mechanism': 'tsg'} and j['command_status'] is not None"
stop_run
expect_exit 0 "$G" sched unload
summary
