#!/bin/sh
# Unit test: lc-p99's loop (cmd/sched/lcbe/target.c) window by window
# (tests/unit/sched_target_confirm_test.c): a miss on RM's values confirmed
# by a span without it before the rung leaves them (a burst stays on RM's,
# a sustained miss steps GATE_LAT_SPAN windows later, a kept judgment
# cancels), off RM's values steps at once, mechanism mps's knob at once.
# Built here with cc; no root, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-confirm.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation \
	-Icmd -Icmd/lib -Icmd/drv -Ibpf -Ihint -o "$T/confirm" tests/unit/sched_target_confirm_test.c \
	cmd/sched/lcbe/target.c -lpthread 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 800 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/confirm"
