#!/bin/sh
# The prefetch engine's BPF policies end to end on the model: thrashing and
# adaptive on crafted uvmsim streams (none/stream/stride/populate:
# t_pfengine.sh), a user's object good and bad (load file), the pinned maps,
# set/show/unload, requests to the GPU whose fault asked for them on the
# model's two GPUs (--gpu restricts), and kill -9 of the engine (nothing
# pinned is left after the next command).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
GPU0=GPU-6d6f6465-6c67-5055-8000-000000000001
GPU1=GPU-6d6f6465-6c67-5055-8000-000000000002
PINS=/sys/fs/bpf/gpuctl/engine
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
SLOW="wait_ms 300 slice 32 gap_ms 20"
MAX="--max-bytes 256M"	# no NVML in the VM

jnum() { printf '%s\n' "$OUT" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -1; }

# --- the built-in programs the old engine did not have ------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load adaptive $MAX window 8 -- uvmsim run seq blocks 48 $SLOW
STATS=$(uvmsim stats)
[ "$(jnum raised)" -ge 1 ] && ok "adaptive: the degree raised on a sequential sweep" || fail "adaptive raised" "$OUT"
[ "$(stat_of pages_migrated_user)" -gt 0 ] && ok "adaptive: blocks moved ahead" || fail "adaptive moved" "$STATS"
expect_json_eq "adaptive: no call refused" .errors 0
[ "$(jnum prog_calls)" -ge 1 ] && ok "adaptive: program runs counted ($(jnum prog_calls))" || fail "prog_calls" "$OUT"

uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load thrashing $MAX -- uvmsim run seq blocks 16 $SLOW
STATS=$(uvmsim stats)
[ "$(jnum moved)" -ge 1 ] && ok "thrashing: faulting blocks moved ($(jnum moved))" || fail "thrashing moved" "$OUT"
[ "$(stat_of pages_migrated_user)" -gt 0 ] && ok "thrashing: pages moved by UVM_MIGRATE" || fail "thrashing" "$STATS"
expect_json_eq "thrashing: no call refused" .errors 0

# --- a user's object -------------------------------------------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load file tests/policies/engine_example.elf $MAX ahead 3 -- uvmsim run seq blocks 16 $SLOW
STATS=$(uvmsim stats)
[ "$(jnum asked)" -ge 1 ] && ok "user object: its counter by its BTF name ($(jnum asked))" || fail "user asked" "$OUT"
[ "$(stat_of pages_migrated_user)" -gt 0 ] && ok "user object: pages moved" || fail "user object moved" "$STATS"
expect_json_eq "user object: its name" .policy engine_example
expect_exit 2 $G prefetch load file tests/policies/engine_bad_abi.elf $MAX -- uvmsim run seq blocks 1
expect_stderr_line "user object: another ABI version"
expect_err "user object: ABI says so" "speaks engine ABI version 99"
expect_exit 1 $G prefetch load file tests/policies/engine_bad_verifier.elf $MAX -- uvmsim run seq blocks 1
expect_stderr_line "user object: the verifier's refusal"
expect_err "user object: the verifier's reason" "the verifier refused it"
expect_exit 2 $G prefetch load file tests/policies/engine_bad_section.elf $MAX -- uvmsim run seq blocks 1
expect_err "user object: wrong section" "it has no SEC.*syscall.* program"
[ -z "$(ls -A "$GPUCTL_RUN_DIR/prefetch" 2>/dev/null)" ] && [ -z "$(ls -A $PINS 2>/dev/null)" ] &&
	ok "refused objects: nothing left behind" || fail "refused leftovers" "$(ls -A "$GPUCTL_RUN_DIR/prefetch" $PINS)"

# --- two GPUs: each request to the GPU whose fault asked for it -------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load stream $MAX -- uvmsim run seq blocks 32 gpu 1 $SLOW
STATS=$(uvmsim stats)
g0=$(stat_of pages_migrated_user_gpu0) g1=$(stat_of pages_migrated_user_gpu1)
[ "$g1" -gt 0 ] && [ "$g0" = 0 ] && ok "two GPUs: GPU 1's faults move blocks to GPU 1 ($g1 pages), none to GPU 0" ||
	fail "two GPUs: destinations" "gpu0 $g0 gpu1 $g1; $OUT"
