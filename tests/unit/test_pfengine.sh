#!/bin/sh
# Unit test: the prefetch engine's policies on crafted fault streams, their
# parameters, the maps parser and UUID forms (tests/unit/pfengine_test.c).
# Built here with cc from cmd/pfengine/{policies,maps,uvm}.c; no root, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-pfe.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Icmd -Icmd/lib -Icmd/drv -Ibpf -o "$T/pfe" tests/unit/pfengine_test.c \
	cmd/pfengine/policies.c cmd/drv/uvm_maps.c cmd/drv/uvm.c cmd/lib/output.c cmd/lib/param.c \
	cmd/lib/json_writer.c cmd/lib/clock.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 800 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/pfe" 2>/dev/null
