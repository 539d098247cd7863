#!/bin/sh
# The engine knows allocations as they are made (tests/model's mmap of
# /dev/nvidia-uvm, watched by bpf/alloc_watch.bpf.c): allocations made and
# freed within a few ms are seen and populated, an address freed and mapped
# again (and a MAP_FIXED re-map) is a new allocation; ALLOC, FREE and GAP
# events reach a policy; the interest switch turns the driver's fault
# recording off and on (counted); a user's object built against ABI 1
# before these events existed still loads and moves pages; the watcher
# leaves nothing pinned.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
AW=/sys/fs/bpf/gpuctl/allocwatch
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
MAX="--max-bytes 256M"	# no NVML in the VM

jnum() { printf '%s\n' "$OUT" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -1; }
ge() {	# ge NAME KEY MIN
	v=$(jnum "$2")
	[ -n "$v" ] && [ "$v" -ge "$3" ] && ok "$1 ($2 $v)" || fail "$1" "$2 is '$v', want >= $3: $OUT"
}
eq() {	# eq NAME KEY V
	v=$(jnum "$2")
	[ "$v" = "$3" ] && ok "$1 ($2 $v)" || fail "$1" "$2 is '$v', want $3: $OUT"
}

# --- short-lived allocations: each seen, populated, freed ---------------------
uvmsim reset va_blocks 64 >/dev/null
# (the first engine in the guest loads the watcher: seconds under TCG)
expect_exit 0 $G -j prefetch load populate $MAX -- uvmsim run alloc blocks 16 alloc 2 touch_ms 80 life_ms 100 wait_ms 5000 gap_ms 20 hold_ms 300
STATS=$(uvmsim stats)
eq "watcher: allocations from the watcher" alloc_watcher 1
ge "watcher: each allocation made was seen" allocs 8
ge "watcher: each one freed was seen" frees 8
ge "populate: the short-lived allocations served" allocs_served 8
eq "populate: none missed" allocs_missed 0
ge "age: measured" age_p99_us 1
expect_json_expr "age: -j's age_hist_us holds the allocations served, in order, its P99 the report's" \
	'(lambda h, n: 1 <= n <= j["allocs_served"] and all(a[0] < b[0] for a, b in zip(h, h[1:])) and
	 [u for u, k in h for _ in range(k)][-(-99 * n // 100) - 1] == j["age_p99_us"])(
	 j["age_hist_us"], sum(k for _, k in j["age_hist_us"]))'
eq "watcher: no maps read after the first" maps_reads 1
[ "$(stat_of user_migrations)" -ge 8 ] && ok "populate: UVM_MIGRATE for each allocation" ||
	fail "populate migrations" "$STATS"
expect_json_eq "populate: no call refused" .errors 0
ge "interest: faults off once all allocations faulted" faults_off 1
ge "interest: on again for a new allocation" faults_on 1
[ -z "$(ls -A $AW 2>/dev/null)" ] && ok "watcher: the last engine out removed it" ||
	fail "watcher left" "$(ls -A $AW)"

# --- the same address freed and mapped again, and a MAP_FIXED re-map ------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate eager 1 $MAX -- uvmsim run alloc blocks 8 alloc 2 reuse 1 life_ms 30 wait_ms 300 gap_ms 20 hold_ms 300
ge "reuse: four allocations at one address" allocs 4
ge "reuse: four frees" frees 4
ge "reuse: populate forgot each freed one" freed 3
ge "reuse: and moved each new one at one address" eager_moved 4
eq "reuse: eager moves go to the process's GPU (none dropped)" dropped_requests 0
[ "$(uvmsim stats | awk '$1 == "user_migrations" { print $2 }')" -ge 4 ] && ok "reuse: each eager move a UVM_MIGRATE" ||
	fail "reuse migrations" "$(uvmsim stats)"
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate $MAX -- uvmsim run alloc blocks 8 alloc 2 reuse 1 fixed 1 life_ms 30 wait_ms 300 gap_ms 20 hold_ms 300
ge "MAP_FIXED re-map: each a new allocation" allocs 4
ge "MAP_FIXED re-map: the one replaced freed" frees 4

# --- events of each kind reach a policy; a gap when the watcher's ring overflows --
uvmsim reset va_blocks 64 >/dev/null
$G -j prefetch load file tests/policies/engine_kinds.elf $MAX -- \
	uvmsim run alloc blocks 8 alloc 2 life_ms 20 wait_ms 9000 churn 10000 gap_ms 20 hold_ms 300 \
	>"$T_DIR/kinds.out" 2>"$T_DIR/kinds.err" &
GP=$!
n=0	# the engine attached: its stats file says so
until grep -qs '^alloc_watcher 1' "$GPUCTL_RUN_DIR"/prefetch/*.stats || [ $n -ge 200 ]; do
	sleep 0.05; n=$((n + 1))
done
kill -STOP $GP; sleep 5; kill -CONT $GP
wait $GP; RC=$?
OUT=$(cat "$T_DIR/kinds.out")
[ $RC -eq 0 ] && ok "kinds: the engine ran" || fail "kinds rc" "$RC $(cat "$T_DIR/kinds.err")"
ge "kinds: faults" n_fault 1
ge "kinds: ALLOC" n_alloc 4
ge "kinds: FREE" n_free 4
ge "kinds: a GAP when the watcher's ring overflowed" n_gap 1
ge "kinds: the gap says how many" n_gap_lost 1
ge "kinds: the lost events counted" alloc_events_lost 1
eq "kinds: no unknown kind" n_other 0

# --- none wants nothing: the driver records no fault for it -------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load none $MAX -- uvmsim run seq blocks 16 wait_ms 300 slice 32 gap_ms 20
STATS=$(uvmsim stats)
eq "none: the queue opened with recording off (nothing to turn off)" faults_off 0
eq "none: never on" faults_on 0
eq "none: no fault recorded" faults 0
[ -z "$(jnum driver_gpu_faults)" ] && ok "none: no driver counter enabled" ||
	fail "none: driver counters" "$OUT"

# --- a policy that wants every fault gets every fault ---------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load stream $MAX -- uvmsim run seq blocks 16 wait_ms 300 slice 32 gap_ms 20
eq "stream: recording never off" faults_off 0
eq "stream: every fault seen" faults "$(jnum driver_gpu_faults)"

# --- an object built against ABI 1 before this change ----------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load file tests/policies/engine_example_v1.elf $MAX ahead 3 -- uvmsim run seq blocks 16 wait_ms 300 slice 32 gap_ms 20
STATS=$(uvmsim stats)
ge "v1 object: loads and asks" asked 1
[ "$(stat_of pages_migrated_user)" -gt 0 ] && ok "v1 object: pages moved" || fail "v1 moved" "$STATS"
eq "v1 object: gets every fault (no PFE_WANTS)" faults_off 0

# --- kill -9 of an engine whose process lives on: the next command sweeps the watcher --
uvmsim reset va_blocks 64 >/dev/null
$G prefetch load populate $MAX -- uvmsim run seq blocks 4 wait_ms 300 hold_ms 20000 >/dev/null 2>&1 &
GP=$!
n=0
until [ -e $AW/targets ] && grep -qs '^alloc_watcher 1' "$GPUCTL_RUN_DIR"/prefetch/*.stats || [ $n -ge 300 ]; do
	sleep 0.05; n=$((n + 1))
done
[ -e $AW/link_enter ] && ok "kill -9: the watcher was attached" || fail "kill -9 setup" "$(ls -A $AW 2>&1)"
SIMP=$(pgrep -P $GP uvmsim || pgrep -x uvmsim | head -1)
kill -9 $GP; wait $GP 2>/dev/null
expect_exit 0 $G -j prefetch show
[ -z "$(ls -A $AW 2>/dev/null)" ] && ok "kill -9: the next command removed the watcher (its process still runs)" ||
	fail "kill -9 watcher left" "$(ls -A $AW) sim $SIMP"
[ -n "$SIMP" ] && kill "$SIMP" 2>/dev/null

# --- without the watcher (no bpffs): the maps on demand --------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 env GPUCTL_BPFFS=/nonexistent $G -j prefetch load populate $MAX -- uvmsim run alloc blocks 16 alloc 2 life_ms 60 wait_ms 300 gap_ms 20 hold_ms 300
ge "no bpffs: the engine's own watcher" alloc_watcher 1
ge "no bpffs: allocations seen" allocs 8
[ -z "$(ls -A $AW 2>/dev/null)" ] && ok "nothing pinned at the end" || fail "pinned" "$(ls -A $AW)"
summary
