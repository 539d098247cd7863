#!/bin/sh
# Unit test: lc-be's LC timeslice from be-floor (cmd/sched/lcbe/words.c) and
# the warning lines run and status give for it (cmd/sched/lcbe/share.c), the
# share file stubbed (tests/unit/lcbe_floor_test.c).  Built here with cc; no
# root, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-lcbe-floor.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation \
	-Icmd -Icmd/lib -Icmd/drv -Ibpf -Ihint -o "$T/floor" tests/unit/lcbe_floor_test.c \
	cmd/sched/lcbe/words.c cmd/sched/lcbe/share.c cmd/lib/output.c \
	cmd/lib/units.c cmd/lib/json_writer.c cmd/lib/text.c -lm 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 800 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/floor"
