#!/bin/sh
# Unit test: the uvm-tools queue consumer against a synthetic producer
# (wrap-around, drops, partial reads), entry decoding, record round trip.
# Built here with cc from cmd/uvm_tools.c and cmd/record.c; no root needed.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-tq.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Icmd -o "$T/tq" tests/unit/trace_queue_test.c \
	cmd/uvm_tools.c cmd/record.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 500 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/tq"
