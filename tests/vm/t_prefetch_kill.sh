#!/bin/sh
# kill -9 at any point of `prefetch load` leaves either nothing attached or a
# complete pinned policy, never a half state.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

PIN=/sys/fs/bpf/gpuctl/prefetch
attached=0 nothing=0 bad=0

policy_active()	# the model's decisions go to a policy
{
	model_run seq blocks 4
	[ "$(stat_of decisions_native)" -eq 0 ]
}

# Kill at 20 points spread over one load's duration (measured here).
dur=$(tests/tools/timeit 1 gpuctl prefetch load always_max)
gpuctl prefetch unload >/dev/null
echo "# one load takes ${dur}us here"
for i in $(seq 0 19); do
	d=$((dur * i / 16))
	gpuctl prefetch load always_max >/dev/null 2>&1 &
	pid=$!
	usleep $d
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ -e $PIN/link ]; then
		OUT=$(gpuctl -j prefetch show)
		if [ "$(json_get .policy)" = always_max ] && policy_active; then
			attached=$((attached + 1))
		else
			bad=$((bad + 1))
			fail "kill after ${d}us" "pinned but incomplete: $OUT"
		fi
	else
		# the killed process's link goes away when its fd closes (async)
		i=0
		while policy_active && [ $i -lt 20 ]; do usleep 100000; i=$((i + 1)); done
		if policy_active; then
			bad=$((bad + 1))
			fail "kill after ${d}us" "attached without a pin"
		else
			nothing=$((nothing + 1))
		fi
	fi
	gpuctl prefetch unload >/dev/null 2>&1
done

echo "# outcomes: $attached complete pinned policy, $nothing nothing attached, $bad half state"
[ $bad -eq 0 ] && ok "no half state after kill -9 at 20 points of load" ||
	fail "no half state" "$bad half states"
[ $attached -gt 0 ] && [ $nothing -gt 0 ] && ok "both outcomes seen (kills landed before and after the commit)" ||
	fail "both outcomes seen" "attached $attached, nothing $nothing"
expect_exit 0 gpuctl prefetch show
expect_out "clean afterwards" "no policy loaded"
[ -z "$(ls $PIN 2>/dev/null)" ] && ok "no leftover pins after the next command" ||
	fail "no leftover pins" "$(ls -R $PIN)"
summary
