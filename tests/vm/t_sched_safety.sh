#!/bin/sh
# gpuctl sched when things go wrong, on the model's RM device: commands
# racing each other (parallel watch, run, stop, unload), `run` killed with
# SIGKILL at each step (originals restored by the next run or stop), an
# unprivileged user against every command and against a pin tree that user
# planted in the world-writable bpffs, bpffs missing, read-only commands that
# must create nothing, and failed commands that must leave the state as it was.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
W=$T_DIR
G=$GPUCTL
TO="timeout 30"	# a command that must fail at once must not run on instead
PARAM=/sys/module/${MODEL_NAME:-uvm_model}/parameters
BPFFS=/sys/fs/bpf
SD=$BPFFS/gpuctl/sched
PINS="tsgs policy meta stats events link_sys_exit link_sys_enter"

if [ ! -c /dev/uvm_model_rm ]; then
	fail "model RM device" "/dev/uvm_model_rm missing (model without uvm_model_rm.c?)"
	summary
fi
chmod 0755 "$W"	# the unprivileged user runs copies of rmclient from here

# start_client NAME ARGS...: runs rmclient as comm NAME; sets CPID; waits for "ready"
start_client() {
	name=$1; shift
	cp "$RMC" "$W/$name"
	: >"$W/$name.out"
	# appending: view empties the file while the client keeps writing
	"$W/$name" "$@" >>"$W/$name.out" 2>&1 &
	CPID=$!
	i=0
	while ! grep -q '^ready' "$W/$name.out" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 200 ] && break; sleep 0.05
	done
}
# view PID NAME: the client's own reading of its TSGs (SIGUSR2), one line each
view() {
	: >"$W/$2.out"
	kill -USR2 "$1"
	i=0
	while [ "$(grep -c '^tsg ' "$W/$2.out")" -lt "${3:-1}" ] && [ $i -lt 100 ]; do
		i=$((i + 1)); sleep 0.05
	done
	sleep 0.05
	grep '^tsg ' "$W/$2.out"
}
# as_nobody CMD...: runs CMD as uid/gid 65534 with no capabilities
as_nobody() {
	python3 -c 'import os, sys
os.setgroups([]); os.setgid(65534); os.setuid(65534)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
# snap: the bpffs tree and /run/gpuctl (names, owners, modes, types, inodes)
snap() {
	find $BPFFS /run/gpuctl -exec stat -c '%n %u %a %F %i' {} + 2>/dev/null | sort
}
# whole_watcher: every pin of a watcher is there
whole_watcher() {
	for p in $PINS; do [ -e "$SD/$p" ] || return 1; done
}
runner_pid() { cut -d" " -f1 /run/gpuctl/sched-run.pid 2>/dev/null; }
reset() {
	"$G" sched unload >/dev/null 2>&1
	rm -rf $BPFFS/gpuctl /run/gpuctl
	echo 0 >$PARAM/rm_set_delay_ms
}

# --- read-only commands create nothing; bpffs missing is named ---------------
reset
before=$(snap)
expect_exit 1 "$G" sched list && expect_stderr_line "list, no watcher"
expect_exit 0 "$G" sched status && expect_out "status, no watcher: nothing loaded (exit 0)" '^watcher not running'
expect_exit 1 "$G" -j sched list && expect_json "list -j, no watcher"
expect_exit 0 "$G" sched help
expect_exit 0 "$G" sched stop
expect_exit 0 "$G" sched unload
[ "$(snap)" = "$before" ] && ok "list, status, help, idle stop/unload create nothing" ||
	fail "read-only commands created something" "$(snap)"

mkdir -p "$W/notbpf"
expect_exit 0 env GPUCTL_BPFFS="$W/notbpf" "$G" sched status &&
	expect_out "status, bpffs missing: nothing loaded, bpffs named" "bpffs not mounted at $W/notbpf"
for c in list "run fixed timeslice 5" watch; do
	# shellcheck disable=SC2086
	expect_exit 1 env GPUCTL_BPFFS="$W/notbpf" $TO "$G" sched $c && expect_stderr_line "$c, bpffs missing"
	case $ERR in *"bpffs is not mounted at $W/notbpf"*) ok "$c: names bpffs" ;;
	*) fail "$c: names bpffs" "$ERR" ;; esac
