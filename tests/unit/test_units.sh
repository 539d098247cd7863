#!/bin/sh
# Unit test: the grammar of sizes, durations and percentages
# (cmd/lib/units.c, tests/unit/units_test.c).  Built here with cc under
# ASan and UBSan; no root, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-units.XXXXXX")
trap 'rm -rf "$T"' EXIT
FLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation -fsanitize=address,undefined -fno-sanitize-recover=undefined -Icmd -Icmd/lib"
if ! ${CC:-cc} $FLAGS -o "$T/units" tests/unit/units_test.c cmd/lib/units.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 1500 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/units"
rc=$?
[ $rc -eq 0 ] || echo "FAIL units_test exited $rc"
