#!/bin/sh
# Concurrent state changes of each policy object: rounds of parallel loads,
# hot swaps, sets and unloads.  Every command ends with exit 0, 1 or 2 (one
# error line) and never a signal; afterwards there is exactly one policy,
# complete (its link, its one map directory, shown, deciding), or none (no
# link, no map directory, the driver deciding), never a half state.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

ROUNDS=${ROUNDS:-6}
sleep 1000 & P0=$!
echo 4 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/uvm_perf_fault_replay_policy

settle()	# settle OBJ ROUND: exactly one complete policy or none
{
	obj=$1 r=$2 pin=/sys/fs/bpf/gpuctl/$1
	OUT=$(gpuctl -j "$obj" show)
	pol=$(json_get .policy)
	ndirs=$(ls $pin 2>/dev/null | grep -c '^[0-9]')
	if [ "$pol" = null ] || [ -z "$pol" ]; then
		[ ! -e $pin/link ] && [ "$ndirs" = 0 ] && none=$((none + 1)) ||
			fail "$obj round $r: nothing loaded, nothing pinned" "$(ls $pin)"
	else
		id=$(json_get .map_id)
		[ -e $pin/link ] && [ "$ndirs" = 1 ] && [ -d $pin/$id ] && one=$((one + 1)) ||
			fail "$obj round $r: $pol complete, one map directory" "$(ls $pin) (map $id)"
		[ -z "$(json_get .leftovers)" ] || fail "$obj round $r: no leftovers" "$OUT"
	fi
	case $obj in
	prefetch)
		model_run seq blocks 4
		if [ "$pol" = null ]; then
			i=0; while [ "$(stat_of decisions_native)" = 0 ] && [ $i -lt 30 ]; do
				usleep 100000; model_run seq blocks 4; i=$((i + 1)); done
			[ "$(stat_of decisions_native)" -gt 0 ] || fail "prefetch round $r: none decides" "$STATS"
		else
			[ "$(stat_of decisions_native)" = 0 ] || fail "prefetch round $r: $pol decides" "$STATS"
		fi ;;
	esac
}

run_bg()	# run_bg CMD...: in the background, its exit status into $T_DIR/rc.N
{
	n=$((n + 1))
	( "$@" >/dev/null 2>"$T_DIR/err.$n"; echo $? >"$T_DIR/rc.$n" ) &
	jobs="$jobs $!"
}

check_rcs()
{
	i=1
	while [ $i -le $n ]; do
		rc=$(cat "$T_DIR/rc.$i")
		case $rc in
		0) ;;
		1|2) [ "$(grep -c '' "$T_DIR/err.$i")" = 1 ] && grep -q '^Error: ' "$T_DIR/err.$i" ||
			fail "$1: command $i: one error line" "$(head -c 300 "$T_DIR/err.$i")" ;;
		*) fail "$1: command $i: exit 0, 1 or 2" "exit $rc: $(head -c 300 "$T_DIR/err.$i")" ;;
		esac
		rm -f "$T_DIR/rc.$i" "$T_DIR/err.$i"
		i=$((i + 1))
	done
}

one=0 none=0
failed_before=$T_FAIL
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	n=0 jobs=
	run_bg gpuctl prefetch load stride
	run_bg gpuctl prefetch load always_max
	run_bg gpuctl prefetch set degree 3
	run_bg gpuctl prefetch load thrashing
	[ $((r % 2)) = 0 ] && run_bg gpuctl prefetch unload
	run_bg gpuctl prefetch load multilevel high 80
	run_bg gpuctl evict load lfu
	run_bg gpuctl evict load priority pid $P0 high
	run_bg gpuctl evict set pid $P0 low
	run_bg gpuctl evict set min_freq 4
	[ $((r % 3)) = 0 ] && run_bg gpuctl evict unload
	run_bg gpuctl evict load quota pid $P0 40
	run_bg gpuctl replay load once
	run_bg gpuctl replay load adaptive every 8
	run_bg gpuctl replay set every 5
	[ $((r % 2)) = 1 ] && run_bg gpuctl replay unload
	run_bg gpuctl replay load batch
	wait $jobs
	check_rcs "round $r"
	for obj in prefetch evict replay; do settle $obj $r; done
done
echo "# $one objects with one complete policy, $none with none, over $ROUNDS rounds"
[ $T_FAIL = $failed_before ] && ok "$ROUNDS rounds of parallel loads/sets/unloads: never a half state" ||
	fail "never a half state" "see above"

# parallel unloads of a loaded policy: one unloads it, the others find nothing
for obj in prefetch evict replay; do
	gpuctl $obj load "$(gpuctl $obj list | awk 'NR == 1 { print $1 }')" >/dev/null
	n=0 jobs=
	for i in 1 2 3 4; do run_bg gpuctl $obj unload; done
	wait $jobs
	check_rcs "$obj parallel unloads"
	settle $obj unload
	[ "$pol" = null ] && ok "$obj: parallel unloads leave nothing" || fail "$obj parallel unloads" "$pol"
done
echo 2 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/uvm_perf_fault_replay_policy
kill $P0
summary