done
[ -z "$(ls -A "$W/notbpf")" ] && [ ! -e /run/gpuctl ] && ok "bpffs missing: nothing created" ||
	fail "bpffs missing" "$(ls -A "$W/notbpf") $(ls /run/gpuctl 2>&1)"

# --- a failed watch or run leaves things as they were --------------------------
expect_exit 1 "$G" sched watch --device /nonexistent && expect_stderr_line "watch, no device"
expect_exit 1 "$G" sched watch --device /tmp && expect_stderr_line "watch, not a char device"
expect_exit 1 $TO "$G" sched run fixed timeslice 5 --device /nonexistent && expect_stderr_line "run, no device"
expect_exit 2 "$G" sched run fixed timeslice 0 && expect_stderr_line "run, bad value"
[ "$(snap)" = "$before" ] && ok "failed watch/run: nothing created" || fail "failed watch/run" "$(snap)"

# --- parallel watch: each round leaves exactly one working watcher -------------
r=0; bad=0
while [ $r -lt 8 ]; do
	r=$((r + 1))
	reset
	for k in 1 2 3 4; do "$G" sched watch >"$W/w$k.out" 2>&1 & eval "wp$k=\$!"; done
	rcs=""
	for k in 1 2 3 4; do eval "wait \$wp$k"; rcs="$rcs$?"; done
	att=$(cat "$W"/w[1-4].out | grep -c 'attached')
	run=$(cat "$W"/w[1-4].out | grep -c 'already running')
	if [ "$rcs" != 0000 ] || [ "$att" != 1 ] || [ "$run" != 3 ] || ! whole_watcher; then
		bad=$((bad + 1))
		echo "# round $r: exits $rcs, $att attached, $run already running: $(cat "$W"/w[1-4].out | tr '\n' '|')"
		continue
	fi
	start_client "par$r" -n 1
	"$G" sched list >"$W/l.out" 2>&1
	grep -q " par$r " "$W/l.out" || { bad=$((bad + 1)); echo "# round $r: $(cat "$W/l.out")"; }
	kill "$CPID"; wait "$CPID" 2>/dev/null
done
[ $bad = 0 ] && ok "8 rounds of 4 parallel watches: all exit 0, one attaches, the watcher works" ||
	fail "parallel watch" "$bad of 8 rounds broken"

# --- parallel unload and watch: a whole watcher or none, never half ------------
r=0; bad=0
while [ $r -lt 5 ]; do
	r=$((r + 1))
	"$G" sched watch >/dev/null 2>&1
	"$G" sched unload >"$W/u.out" 2>&1 & up=$!
	"$G" sched watch >"$W/w1.out" 2>&1 & w1=$!
	"$G" sched watch >"$W/w2.out" 2>&1 & w2=$!
	wait $up; a=$?; wait $w1; b=$?; wait $w2; c=$?
	if [ "$a$b$c" != 000 ]; then
		bad=$((bad + 1)); echo "# round $r: exits $a$b$c"
	elif whole_watcher; then
		"$G" sched list >/dev/null 2>&1 || { bad=$((bad + 1)); echo "# round $r: list fails"; }
	elif [ -e "$SD" ]; then
		bad=$((bad + 1)); echo "# round $r: half a watcher: $(ls "$SD")"
	fi
done
[ $bad = 0 ] && ok "unload racing two watches: always a whole watcher or none" ||
	fail "unload vs watch" "$bad of 5 rounds broken"

# --- parallel run and stop -------------------------------------------------------
reset
"$G" sched watch >/dev/null
start_client prun -n 2; PR=$CPID
for k in 1 2 3; do
	"$G" sched run fixed timeslice 700 match comm:prun --detach >"$W/r$k.out" 2>"$W/r$k.err" &
	eval "rp$k=\$!"
done
rcs=""
for k in 1 2 3; do eval "wait \$rp$k"; rcs="$rcs$?"; done
n0=$(printf '%s' "$rcs" | tr -cd 0 | wc -c)
n1=$(printf '%s' "$rcs" | tr -cd 1 | wc -c)
[ "$n0" = 1 ] && [ "$n1" = 2 ] && ok "3 parallel runs: one runs, two refused" ||
	fail "parallel run" "exits $rcs: $(cat "$W"/r[1-3].err)"
