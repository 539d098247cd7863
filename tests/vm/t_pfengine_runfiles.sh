#!/bin/sh
# issue 42 (lesser): `prefetch load -p PID` killed with -9 at 30 points of
# its start and run (foreground and --detach): the next prefetch command
# leaves no run file of it behind (<run dir>/prefetch/<PID>.pid, an empty
# one from a kill between its creation and its writing, <PID>.stats, and
# .<PID>.stats.*.tmp from a kill while the stats were renamed), and a new
# engine on the same process starts at once.  543f5eb kept them.
. "$(dirname "$0")/../lib.sh"
G=$GPUCTL
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
RD=$GPUCTL_RUN_DIR/prefetch
MAX="--max-bytes 256M"
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 1 pages 1 hold_ms 120000 >/dev/null 2>&1 &
P=$!
sleep 0.5

left=0 refused=0
for i in $(seq 0 29); do
	if [ $((i % 2)) = 0 ]; then
		$G prefetch load none -p $P $MAX >/dev/null 2>&1 &
		kp=$!
	else
		$G prefetch load none -p $P --detach $MAX >/dev/null 2>&1 &
		kp=$!
	fi
	usleep $((i * 20000))
	kill -9 $kp 2>/dev/null
	wait $kp 2>/dev/null
	# a detached engine that got away (forked before the kill): killed too, once its pid file names it
	sleep 0.3
	ep=$(cut -d" " -f1 "$RD/$P.pid" 2>/dev/null)
	[ -n "$ep" ] && [ "$ep" != "$kp" ] && kill -9 "$ep" 2>/dev/null && sleep 0.1
	$G prefetch show >/dev/null 2>&1
	if [ -n "$(ls -A "$RD" 2>/dev/null)" ]; then
		left=$((left + 1))
		echo "# kill after $((i * 20)) ms: left $(ls -A "$RD" | tr '\n' ' ')"
		rm -f "$RD"/* "$RD"/.[0-9]*	# counted once, not again at each later kill
	fi
	# and the next engine starts at once
	if ! $G prefetch load none -p $P --detach $MAX >/dev/null 2>"$T_DIR/err"; then
		refused=$((refused + 1))
		echo "# after kill at $((i * 20)) ms a new engine was refused: $(cat "$T_DIR/err")"
	fi
	$G prefetch unload -p $P >/dev/null 2>&1
done
# the temporary file of a <P>.stats being renamed when the kill came: swept
# with the rest once no engine runs on P; kept while one does; nothing else
: >"$RD/.$P.stats.0badf00d.tmp"
: >"$RD/.$P.stats.notours.tmp"
$G prefetch show >/dev/null 2>&1
[ ! -e "$RD/.$P.stats.0badf00d.tmp" ] && ok "a killed engine's stats temporary file swept" ||
	fail "stats tmp" "$(ls -A "$RD" | tr '\n' ' ')"
[ -e "$RD/.$P.stats.notours.tmp" ] && ok "a file not named as safefile names them: left alone" ||
	fail "other tmp" "removed"
rm -f "$RD/.$P.stats.notours.tmp"
expect_exit 0 $G prefetch load none -p $P --detach $MAX
: >"$RD/.$P.stats.12345678.tmp"
$G prefetch show >/dev/null 2>&1
[ -e "$RD/.$P.stats.12345678.tmp" ] && ok "a running engine's temporary file kept" || fail "live tmp" "removed"
$G prefetch unload -p $P >/dev/null 2>&1
$G prefetch show >/dev/null 2>&1
[ -z "$(ls -A "$RD" 2>/dev/null)" ] && ok "its engine gone: nothing left" || fail "after unload" "$(ls -A "$RD" | tr '\n' ' ')"
[ $left = 0 ] && ok "30 kills -9: no run file left after the next command" ||
	fail "run files left" "$left of 30 kills left files"
[ $refused = 0 ] && ok "30 kills -9: the next engine started every time" ||
	fail "next engine refused" "$refused of 30"
kill $P 2>/dev/null
summary
