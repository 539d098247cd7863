#!/bin/sh
# kill -9 at every step of load, hot swap and unload.  Each step is reached
# exactly through gpuctl's test hook: GPUCTL_TEST_STOP=STEP makes gpuctl
# stop itself (SIGSTOP) when it gets there; the test waits until the process
# is stopped, then kills it with SIGKILL.  Afterwards the state is the one
# before or the one asked for, complete; show tells the truth about what
# was left (a stale pin, leftover map directories with helper links still
# attached); the next load or unload removes every leftover.
#
# Steps: load/swap: locked, loaded (object in the kernel), pinned (its maps
# pinned), helpers (its helper links attached and pinned), attached (fresh
# attach: the link exists, not yet pinned), committed (link pinned or
# swapped, old map directories not yet removed); unload: detached, unpinned.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

PIN=/sys/fs/bpf/gpuctl/prefetch

active()	# the policy decides (not the driver's default)
{
	model_run seq blocks 4
	[ "$(stat_of decisions_native)" -eq 0 ]
}
native()	# the driver decides, once the killed process's link is gone (async)
{
	i=0
	while active && [ $i -lt 30 ]; do usleep 100000; i=$((i + 1)); done
	! active
}
dirs() { ls $PIN 2>/dev/null | grep -c '^[0-9]'; }
helper_links() { find $PIN -name 'link_*' 2>/dev/null | grep -c ''; }
clean() { [ ! -e $PIN/link ] && [ "$(dirs)" = 0 ]; }

# stop_kill STEP CMD...: run CMD until it stops at STEP, then SIGKILL it.
stop_kill()
{
	step=$1
	shift
	GPUCTL_TEST_STOP=$step "$@" >/dev/null 2>&1 &
	pid=$!
	i=0 st=
	while [ $i -lt 300 ]; do
		st=$(awk '{ print $3 }' /proc/$pid/stat 2>/dev/null)
		[ "$st" = T ] || [ -z "$st" ] && break
		usleep 20000
		i=$((i + 1))
	done
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ "$st" = T ] && ok "$step: stopped there and killed" ||
		fail "$step: reached" "process state '$st' (no stop at $step?)"
}

show_says()	# show_says NAME REGEX: text show has a line matching REGEX
{
	expect_exit 0 gpuctl prefetch show
	expect_out "$1" "$2"
}

# --- fresh load of thrashing (it has a helper fexit link) --------------------
for step in locked loaded pinned helpers attached committed; do
	stop_kill $step gpuctl prefetch load thrashing
	case $step in
	committed)
		active && ok "load killed at $step: the policy is attached" ||
			fail "load killed at $step: attached" "$STATS"
		OUT=$(gpuctl -j prefetch show)
		expect_json_eq "load killed at $step: shown" .policy thrashing
		;;
	*)
		native && ok "load killed at $step: nothing attached" ||
			fail "load killed at $step: nothing attached" "$STATS"
		[ ! -e $PIN/link ] && ok "load killed at $step: no link pinned" ||
			fail "load killed at $step: no link" "$(ls $PIN)"
		if [ "$(dirs)" != 0 ]; then
			show_says "load killed at $step: show reports the leftover" "^prefetch: no policy loaded"
			expect_out "load killed at $step: show names the leftover" "leftover"
			[ "$(helper_links)" = 0 ] ||
				expect_out "load killed at $step: show counts its helper links" "helper link"
		fi
		;;
	esac
	expect_exit 0 gpuctl prefetch unload
	clean && [ "$(helper_links)" = 0 ] && ok "load killed at $step: unload removed every leftover" ||
		fail "load killed at $step: unload removed leftovers" "$(find $PIN)"
done
# a leftover is also removed by the next load
stop_kill helpers gpuctl prefetch load thrashing
expect_exit 0 gpuctl prefetch load none
[ "$(dirs)" = 1 ] && [ "$(helper_links)" = 0 ] && ok "the next load removed the leftover" ||
	fail "the next load removed the leftover" "$(find $PIN)"
expect_exit 0 gpuctl prefetch unload

# --- hot swap always_max -> thrashing ------------------------------------------
for step in locked loaded pinned helpers committed; do
	expect_exit 0 gpuctl prefetch load always_max
	stop_kill $step gpuctl prefetch load thrashing
	OUT=$(gpuctl -j prefetch show)
	if [ $step = committed ]; then
		expect_json_eq "swap killed at $step: the new policy" .policy thrashing
		show_says "swap killed at $step: the old map directory is reported" "leftover"
	else
		expect_json_eq "swap killed at $step: the old policy" .policy always_max
		model_run seq blocks 4 warps 1
		[ "$(stat_of faults)" = 4 ] && ok "swap killed at $step: always_max still decides" ||
			fail "swap killed at $step: always_max decides" "$STATS"
		[ "$(dirs)" = 1 ] || show_says "swap killed at $step: the leftover is reported" "leftover"
	fi
	expect_exit 0 gpuctl prefetch load none
	[ "$(dirs)" = 1 ] && [ "$(helper_links)" = 0 ] &&
		ok "swap killed at $step: the next load left one policy" ||
		fail "swap killed at $step: next load cleans" "$(find $PIN)"
	expect_exit 0 gpuctl prefetch unload
	clean && ok "swap killed at $step: then unload leaves nothing" || fail "unload leaves nothing" "$(find $PIN)"
done

# --- unload --------------------------------------------------------------------
for step in locked detached unpinned; do
	expect_exit 0 gpuctl prefetch load thrashing
	stop_kill $step gpuctl prefetch unload
	case $step in
	locked)
		OUT=$(gpuctl -j prefetch show)
		expect_json_eq "unload killed at $step: still loaded" .policy thrashing ;;
	detached)
		native && ok "unload killed at $step: detached" || fail "unload killed at $step: detached" "$STATS"
		show_says "unload killed at $step: show says stale pin" "stale pin" ;;
	unpinned)
		native && ok "unload killed at $step: detached" || fail "unload killed at $step: detached" "$STATS"
		show_says "unload killed at $step: show reports the leftover" "leftover" ;;
	esac
	expect_exit 0 gpuctl prefetch unload
	clean && [ "$(helper_links)" = 0 ] && ok "unload killed at $step: the next unload cleans" ||
		fail "unload killed at $step: next unload cleans" "$(find $PIN)"
done

# --- a leftover map directory made by hand: show does not lie -----------------
mkdir -p $PIN/4242 && tests/tools/bpfpoke pin-map $PIN/4242/meta
show_says "hand-made leftover: no policy" "^prefetch: no policy loaded"
expect_out "hand-made leftover: reported" "leftover.*4242"
expect_exit 0 gpuctl -j prefetch show
expect_json_eq "hand-made leftover: in JSON" ".leftovers[0]" 4242
[ -d $PIN/4242 ] && ok "show removes nothing" || fail "show removes nothing" "gone"
expect_exit 0 gpuctl prefetch unload
clean && ok "unload removed the hand-made leftover" || fail "unload removed it" "$(find $PIN)"
summary