[ "$(view $PR prun 2 | grep -c 'timeslice 700 ')" = 2 ] && ok "the one run applied" ||
	fail "parallel run applied" "$(cat "$W/prun.out")"
for k in 1 2 3; do "$G" sched stop >"$W/s$k.out" 2>&1 & eval "sp$k=\$!"; done
rcs=""
for k in 1 2 3; do eval "wait \$sp$k"; rcs="$rcs$?"; done
[ "$rcs" = 000 ] && [ "$(cat "$W"/s[1-3].out | grep -c '^policy stopped')" = 1 ] &&
	ok "3 parallel stops: all exit 0, one stops it" || fail "parallel stop" "$rcs $(cat "$W"/s[1-3].out)"
[ "$(view $PR prun 2 | grep -c 'timeslice 1024 ')" = 2 ] && [ -z "$(runner_pid)" ] &&
	ok "parallel stop restored, no policy process left" || fail "parallel stop restore" "$(cat "$W/prun.out")"
kill $PR; wait $PR 2>/dev/null

# --- a second run refused leaves everything as it was -------------------------
start_client keep -n 1; KP=$CPID
expect_exit 0 "$G" sched run fixed timeslice 700 match comm:keep --detach
before=$(snap); pid=$(runner_pid)
expect_exit 1 $TO "$G" sched run lc-be lc comm:keep && expect_stderr_line "second run"
[ "$(snap)" = "$before" ] && [ "$(runner_pid)" = "$pid" ] && kill -0 "$pid" &&
	ok "refused run: pins, pid file and policy process unchanged" || fail "refused run" "$(snap)"
case $(view $KP keep) in *"timeslice 700 "*) ok "refused run: values unchanged" ;;
*) fail "refused run changed values" "$(cat "$W/keep.out")" ;; esac
expect_exit 0 "$G" sched list && expect_out "list in a running policy" " keep .* 700us "
expect_exit 0 "$G" sched status
[ "$(snap)" = "$before" ] && ok "list and status with a watcher create nothing" ||
	fail "list/status created" "$(snap)"

# --- the unprivileged user: every command refused, naming the capability -------
before=$(snap)
for c in watch list status "set-timeslice --tsg 1 5" "set-interleave --tsg 1 low" \
	 "preempt --tsg 1" "run fixed timeslice 5" stop unload; do
	# shellcheck disable=SC2086
	expect_exit 1 as_nobody $TO "$G" sched $c && expect_stderr_line "nobody: $c"
	case $ERR in *"'sched ${c%% *}' needs CAP_"*"missing: CAP_"*) ok "nobody: $c names the capability" ;;
	*) fail "nobody: $c names the capability" "$ERR" ;; esac
done
expect_exit 0 as_nobody "$G" sched help
[ "$(snap)" = "$before" ] && kill -0 "$pid" && ok "nobody changed nothing; the policy still runs" ||
	fail "nobody changed something" "$(snap)"
case $(view $KP keep) in *"timeslice 700 "*) ok "nobody: values unchanged" ;;
*) fail "nobody changed values" "$(cat "$W/keep.out")" ;; esac
expect_exit 0 "$G" sched stop
case $(view $KP keep) in *"timeslice 1024 "*) ok "root's stop restores" ;;
*) fail "stop" "$(cat "$W/keep.out")" ;; esac

