#!/bin/sh
# Unit test: the engine's flush order (cmd/pfengine/feed.c, tests/unit/feed_test.c):
# a new allocation's move before the rest of a large one's; no root, no BPF.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-feed.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Icmd -Icmd/lib -Icmd/drv -Icmd/pfengine -Ibpf -Ibuild -o "$T/feed" \
	tests/unit/feed_test.c cmd/pfengine/allocs.c cmd/drv/uvm_maps.c cmd/lib/clock.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 1500 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/feed"
