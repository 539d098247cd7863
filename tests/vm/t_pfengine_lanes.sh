#!/bin/sh
# The engine's moves run beside its loop, several at once (cmd/pfengine/lane.c).
# The model's UVM_MIGRATE is made to take a while (uvmsim reset migrate_us: it
# sleeps outside the model's lock, and counts the calls that overlap).
#  - Three allocations made 150 ms apart (fewer than the lanes; touched by
#    the GPU at once: the calls find their pages there), each moved at
#    creation by an 800 ms call: their calls overlap, and none waits for
#    another's call before its own starts (creation to a move's start stays
#    under one call; with one lane and 400 ms calls the third waited
#    524 ms).
#  - One allocation cut into chunks: its calls never overlap (its moves stay
#    in the order the policy asked for them), all of its pages arrive.
#  - The engine's report comes after every move given to the lanes ended:
#    its ioctls are the model's calls.
#  - The process gone with moves still waiting in a lane: they are dropped,
#    not made against ranges that are gone (with every move made, 16
#    allocations moved 4 at once by 400 ms calls, the program gone 600 ms
#    after its touch: 12 calls failed, 4.8 s after it).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
MAX="--max-bytes 256M"	# no NVML in the VM

jnum() { printf '%s\n' "$OUT" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -1; }

# --- three allocations, an 800 ms call each, 150 ms apart ----------------------------
uvmsim reset va_blocks 64 migrate_us 800000 >/dev/null
# (wait_ms: the first engine in the guest loads the watcher, seconds under TCG)
expect_exit 0 $G -j prefetch load populate eager 1 $MAX -- \
	uvmsim run alloc blocks 6 alloc 2 gap_ms 150 wait_ms 5000 hold_ms 2000
STATS=$(uvmsim stats)
n=$(stat_of user_migrations) at_once=$(stat_of migrations_at_once_max)
[ "$n" -ge 3 ] && ok "a call for each of the three allocations ($n)" || fail "calls" "user_migrations $n"
[ "$at_once" -ge 2 ] && ok "the calls overlapped ($at_once at once)" ||
	fail "overlap" "migrations_at_once_max $at_once: the moves ran one at a time"
p99=$(jnum age_p99_us)
[ -n "$p99" ] && [ "$p99" -lt 800000 ] && ok "creation to a move's start under one call (P99 $p99 us)" ||
	fail "age" "age_p99_us '$p99', a call takes 800000 us: $OUT"
served=$(jnum allocs_served)
[ "$served" = 3 ] && ok "the three allocations served" || fail "served" "allocs_served '$served': $OUT"
expect_json_eq "no call refused" .errors 0 || printf "%s\n" "$ERR" | head -5
[ "$(jnum ioctls)" = "$n" ] && ok "the report counts every call the model saw ($n)" ||
	fail "report" "ioctls '$(jnum ioctls)', the model saw $n"

# --- one allocation in four chunks: its calls in order, one at a time ----------------
uvmsim reset va_blocks 64 migrate_us 150000 >/dev/null
expect_exit 0 $G -j prefetch load populate eager 1 chunk_mb 2 $MAX -- \
	uvmsim run alloc blocks 4 alloc 4 touch_ms 3000 wait_ms 3000 hold_ms 300
STATS=$(uvmsim stats)
n=$(stat_of user_migrations) at_once=$(stat_of migrations_at_once_max)
[ "$n" -ge 4 ] && ok "one call a chunk ($n)" || fail "chunk calls" "user_migrations $n"
[ "$at_once" = 1 ] && ok "one allocation's calls never overlap" ||
	fail "chunk order" "migrations_at_once_max $at_once"
[ "$(stat_of pages_migrated_user)" -ge 2048 ] && ok "all of its pages moved" ||
	fail "chunk pages" "pages_migrated_user $(stat_of pages_migrated_user)"
expect_json_eq "no chunk's call refused" .errors 0
# --- the process gone with moves still given: those not started are dropped ----------
# (one allocation in 16 chunks, a 400 ms call each, one lane: the program gone
# 600 ms after its touch, with 13 or more of them still waiting)
uvmsim reset va_blocks 64 migrate_us 400000 >/dev/null
expect_exit 0 $G -j prefetch load populate eager 1 chunk_mb 2 $MAX -- \
	uvmsim run alloc blocks 16 alloc 16 wait_ms 3000 hold_ms 600
STATS=$(uvmsim stats)
n=$(stat_of user_migrations) calls=$(jnum ioctls) errs=$(jnum errors)
[ -n "$calls" ] && [ "$calls" -ge 1 ] && [ "$calls" -le 4 ] &&
	ok "the moves left when it exited were not made ($calls calls for 16 chunks)" ||
	fail "gone" "$calls calls for 16 chunks: the engine went on after the process: $OUT"
# the call under way when it exited may fail (its range went): at most that one
[ -n "$errs" ] && [ "$errs" -le 1 ] && [ $((calls - errs)) = "$n" ] &&
	ok "only a call under way at the exit failed ($errs), the rest moved ($n)" ||
	fail "gone report" "errors '$errs' of $calls calls, the model moved $n: $OUT"
uvmsim reset va_blocks 64 >/dev/null
summary
