#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 32 (items 4-6, lesser): a user's engine object, as root's gpuctl
# reads it (cmd/lib/trustfile.c, cmd/pfengine/objcheck.c), on the host: the
# checks run before the engine needs a GPU, so a refusal is the object's and
# an acceptance ends at the next step (no nvidia-uvm-tools here, or no such
# process).  An object the verifier refuses is opened once (inotify), not
# again from its path.  A FIFO, a directory, /dev/null, a truncated ELF and a symbolic
# link are refused with one Error line in words; an object another user can
# write (its owner, its mode, a directory of its path, planted by an
# unprivileged user) is refused, the sudo user's own object in their own
# directory and one in a sticky directory are not; a program calling
# bpf_send_signal is refused unless --allow-helpers; a 256 MiB map is refused,
# a 65536-entry LRU map is not.  issue 42: the cap counts the kernel's
# memory: a 56 MiB per-CPU array and a '53 MiB' hash are refused.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (chown, setpriv)"; ok "skipped"; summary; }
POL=tests/policies
# shellcheck disable=SC2086
make -s $POL/engine_example.elf $POL/engine_bad_verifier.elf $POL/engine_signal.elf $POL/engine_bigmap.elf $POL/engine_lru.elf \
	$POL/engine_percpu.elf $POL/engine_bighash.elf \
	>"$T/make.err" 2>&1 || { fail "build the objects" "$(head -c 400 "$T/make.err")"; summary; }
NOBODY=65534
as_user() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$@"; }
chmod 711 "$T"
NOPID=4194000	# no such process: an accepted object ends there or at nvidia-uvm-tools
load() { timeout 20 "$G" prefetch load file "$@" -p $NOPID; }

# refused NAME WHY-REGEX ARGS...: exit 2, one Error line matching WHY-REGEX.
refused()
{
	local name=$1 why=$2
	shift 2
	if expect_exit 2 load "$@"; then
		expect_stderr_line "$name"
		expect_err "$name: says why" "$why"
	fi
}
# accepted NAME ARGS...: past the object's checks.
accepted()
{
	local name=$1
	shift
	load "$@" >"$T/out" 2>"$T/err" </dev/null
	RC=$?
	ERR=$(cat "$T/err")
	if [ $RC -ne 124 ] && ! grep -Eq "refusing|may not|in all|not a BPF object|cannot open" "$T/err"; then
		ok "$name: accepted"
	else
		fail "$name: accepted" "exit $RC: $ERR"
	fi
}

# --- not a regular file, not an object: words, no hang --------------------------
mkfifo "$T/fifo"
refused "a FIFO (no hang)" "not a regular file \(a FIFO\)" "$T/fifo"
refused "a directory" "not a regular file \(a directory\)" "$T"
refused "/dev/null" "not a regular file \(a device\)" /dev/null
head -c 3000 $POL/engine_example.elf >"$T/trunc.o"
refused "a truncated ELF" "not a BPF object libbpf can open \(BPF object format invalid\)" "$T/trunc.o"
cp $POL/engine_example.elf "$T/good.o"
ln -s "$T/good.o" "$T/link.o"
refused "a symbolic link" "symbolic link" "$T/link.o"
accepted "root's own object" "$T/good.o"

# --- objects other users can write ------------------------------------------------
mkdir -m 1777 "$T/pub"
as_user sh -c "cat $POL/engine_example.elf >$T/pub/planted.o && chmod 644 $T/pub/planted.o"
refused "another user's object in a sticky directory" "owned by uid $NOBODY" "$T/pub/planted.o"
SUDO_UID=$NOBODY accepted "the sudo user's own object (SUDO_UID)" "$T/pub/planted.o"
cp $POL/engine_example.elf "$T/pub/root.o"
accepted "root's object in a sticky directory" "$T/pub/root.o"
as_user mkdir "$T/pub/theirs"
cp $POL/engine_example.elf "$T/pub/theirs/root.o"
refused "root's object in another user's directory" "its directory $T/pub/theirs is owned by uid $NOBODY" \
	"$T/pub/theirs/root.o"
SUDO_UID=$NOBODY accepted "an object in the sudo user's own directory" "$T/pub/theirs/root.o"
cp $POL/engine_example.elf "$T/anyone.o"
chmod 666 "$T/anyone.o"
refused "an object anyone can write" "other users can write it \(mode 0666" "$T/anyone.o"
mkdir -m 777 "$T/open"
cp $POL/engine_example.elf "$T/open/x.o"
refused "an object in a directory anyone can write (no sticky bit)" "writable by other users" "$T/open/x.o"

# --- opened once: a refusal by the verifier does not send it back to the path ----
make -s -C tests/tools opencount >"$T/make.err" 2>&1 || fail "build opencount" "$(head -c 300 "$T/make.err")"
cp $POL/engine_bad_verifier.elf "$T/refused.o"
tests/tools/opencount "$T/opens" "$T/refused.o" "$G" prefetch load file "$T/refused.o" -p $NOPID \
	>/dev/null 2>"$T/err"
[ "$(cat "$T/opens")" = 1 ] && ok "a refused object was opened once" ||
	fail "opened once" "opened $(cat "$T/opens") times: $(cat "$T/err")"

# --- what the program may do --------------------------------------------------------
refused "a program calling bpf_send_signal" "calls bpf_send_signal .*--allow-helpers" $POL/engine_signal.elf
load $POL/engine_signal.elf --allow-helpers >"$T/out" 2>"$T/err"
grep -q "bpf_send_signal" "$T/err" && fail "--allow-helpers" "$(cat "$T/err")" || ok "--allow-helpers lets it be loaded"
expect_exit 2 "$G" prefetch load stream --allow-helpers -p $NOPID
expect_stderr_line "--allow-helpers with a built-in policy"
refused "a 256 MiB map" "maps take 25[67] MiB of kernel memory .*64 MiB in all" $POL/engine_bigmap.elf
# issue 42: what the maps take of the kernel's memory, not key + value x entries
refused "a 56 MiB per-CPU array (a value per possible CPU)" \
	"maps take [0-9]* MiB of kernel memory with [0-9]* possible CPUs \(map pcpu" $POL/engine_percpu.elf
refused "a '53 MiB' hash (element headers, buckets)" \
	"maps take [5-9][0-9][0-9] MiB of kernel memory .*map h:" $POL/engine_bighash.elf
accepted "a 65536-entry LRU map" $POL/engine_lru.elf
summary
