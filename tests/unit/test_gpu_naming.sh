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
out=$("$T/gn"); printf "%s\n" "$out" | grep -v " passed, "
set -- $(printf "%s\n" "$out" | sed -n "s/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p")
GP=${1:-0}; GF=${2:-1}
if ! ${CC:-cc} $FLAGS -DGPUCTL_VERSION='"test"' -o "$T/el" tests/unit/exporter_labels_test.c cmd/exporter/gpus.c \
	cmd/exporter/render.c cmd/exporter/om.c cmd/exporter/attr.c cmd/lib/cgroup.c cmd/lib/text.c cmd/drv/rm_gpu.c cmd/drv/rm.c 2>"$T/cc.err"; then
	echo "FAIL build exporter_labels_test: $(head -c 1500 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
out=$("$T/el" "$T/metrics.prom")
rc=$?
printf '%s\n' "$out" | grep -v ' passed, '
p=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
set -- $p
P=$((${1:-0} + GP)); F=$((${2:-1} + GF))
[ $rc -eq 0 ] || F=$((F > 0 ? F : 1))
if command -v promtool >/dev/null; then
	if promtool check metrics <"$T/metrics.prom" >"$T/pt.out" 2>&1; then
		P=$((P + 1)); echo "# promtool check metrics: clean"
	else
		F=$((F + 1)); echo "FAIL promtool check metrics: $(head -c 800 "$T/pt.out")"
	fi
fi
echo "$P passed, $F failed"
