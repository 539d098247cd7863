#!/bin/sh
# Unit test: the engine's allocation table (cmd/pfengine/allocs.c) on
# crafted watcher events (tests/unit/allocs_test.c); no root, no BPF.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-allocs.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Icmd -Icmd/lib -Icmd/drv -Icmd/pfengine -Ibpf -o "$T/allocs" \
	tests/unit/allocs_test.c cmd/pfengine/allocs.c cmd/drv/uvm_maps.c cmd/lib/clock.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 800 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/allocs"
