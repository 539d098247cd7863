#!/bin/sh
# issue 42 (lesser): the allocation watcher's calls in flight (one entry per
# thread inside mmap, munmap, mremap or mprotect, host-wide) were 4096 for
# every watched process together, and a call that found them taken was
# dropped with no count.  A watched process with 5000 threads mapping and
# unmapping at once (most of them inside the call, waiting for the address
# space's lock) beside a second engine's process that makes 8 allocations:
# the second engine sees each of them and loses nothing; the first one's
# calls beyond its share (AW_CALLS_PER_TARGET) are counted as lost
# (alloc_events_lost), not dropped unsaid.
. "$(dirname "$0")/../lib.sh"
G=$GPUCTL
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
MAX="--max-bytes 256M"
jnum() { printf '%s\n' "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" | head -1; }

uvmsim reset va_blocks 64 >/dev/null
$G -j prefetch load none $MAX -- uvmsim run seq blocks 1 pages 1 storm 5000 storm_ms 9000 hold_ms 10000 \
	>"$T_DIR/e1.out" 2>"$T_DIR/e1.err" &
E1=$!
sleep 4
expect_exit 0 $G -j prefetch load populate $MAX -- uvmsim run alloc blocks 16 alloc 2 touch_ms 80 life_ms 100 \
	wait_ms 500 gap_ms 20 hold_ms 300
echo "# beside: $(printf "%s" "$OUT" | tr "," "\n" | grep -E "alloc_events_lost|allocs|maps_reads" | tr "\n" " ")"
A=$(jnum "$OUT" allocs) L=$(jnum "$OUT" alloc_events_lost) M=$(jnum "$OUT" allocs_missed)
[ -n "$A" ] && [ "$A" -ge 8 ] && ok "beside the storm: each of the 8 allocations seen (allocs $A)" ||
	fail "beside the storm: allocations seen" "allocs '$A': $OUT"
[ "$L" = 0 ] && ok "beside the storm: no allocation event lost" || fail "beside the storm: lost" "'$L': $OUT"
[ "$M" = 0 ] && ok "beside the storm: none missed" || fail "beside the storm: missed" "'$M': $OUT"
wait $E1
E1OUT=$(cat "$T_DIR/e1.out")
L1=$(jnum "$E1OUT" alloc_events_lost)
echo "# storm engine: $(printf "%s" "$E1OUT" | tr "," "\n" | grep -E "alloc_events_lost|allocs\"|maps_reads" | tr "\n" " ")"
[ -n "$L1" ] && [ "$L1" -gt 0 ] && ok "the storm's own engine: calls over its share counted as lost ($L1)" ||
	fail "the storm's engine: lost counted" "'$L1': $E1OUT $(cat "$T_DIR/e1.err")"
summary
