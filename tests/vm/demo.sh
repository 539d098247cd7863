#!/bin/sh
# make demo: gpuctl loads prefetch policies into a real kernel (Debian 6.12 in
# QEMU) whose UVM model calls them, and the driver's decisions change.
cd "$(dirname "$0")/../.." || exit 1

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
measure() {	# one sequential pass over 16 VA blocks (32 MiB), 16 warps
	uvmsim reset va_blocks 64
	uvmsim run seq blocks 16
	uvmsim stats | awk '$1 ~ /^(accesses|faults|pages_migrated|pages_prefetched|prefetch_hits|decisions_native|act_bypass)$/ { printf "  %-18s %s\n", $1, $2 }'
}

echo "== gpuctl demo: the UVM model's prefetch decisions under BPF policies =="
say gpuctl probe
echo; echo "-- the driver's own prefetcher (51 % bitmap tree):"
measure
say gpuctl prefetch list
say gpuctl prefetch load always_max
echo "-- always_max: every fault prefetches the rest of its 2 MiB block:"
measure
say gpuctl prefetch show
say gpuctl prefetch load none
echo "-- none (swapped in atomically): only faulted pages move:"
measure
say gpuctl -j prefetch show
say gpuctl prefetch unload
echo "-- back to the default, same numbers as before:"
measure
