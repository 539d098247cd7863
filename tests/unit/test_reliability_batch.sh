#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 32 (lesser): batch and shell read command lines in time linear in
# their length and within a bound.  A command continued over 50,000 lines
# runs in well under a second (it took 40 s: each line re-joined and
# re-split the whole command); a line or command longer than 1 MiB, and
# /dev/zero (one endless line of NUL bytes) under a memory limit, end with
# one Error line and exit 2 instead of exit 0 having run nothing.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR

# "probe" + 50,000 continuation lines of 16 blanks each (800 KB) + "help"
python3 -c '
import sys
sys.stdout.write("probe \\\n" + (" " * 16 + "\\\n") * 50000 + "help\n")' >"$T/long"
for mode in batch shell; do
	t0=$(date +%s%N)
	if [ $mode = batch ]; then
		expect_exit 0 timeout 30 "$G" batch file "$T/long"
	else
		expect_exit 0 timeout 30 sh -c '"$1" shell < "$2"' sh "$G" "$T/long"
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_out "$mode: the 50,000-line command ran" '^Usage: gpuctl probe'
	[ $ms -lt 3000 ] && ok "$mode: a command continued over 50,000 lines in $ms ms" ||
		fail "$mode: a command continued over 50,000 lines is quick" "$ms ms"
done

# one line over the bound, and a continued command over it
python3 -c 'import sys; sys.stdout.write("probe " + "a" * (1 << 21) + "\n")' >"$T/wide"
expect_exit 2 "$G" batch file "$T/wide" && expect_stderr_line "batch: a 2 MiB line"
case $ERR in *"longer than 1 MiB"*) ok "batch: a 2 MiB line: says why" ;;
*) fail "batch: a 2 MiB line: says why" "${ERR:0:200}" ;; esac
python3 -c '
import sys
sys.stdout.write("probe \\\n" + ("a" * 1000 + "\\\n") * 2000 + "help\n")' >"$T/tall"
expect_exit 2 "$G" batch file "$T/tall" && expect_stderr_line "batch: a 2 MB continued command"
case $ERR in "Error: batch line 1: "*"longer than 1 MiB"*) ok "batch: a 2 MB command: says where and why" ;;
*) fail "batch: a 2 MB command: says where and why" "${ERR:0:200}" ;; esac

# /dev/zero: one endless line of NUL bytes, under a memory limit and without
expect_exit 2 bash -c 'ulimit -v 300000; exec "$1" batch file /dev/zero' sh "$G" &&
	expect_stderr_line "batch file /dev/zero under a memory limit"
expect_exit 2 timeout 30 "$G" batch file /dev/zero && expect_stderr_line "batch file /dev/zero"
expect_exit 2 bash -c 'ulimit -v 300000; exec "$1" shell < /dev/zero' sh "$G" &&
	expect_stderr_line "shell < /dev/zero under a memory limit"
case $ERR in *"longer than 1 MiB"*) ok "shell < /dev/zero: says why" ;;
*) fail "shell < /dev/zero: says why" "$ERR" ;; esac

# a directory as the batch file: the read fails, one Error line, exit 1
expect_exit 1 "$G" batch file "$T" && expect_stderr_line "batch file DIRECTORY"
summary