[ "$(jnum migrated_bytes.gpu1)" -gt 0 ] && ok "two GPUs: show splits bytes by GPU" || fail "bytes by GPU" "$OUT"
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load stream $MAX -- uvmsim run seq blocks 32 gpu 0 $SLOW
STATS=$(uvmsim stats)
[ "$(stat_of pages_migrated_user_gpu0)" -gt 0 ] && [ "$(stat_of pages_migrated_user_gpu1)" = 0 ] &&
	ok "two GPUs: GPU 0's faults to GPU 0" || fail "two GPUs: GPU 0" "$STATS"
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load stream --gpu $GPU0 $MAX -- uvmsim run seq blocks 32 gpu 1 $SLOW
STATS=$(uvmsim stats)
[ "$(stat_of pages_migrated_user)" = 0 ] && [ "$(jnum faults)" = 0 ] &&
	ok "two GPUs: --gpu GPU 0 leaves GPU 1's faults alone" || fail "--gpu restricts" "$STATS; $OUT"
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load stream --gpu $GPU1 $MAX -- uvmsim run seq blocks 32 gpu 1 $SLOW
STATS=$(uvmsim stats)
[ "$(stat_of pages_migrated_user_gpu1)" -gt 0 ] && ok "two GPUs: --gpu GPU 1 acts on GPU 1's faults" ||
	fail "--gpu GPU 1" "$STATS; $OUT"

# --- pins, set, show, unload --------------------------------------------------------
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 1 pages 1 hold_ms 60000 >/dev/null 2>&1 &
P=$!
sleep 0.5
expect_exit 0 $G prefetch load stream -p $P --detach $MAX distance 4
for m in params counters pfe_io bss rodata; do
	[ -e "$PINS/$P/$m" ] || { fail "pins: $m" "$(ls $PINS/$P 2>&1)"; break; }
done
[ -e "$PINS/$P/params" ] && ok "pins: the engine's maps under $PINS/$P"
expect_exit 0 $G prefetch set -p $P distance 32
expect_exit 2 $G prefetch set -p $P distance 0
expect_stderr_line "set: out of range"
expect_exit 2 $G prefetch set -p $P nosuch 1
expect_err "set: an unknown parameter names the ones there are" "it has confidence, distance"
expect_exit 1 $G prefetch set -p 4194000 distance 3
expect_err "set: no engine" "no prefetch engine runs on process 4194000"
sleep 1.3
expect_exit 0 $G -j prefetch show
expect_json_expr "show: the parameter as set" 'j["engines"][0]["param.distance"] == 32'
expect_json_expr "show: the program's counters and run time" \
	'all(k in j["engines"][0] for k in ("streams", "stragglers", "prog_calls", "prog_us"))'
expect_exit 0 $G prefetch unload -p $P
[ ! -e "$PINS/$P" ] && ok "unload: the pins gone" || fail "unload pins" "$(ls $PINS/$P)"

# --- kill -9: nothing pinned after the next command -------------------------------------
expect_exit 0 $G prefetch load populate -p $P --detach $MAX
EP=$(cat "$GPUCTL_RUN_DIR/prefetch/$P.pid" 2>/dev/null)
[ -e "$PINS/$P/params" ] && ok "kill -9: pinned while it runs" || fail "kill -9 pins" "$(ls $PINS 2>&1)"
kill -9 "$EP"
sleep 0.3
expect_exit 0 $G prefetch show
[ ! -e "$PINS/$P" ] && ok "kill -9: the next command removed its pins" || fail "kill -9 pins left" "$(ls $PINS/$P)"
kill -0 $P 2>/dev/null && ok "kill -9: the target runs on" || fail "kill -9" "the target died"
kill $P
wait $P 2>/dev/null

echo 0 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
summary