# --- a pin tree planted by the unprivileged user: root refuses, touches nothing --
plant() {	# plant KIND: a gpuctl tree in bpffs that root must not trust
	reset
	mkdir -p "$W/nb"; chown 65534:65534 "$W/nb"
	case $1 in
	own) as_nobody mkdir $BPFFS/gpuctl && as_nobody mkdir $BPFFS/gpuctl/sched ;;
	symlink) as_nobody ln -s "$W/nb" $BPFFS/gpuctl ;;
	world) as_nobody mkdir -m 0777 $BPFFS/gpuctl && as_nobody chmod 0777 $BPFFS/gpuctl ;;
	rootworld) mkdir -m 0700 $BPFFS/gpuctl && mkdir $SD && chmod 0777 $SD ;;
	esac
}
for kind in own symlink world rootworld; do
	plant $kind
	before=$(snap); nb=$(ls -A "$W/nb")
	for c in watch list status "run fixed timeslice 5" stop unload "set-timeslice --tsg 1 5"; do
		# shellcheck disable=SC2086
		expect_exit 1 $TO "$G" sched $c && expect_stderr_line "$kind tree: $c"
		case $ERR in *"gpuctl does not follow it"*|*"writable by nobody else"*) ;;
		*) fail "$kind tree: $c says why" "$ERR" ;; esac
	done
	[ "$(snap)" = "$before" ] && [ "$(ls -A "$W/nb")" = "$nb" ] && [ ! -e /run/gpuctl/sched-run.pid ] &&
		ok "$kind tree: 7 commands refused, nothing touched" || fail "$kind tree touched" "$(snap)"
done
rm -rf $BPFFS/gpuctl

# --- run killed with SIGKILL: the next run or stop restores the originals -------
reset
"$G" sched watch >/dev/null
echo 1 >$PARAM/rm_get_interleave
# the issue's case: kill -9 a foreground run, then run --detach and stop
start_client k9 -n 1; K9=$CPID
"$G" sched run fixed timeslice 700 match comm:k9 >"$W/run.out" 2>&1 & RUN=$!
i=0; until view $K9 k9 | grep -q 'timeslice 700 ' || [ $i -gt 40 ]; do i=$((i + 1)); sleep 0.1; done
kill -9 $RUN; wait $RUN 2>/dev/null
expect_exit 0 "$G" sched status
expect_out "status after kill -9: no policy process" "no policy process"
expect_exit 0 "$G" sched run fixed timeslice 700 match comm:k9 --detach
expect_exit 0 "$G" sched stop
case $(view $K9 k9) in *"timeslice 1024 interleave 1"*) ok "kill -9, run --detach, stop: 1024 us restored, not 700" ;;
*) fail "kill -9 then run/stop" "$(cat "$W/k9.out")" ;; esac

# foreground run killed, then only stop
"$G" sched run fixed timeslice 900 interleave high match comm:k9 >"$W/run.out" 2>&1 & RUN=$!
i=0; until view $K9 k9 | grep -q 'timeslice 900 interleave 2' || [ $i -gt 40 ]; do i=$((i + 1)); sleep 0.1; done
kill -9 $RUN; wait $RUN 2>/dev/null
expect_exit 0 "$G" sched stop
expect_out "stop after kill -9 says what it restored" "restored on 1 TSG"
case $(view $K9 k9) in *"timeslice 1024 interleave 1"*) ok "kill -9, stop: timeslice and level restored" ;;
*) fail "kill -9 then stop" "$(cat "$W/k9.out")" ;; esac
expect_exit 0 "$G" sched list
expect_out "list: no class left on the TSG" " k9 .* 1024us medium +- "

# detached run killed, then its successor and stop
expect_exit 0 "$G" sched run fixed timeslice 700 match comm:k9 --detach
kill -9 "$(runner_pid)"; sleep 0.2
expect_exit 0 "$G" sched run lc-be lc comm:k9 --detach
case $ERR in *"left changed by policy process"*"restored"*) ok "successor says what it restored" ;;
*) fail "successor restore message" "$ERR" ;; esac
case $(view $K9 k9) in *"timeslice 1800 interleave 2"*) ok "successor applies its own policy" ;;
*) fail "successor apply" "$(cat "$W/k9.out")" ;; esac
expect_exit 0 "$G" sched stop
case $(view $K9 k9) in *"timeslice 1024 interleave 1"*) ok "detached run killed: successor's stop restores the first originals" ;;
*) fail "detached kill -9" "$(cat "$W/k9.out")" ;; esac
# a killed policy's watcher still decides for new TSGs; nobody applied that,
# and the next run (whose rules do not match them) must not either
expect_exit 0 "$G" sched run fixed timeslice 600 --detach
kill -9 "$(runner_pid)"; sleep 0.2
start_client late -n 1; LATE=$CPID
expect_exit 0 "$G" sched run fixed timeslice 700 match comm:k9 --detach
case $(view $LATE late) in *"timeslice 1024 "*) ok "a dead policy's decision is not applied by the next run" ;;
*) fail "stale decision applied" "$(cat "$W/late.out")" ;; esac
expect_exit 0 "$G" sched stop
kill $LATE; wait $LATE 2>/dev/null

