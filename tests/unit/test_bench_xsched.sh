#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_xsched.sh - bench/lcbe/xsched.c (the RM prototype that
# bench/mps/facts_gpu.sh builds on the GPU host) builds warning-free here, and
# refuses a missing or unknown mode and a mode short of its arguments with
# one Error line and exit 2, before it borrows any process's file.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

X=$T_DIR/xsched
if ${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -Werror -o "$X" bench/lcbe/xsched.c 2>"$T_DIR/cc.err"; then
	ok "builds with -Wall -Wextra -Werror"
else
	fail "build" "$(head -c 600 "$T_DIR/cc.err")"
	summary
fi
echo "1 3 c1d00001 5c000002" >"$T_DIR/specs"	# a process that is not ours: borrowing it would fail
refused() {	# refused NAME WHY ARGS...
	local name=$1 why=$2
	shift 2
	expect_exit 2 "$X" "$@"
	expect_stderr_line "$name"
	expect_err "$name: says what it wants" "$why"
}
refused "no mode" "usage: xsched probe\|off\|on\|scan\|var\|rotate\|hint SPECS"
refused "an unknown mode" "usage: xsched probe" bogus "$T_DIR/specs"
refused "var without its MODE and way" "usage: xsched var SPECS MODE off\|on" var "$T_DIR/specs" sched
refused "rotate without ROT_MS" "usage: xsched rotate SPECS ROT_MS" rotate "$T_DIR/specs"
refused "hint short of HOLD_MS" "usage: xsched hint SPECS FILE ROT_MS HOLD_MS" hint "$T_DIR/specs" "$T_DIR/h" 0
summary
