#!/bin/sh
# An unprivileged user against every prefetch/evict/replay command, and pin
# trees planted by that user.  Read-only commands (help, list, show) create
# nothing; state-changing ones (load, set, unload) name the capability they
# lack in one line and change nothing; root never creates, follows or
# trusts a pin directory it does not own (bpffs is mode 1777), and touches
# nothing outside its own pins.
. "$(dirname "$0")/../lib.sh"

BPFFS=/sys/fs/bpf
PIN=$BPFFS/gpuctl
NOBODY=65534
as_nobody() { tests/tools/bpfpoke user $NOBODY "$@"; }
tree() { (cd $BPFFS && find . | sort | while read -r f; do stat -c '%n %u %a %F' "$f"; done); }
G=$(command -v gpuctl)

# another tool's pins, which gpuctl must never touch
mkdir -p $BPFFS/othertool
tests/tools/bpfpoke pin-map $BPFFS/othertool/map
other_ok() { [ -e $BPFFS/othertool/map ] && ok "$1: another tool's pin untouched" ||
	fail "$1: another tool's pin untouched" "$(ls -la $BPFFS/othertool)"; }

[ "$(stat -c %a $BPFFS)" = 1777 ] && ok "bpffs is mode 1777 (anybody may create in it)" ||
	fail "bpffs mode" "$(stat -c %a $BPFFS)"

# --- nothing loaded, no pin tree: read-only commands create nothing -------
rm -rf $PIN
before=$(tree)
for obj in prefetch evict replay; do
	for cmd in help list show; do
		expect_exit 0 as_nobody $G $obj $cmd
	done
	expect_exit 0 as_nobody $G -j $obj show
	expect_json_eq "unprivileged $obj show: nothing loaded" .policy null
done
[ "$(tree)" = "$before" ] && ok "unprivileged read-only commands created nothing" ||
	fail "unprivileged read-only commands created nothing" "$(tree)"

# --- unprivileged state changes: the capability, in one line -------------
needs_caps()	# needs_caps NAME CMD...: exit 1, one line naming CAP_BPF
{
	name=$1
	shift
	expect_exit 1 as_nobody "$@"
	expect_stderr_line "$name"
	case $ERR in *CAP_BPF*) ok "$name: names the capability" ;;
	*) fail "$name: names the capability" "$ERR" ;; esac
}
check_all()	# what every unprivileged state change gets, now
{
	needs_caps "prefetch load$1" $G prefetch load always_max
	needs_caps "prefetch load file$1" $G prefetch load file tests/policies/user_half.elf
	needs_caps "prefetch set$1" $G prefetch set degree 2
	needs_caps "prefetch unload$1" $G prefetch unload
	needs_caps "evict load$1" $G evict load lfu
	needs_caps "evict set$1" $G evict set min_freq 3
	needs_caps "evict set pid$1" $G evict set pid 1 high
	needs_caps "evict unload$1" $G evict unload
	needs_caps "replay load$1" $G replay load once
	needs_caps "replay set$1" $G replay set every 3
	needs_caps "replay unload$1" $G replay unload
}
check_all ""
[ "$(tree)" = "$before" ] && ok "refused state changes created nothing" ||
	fail "refused state changes created nothing" "$(tree)"

# --- root's policies loaded: the user can change none of them ------------
expect_exit 0 gpuctl prefetch load stride
expect_exit 0 gpuctl evict load lfu
expect_exit 0 gpuctl replay load once
shows=$(gpuctl -j prefetch show; gpuctl -j evict show; gpuctl -j replay show)
before=$(tree)
check_all " (loaded)"
for obj in prefetch evict replay; do
	needs_caps "$obj show of root's policy" $G $obj show
	expect_exit 0 as_nobody $G $obj list
done
[ "$(tree)" = "$before" ] && ok "loaded: the pin tree is unchanged" || fail "loaded: pin tree unchanged" "$(tree)"
[ "$(gpuctl -j prefetch show; gpuctl -j evict show; gpuctl -j replay show)" = "$shows" ] &&
	ok "loaded: every policy is as it was" || fail "loaded: policies as they were" ""
for obj in prefetch evict replay; do gpuctl $obj unload >/dev/null; done

# --- pin trees planted by the user ---------------------------------------
refused_all()	# refused_all NAME: root's commands refuse, touch nothing
{
	name=$1
	planted=$(tree)
	for args in "prefetch load always_max" "prefetch unload" "prefetch set degree 2" \
		    "evict load fifo" "evict unload" "evict set min_freq 2" \
		    "replay load once" "replay unload" "prefetch show" "evict show" "replay show"; do
		# shellcheck disable=SC2086
		expect_exit 1 gpuctl $args
		expect_stderr_line "$name: $args"
		case $ERR in *"$PIN"*) ;; *) fail "$name: $args names the directory" "$ERR" ;; esac
	done
	[ "$(tree)" = "$planted" ] && ok "$name: nothing created, moved or removed" ||
		fail "$name: nothing changed" "$(tree)"
	other_ok "$name"
	model_native=$(uvmsim reset va_blocks 64 >/dev/null && uvmsim run seq blocks 4 >/dev/null &&
		uvmsim stats | awk '$1 == "decisions_native" { print $2 }')
	[ "$model_native" -gt 0 ] && ok "$name: nothing attached" || fail "$name: nothing attached" "$model_native"
}

rm -rf $PIN
as_nobody mkdir $PIN
refused_all "gpuctl/ made by the user"
as_nobody mkdir $PIN/evict
as_nobody ln -s $BPFFS/othertool $PIN/prefetch
refused_all "gpuctl/ of the user holding a symlink"
rm -rf $PIN

as_nobody ln -s $BPFFS/othertool $PIN
refused_all "gpuctl a symlink made by the user"
rm -f $PIN

mkdir -m 0777 $PIN
refused_all "gpuctl/ world-writable"
rmdir $PIN

mkdir -m 0755 $PIN
as_nobody mkdir $PIN/x 2>/dev/null && fail "the user cannot write in root's gpuctl/" "it could" ||
	ok "the user cannot write in root's gpuctl/"
mkdir -m 1777 $PIN/prefetch
expect_exit 1 gpuctl prefetch load always_max
expect_stderr_line "prefetch/ world-writable"
as_nobody mkdir $PIN/prefetch/123 && ok "the user made prefetch/123" || fail "the user made prefetch/123" ""
expect_exit 1 gpuctl prefetch unload
expect_stderr_line "prefetch/ world-writable: unload"
[ -d $PIN/prefetch/123 ] && ok "prefetch/ world-writable: unload removed nothing" ||
	fail "world-writable: unload removed nothing" "$(ls -la $PIN/prefetch)"
other_ok "world-writable prefetch/"
rm -rf $PIN

# --- root's own tree is fine, and made only by state-changing commands --------
expect_exit 0 gpuctl prefetch show
[ ! -e $PIN ] && ok "root's show creates nothing" || fail "root's show creates nothing" "$(tree)"
expect_exit 0 gpuctl evict unload
[ ! -e $PIN/evict ] && ok "root's unload with nothing loaded creates nothing" ||
	fail "root's unload creates nothing" "$(tree)"
expect_exit 0 gpuctl prefetch load none
[ "$(stat -c '%u %a' $PIN)" = "0 700" ] && [ "$(stat -c '%u %a' $PIN/prefetch)" = "0 700" ] &&
	ok "load made root's pin directories, mode 0700" || fail "pin directories" "$(tree)"
expect_exit 0 gpuctl prefetch unload
other_ok "end"
rm -rf $BPFFS/othertool
summary