# killed, and its parent never reaps it: a zombie is no policy process
sh -c "\"$G\" sched run fixed timeslice 800 match comm:k9 >/dev/null 2>&1 & echo \$! >$W/zpid; exec sleep 60" &
ZP=$!
i=0; until view $K9 k9 | grep -q 'timeslice 800 ' || [ $i -gt 40 ]; do i=$((i + 1)); sleep 0.1; done
kill -9 "$(cat "$W/zpid")"; sleep 0.3
case $(cat "/proc/$(cat "$W/zpid")/stat" 2>/dev/null) in *") Z "*) ok "the killed run is a zombie" ;;
*) fail "zombie" "$(cat "/proc/$(cat "$W/zpid")/stat" 2>&1)" ;; esac
expect_exit 0 "$G" sched status
expect_out "status: a zombie runs no policy" "no policy process"
expect_exit 0 "$G" sched run fixed timeslice 700 match comm:k9 --detach
expect_exit 0 "$G" sched stop
case $(view $K9 k9) in *"timeslice 1024 interleave 1"*) ok "run over a zombie's pid file, then stop: originals back" ;;
*) fail "zombie pid file" "$(cat "$W/k9.out")" ;; esac
kill $ZP; wait $ZP 2>/dev/null
kill $K9; wait $K9 2>/dev/null

# before its first change: killed while it waits for the lock
start_client k0 -n 1; K0=$CPID
python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True); time.sleep(30)' "$SD" >"$W/lock.out" &
LK=$!
i=0; until grep -q locked "$W/lock.out" || [ $i -gt 50 ]; do i=$((i + 1)); sleep 0.1; done
before=$(snap)
"$G" sched run fixed timeslice 700 match comm:k0 --detach >/dev/null 2>&1 & RUN=$!
sleep 1
kill -0 $RUN 2>/dev/null && [ -z "$(runner_pid)" ] && ok "run waits for the lock, nothing claimed" ||
	fail "run did not wait for the lock" "$(runner_pid)"
kill -9 $RUN; wait $RUN 2>/dev/null
kill $LK; wait $LK 2>/dev/null
[ "$(snap)" = "$before" ] && ok "run killed before its first change: nothing changed" || fail "killed early" "$(snap)"
case $(view $K0 k0) in *"timeslice 1024 interleave 1"*) ok "killed early: values untouched" ;;
*) fail "killed early: values" "$(cat "$W/k0.out")" ;; esac
kill $K0; wait $K0 2>/dev/null

# mid-apply: every RM SET takes 1 s; killed once some TSGs are changed, not all
echo 1000 >$PARAM/rm_set_delay_ms
start_client mid -n 3; MID=$CPID
"$G" sched run fixed timeslice 700 interleave low match comm:mid >"$W/run.out" 2>&1 & RUN=$!
i=0; n=0
while [ $i -lt 100 ]; do
	n=$(view $MID mid 3 | grep -c 'timeslice 700 ')
	[ "$n" -ge 1 ] && break
	i=$((i + 1)); sleep 0.05
done
kill -9 $RUN; wait $RUN 2>/dev/null
echo 0 >$PARAM/rm_set_delay_ms
changed=$(view $MID mid 3 | grep -vc 'timeslice 1024 interleave 1')
[ "$changed" -ge 1 ] && [ "$changed" -lt 3 ] && ok "killed mid-apply ($changed of 3 TSGs changed)" ||
	fail "kill landed mid-apply" "$changed of 3 changed: $(cat "$W/mid.out")"
expect_exit 0 "$G" sched stop
n=$(view $MID mid 3 | grep -c 'timeslice 1024 interleave 1')
[ "$n" = 3 ] && ok "mid-apply kill: stop restores all 3 TSGs" || fail "mid-apply restore" "$(cat "$W/mid.out")"
expect_exit 0 "$G" sched status
expect_out "policy inactive after stop" "policy inactive"
kill $MID; wait $MID 2>/dev/null

reset
summary
