#!/bin/sh
# issue 42 (5): a pin directory planted under bpffs (mode 1777) by a user
# before any engine ran.  Two engines started beside it are refused with
# one Error line naming it, and attach nothing: no raw tracepoint link is
# made (543f5eb attached a private pair per engine, 4 links for two, to
# every syscall of the host); nor with a root-made gpuctl/ anyone can write;
# root's own tree is used (one shared pair), and gone with the last engine.
. "$(dirname "$0")/../lib.sh"
G=$GPUCTL
BPFFS=/sys/fs/bpf
PIN=$BPFFS/gpuctl
NOBODY=65534
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
MAX="--max-bytes 256M"
RUN="uvmsim run alloc blocks 8 alloc 2 touch_ms 50 life_ms 100 wait_ms 3000 gap_ms 20 hold_ms 300"
links() { tests/tools/bpfpoke raw-tp-links; }

chmod 1777 $BPFFS
rm -rf $PIN
[ "$(links)" = 0 ] && ok "no raw tracepoint link before" || fail "links before" "$(links)"

two_engines() {	# NAME: two engines at once; both refused, no link ever
	name=$1
	uvmsim reset va_blocks 64 >/dev/null
	$G prefetch load populate $MAX -- $RUN >"$T_DIR/a.out" 2>"$T_DIR/a.err" &
	a=$!
	$G prefetch load populate $MAX -- $RUN >"$T_DIR/b.out" 2>"$T_DIR/b.err" &
	b=$!
	most=0
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		n=$(links)
		[ "$n" -gt "$most" ] && most=$n
		kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null || break
		sleep 0.5
	done
	wait $a
	ra=$?
	wait $b
	rb=$?
	[ $ra = 1 ] && [ $rb = 1 ] && ok "$name: both engines refused (exit 1)" ||
		fail "$name: refused" "exit $ra $rb: $(cat "$T_DIR/a.err" "$T_DIR/b.err")"
	[ "$most" = 0 ] && ok "$name: no raw tracepoint link attached" ||
		fail "$name: links attached" "$most raw tracepoint links while they ran"
	ERR=$(cat "$T_DIR/a.err")
	expect_stderr_line "$name"
	expect_err "$name: names the directory and why" "$2"
}

tests/tools/bpfpoke user $NOBODY mkdir $PIN
two_engines "gpuctl/ made by a user" "$PIN is owned by uid $NOBODY"
[ "$(stat -c %u $PIN)" = $NOBODY ] && [ -z "$(ls -A $PIN)" ] &&
	ok "the user's directory: nothing put in it" || fail "planted dir" "$(ls -la $PIN)"
rm -rf $PIN
mkdir -m 0777 $PIN
two_engines "gpuctl/ anyone can write" "mode 0777"
rm -rf $PIN

# root's own tree: one shared pair for the host, gone with the last engine
uvmsim reset va_blocks 64 >/dev/null
$G prefetch load populate $MAX -- $RUN >"$T_DIR/a.out" 2>"$T_DIR/a.err" &
a=$!
$G prefetch load populate $MAX -- $RUN >"$T_DIR/b.out" 2>"$T_DIR/b.err" &
b=$!
most=0
while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do
	n=$(links)
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.3
done
wait $a
ra=$?
wait $b
rb=$?
[ $ra = 0 ] && [ $rb = 0 ] && ok "root's tree: both engines ran" ||
	fail "root's tree" "exit $ra $rb: $(cat "$T_DIR/a.err" "$T_DIR/b.err")"
[ "$most" -le 2 ] && [ "$most" -ge 1 ] && ok "root's tree: one shared pair ($most links at most)" ||
	fail "root's tree: shared pair" "$most raw tracepoint links"
[ "$(links)" = 0 ] && ok "root's tree: the last engine out removed the pair" ||
	fail "links after" "$(links)"
summary
