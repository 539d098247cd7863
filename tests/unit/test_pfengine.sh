#!/bin/sh
# Unit test: the prefetch engine's BPF policies (bpf/engine_*.bpf.c) run by
# the runner (cmd/pfengine/bpfrun.c) on crafted fault streams, their
# parameters, the maps parser and UUID forms (tests/unit/pfengine_test.c).
# Built here with cc; the programs need root (BPF) on the host, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-pfe.XXXXXX")
trap 'umount "$T/bpffs" 2>/dev/null; rm -rf "$T"' EXIT
# a bpffs of its own for the pinning checks (root only; skipped without)
mkdir "$T/bpffs" && mount -t bpf bpf "$T/bpffs" 2>/dev/null && export PFE_TEST_BPFFS="$T/bpffs"
SKELS=$(for f in bpf/engine_*.bpf.c; do b=${f#bpf/}; echo "build/${b%.bpf.c}.elf.h"; done
	for f in tests/policies/engine_*.bpf.c tests/policies/wrong_type.bpf.c; do echo "${f%.bpf.c}.elf"; done)
# shellcheck disable=SC2086
if ! make -s $SKELS >"$T/make.err" 2>&1; then
	echo "FAIL build of the programs: $(head -c 800 "$T/make.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Icmd -Icmd/lib -Icmd/drv -Ibpf -Ibuild -o "$T/pfe" tests/unit/pfengine_test.c \
	cmd/pfengine/bpfrun.c cmd/pfengine/btfvar.c cmd/pfengine/pinned.c cmd/drv/uvm_maps.c cmd/drv/uvm.c cmd/lib/output.c cmd/lib/units.c cmd/lib/param.c \
	cmd/lib/json_writer.c cmd/lib/text.c cmd/lib/clock.c cmd/lib/trustfile.c cmd/pfengine/objcheck.c cmd/pfengine/mapcost.c \
	$(pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) \
	2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 800 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/pfe" 2>&1
