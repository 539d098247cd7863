#!/bin/sh
# Unit test: the one option parser (cmd/lib/opts.c, tests/unit/opts_test.c)
# with the shared layer under it, built here with cc under ASan and UBSan;
# no root, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-opts.XXXXXX")
trap 'rm -rf "$T"' EXIT
FLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation -fsanitize=address,undefined -fno-sanitize-recover=undefined -Icmd -Icmd/lib"
if ! ${CC:-cc} $FLAGS -o "$T/opts" tests/unit/opts_test.c cmd/lib/opts.c cmd/lib/units.c cmd/lib/target.c \
	cmd/lib/output.c cmd/lib/json_writer.c cmd/lib/text.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 1500 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/opts"
rc=$?
[ $rc -eq 0 ] || echo "FAIL opts_test exited $rc"
