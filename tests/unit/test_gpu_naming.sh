#!/bin/sh
# Unit test: naming a GPU (cmd/drv/rm_gpu.c): UUID and PCI spellings,
# nvidia-smi's order, --gpu's forms; and the exporter's label rendering
# (tests/unit/exporter_labels_test.c).  Built here with cc; no root, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-gpun.XXXXXX")
trap 'rm -rf "$T"' EXIT
FLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation -fsanitize=address,undefined -fno-sanitize-recover=undefined -Icmd -Icmd/lib -Icmd/drv -Icmd/exporter -Ibpf -Ihint -Ibuild"
if ! ${CC:-cc} $FLAGS -o "$T/gn" tests/unit/gpu_naming_test.c cmd/drv/rm_gpu.c cmd/drv/rm.c 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 800 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/gn"
