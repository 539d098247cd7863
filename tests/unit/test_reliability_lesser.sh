#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 42, the lesser items on the host:
#  - `prefetch set -p PID KEY VALUE` with no engine anywhere (no run
#    directory) said nothing (exit 1), and `null` under -j: now one Error
#    line, {"error":...} under -j; a run directory others can write is named;
#  - `gpuctl shell` reading a line over 1 MiB stopped there: now that line is
#    refused (one Error line, {"error":...} under -j) and the next lines run;
#    an endless line (/dev/zero) still stops it with exit 2.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (CAP_BPF)"; ok "skipped"; summary; }

# --- prefetch set: every refusal says why --------------------------------------
export GPUCTL_RUN_DIR=$T/run
expect_exit 1 "$G" prefetch set -p 4194000 degree 2 && expect_stderr_line "set -p, no run directory"
expect_err "set -p, no run directory: says no engine runs" "no prefetch engine runs on process 4194000"
expect_exit 1 "$G" -j prefetch set -p 4194000 degree 2
expect_json "set -p under -j"
expect_json_eq "set -p under -j: an error, not null" .error "no prefetch engine runs on process 4194000"
mkdir -p "$T/run/prefetch"
chmod 777 "$T/run/prefetch"
expect_exit 1 "$G" prefetch set -p 4194000 degree 2 && expect_stderr_line "set -p, a run directory anyone can write"
expect_err "set -p, a run directory anyone can write: named" "$T/run/prefetch is not a directory owned by root"
chmod 755 "$T/run/prefetch"
expect_exit 1 "$G" prefetch set -p 4194000 degree 2 && expect_stderr_line "set -p, no such engine"
unset GPUCTL_RUN_DIR

# --- shell: a line over 1 MiB is refused, the rest runs -----------------------------
python3 -c '
import sys
sys.stdout.write("prefetch list\n" + "prefetch " + "a" * (3 << 20) + "\nbogus-object\nprefetch list\n")' >"$T/long"
"$G" shell <"$T/long" >"$T/out" 2>"$T/err"
RC=$?
OUT=$(cat "$T/out")
ERR=$(cat "$T/err")
[ "$(grep -c '^Error: the command is longer than 1 MiB$' "$T/err")" = 1 ] &&
	ok "shell: the 3 MiB line refused in one line" || fail "shell: the long line" "$(head -c 300 "$T/err")"
expect_err "shell: the lines after it ran (bogus-object refused)" "unknown object 'bogus-object'"
[ "$(grep -c '^none ' "$T/out")" = 2 ] && ok "shell: 'prefetch list' ran before and after it" ||
	fail "shell: prefetch list twice" "$(head -c 300 "$T/out")"
[ $RC = 0 ] && ok "shell: the last command's status (0)" || fail "shell: status" "$RC"
"$G" -j shell <"$T/long" >"$T/out" 2>"$T/err"
OUT=$(sed -n 2p "$T/out")
expect_json_eq "shell -j: the long line's document is an error" .error "the command is longer than 1 MiB"
[ "$(wc -l <"$T/out")" -ge 4 ] && ok "shell -j: a document for every line" || fail "shell -j" "$(head -c 300 "$T/out")"
expect_exit 2 sh -c 'exec timeout 30 "$1" shell </dev/zero' sh "$G" && expect_stderr_line "shell < /dev/zero"
expect_err "shell < /dev/zero: says why" "longer than 1 MiB goes on past 64 MiB"
summary
