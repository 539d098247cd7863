#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 23: every file gpuctl writes (cmd/lib/safefile.c), driven on the
# writers that run on the host: trace report --svg and exporter textfile
# --output (trace record -o runs in tests/vm/t_reliability_pids.sh).  Per
# writer: a symbolic link, a device node (a copy of /dev/full), a directory
# and a FIFO given as the output are refused with one Error line, exit 1,
# and left as they were; in a world-writable sticky directory an
# unprivileged user's planted links (at the output, at OUTPUT.tmp) are
# neither followed nor replaced; a full disk (RLIMIT_FSIZE) leaves what
# was at the output and no temporary file; a regular file is replaced.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mknod, setpriv)"; ok "skipped"; summary; }

if ! ${CC:-cc} -std=gnu11 -O1 -Wall -Wextra -Werror -Icmd -Icmd/lib -Ibpf -o "$T/gen" \
	tests/fuzz/record_gen.c 2>"$T/cc.err"; then
	fail "build record_gen" "$(head -c 400 "$T/cc.err")"
	summary
fi
"$T/gen" sample "$T/s.rec" || { fail "record_gen" "no record"; summary; }
mkdir -p "$T/nobpf"
chmod 711 "$T"
NOBODY=65534
as_user() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$@"; }

# the writers: W_svg PATH, W_prom PATH
W_svg() { "$G" trace report -i "$T/s.rec" --svg "$1"; }
W_prom() { GPUCTL_BPFFS=$T/nobpf "$G" exporter textfile --output "$1"; }
# a file of the first bytes of what each writes
MAGIC_svg='<svg'
MAGIC_prom='gpuctl_exporter_build_info'

# RLIMIT_FSIZE of 512 bytes, SIGXFSZ ignored: writes fail with EFBIG
full_disk() { (trap '' XFSZ; ulimit -f 1; "$@"); }
sum() { sha256sum "$1" | cut -d' ' -f1; }
no_tmp() {	# DIR NAME: no temporary file of ours left
	if ls -a "$1" | grep -q "^\.$2\..*\.tmp$"; then
		fail "$3: temporary file left" "$(ls -la "$1")"
	else
		ok "$3: no temporary file left"
	fi
}

for w in svg prom; do
	W=W_$w
	eval magic=\$MAGIC_$w
	D=$T/$w
	mkdir -p "$D"
	echo secret >"$D/victim"
	chmod 600 "$D/victim"
	V=$(sum "$D/victim")

	# a symbolic link as the output
	ln -s victim "$D/link"
	expect_exit 1 $W "$D/link" && expect_stderr_line "$w: symlink output"
	expect_err "$w: symlink: says what it is" "symbolic link"
	[ -L "$D/link" ] && [ "$(sum "$D/victim")" = "$V" ] &&
		ok "$w: symlink and its target unchanged" || fail "$w: symlink" "changed"
	# a device node (a copy of /dev/full) as the output
	mknod "$D/full" c 1 7
	expect_exit 1 $W "$D/full" && expect_stderr_line "$w: device output"
	[ -c "$D/full" ] && ok "$w: the device node is still there" || fail "$w: device" "gone"
	# a directory, a FIFO
	mkdir "$D/dir"
	expect_exit 1 $W "$D/dir" && expect_stderr_line "$w: directory output"
	[ -d "$D/dir" ] && ok "$w: the directory is still there" || fail "$w: dir" "gone"
	expect_exit 1 $W "$D/dir/" && expect_stderr_line "$w: DIR/ output"
	mkfifo "$D/fifo"
	expect_exit 1 $W "$D/fifo" && expect_stderr_line "$w: FIFO output"
	[ -p "$D/fifo" ] && ok "$w: the FIFO is still there" || fail "$w: fifo" "gone"
	no_tmp "$D" "" "$w: refusals"

	# a regular file is replaced, atomically
	echo old >"$D/out"
	expect_exit 0 $W "$D/out"
	grep -q "$magic" "$D/out" && [ -f "$D/out" ] && [ ! -L "$D/out" ] &&
		ok "$w: a regular file is replaced" || fail "$w: replace" "$(head -c 100 "$D/out")"
	no_tmp "$D" out "$w: success"

	# a full disk: what was there stays, the temporary file goes
	echo before >"$D/keep"
	expect_exit 1 full_disk $W "$D/keep" &&
		expect_stderr_line "$w: full disk"
	[ "$(cat "$D/keep")" = before ] && ok "$w: full disk: the old file stays" ||
		fail "$w: full disk" "now $(head -c 60 "$D/keep")"
	no_tmp "$D" keep "$w: full disk"

	# an unprivileged user's plants in a sticky world-writable directory
	P=$D/pub
	mkdir -m 1777 "$P"
	as_user ln -s ../victim "$P/out.tmp"
	as_user ln -s ../victim "$P/.out.tmp"
	as_user ln -s ../victim "$P/trap"
	expect_exit 0 $W "$P/out"
	[ "$(sum "$D/victim")" = "$V" ] && ok "$w: planted OUT.tmp links not followed" ||
		fail "$w: planted tmp" "victim changed"
	[ -L "$P/out.tmp" ] && [ -L "$P/.out.tmp" ] && ok "$w: planted links left alone" ||
		fail "$w: planted links" "removed"
	[ "$(stat -c %u "$P/out")" = 0 ] && [ ! -L "$P/out" ] && grep -q "$magic" "$P/out" &&
		ok "$w: the output is root's regular file" || fail "$w: output" "$(ls -la "$P")"
	expect_exit 1 $W "$P/trap" && expect_stderr_line "$w: planted link as the output"
	[ "$(sum "$D/victim")" = "$V" ] && [ -L "$P/trap" ] &&
		ok "$w: planted output link: victim unchanged" || fail "$w: trap" "changed"
	no_tmp "$P" out "$w: plants"
done
summary
