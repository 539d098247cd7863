#!/bin/sh
# The model's /dev/nvidia-uvm speaks the 580 driver's user ABI (cmd/drv/uvm_ioctl.h):
# a uvmsim process looks like a CUDA process (fd, mapping), and UVM_MIGRATE and
# the range hints, called on its borrowed fd (uvmclient -p), answer with the
# driver's NV_STATUS codes and change what the model's GPU faults on.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
UC=${UVMCLIENT:-tests/model/uvmclient}
[ -x "$UC" ] || UC=$(command -v uvmclient)
B=0x7e0000000000	# UVM_MODEL_VA_BASE: where uvmsim maps the range
MB2=0x200000

TOOLS=/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
[ ! -e /dev/nvidia-uvm-tools ] && ok "no tools device by default" || fail "tools device" "present at load"
echo 1 >$TOOLS
for d in /dev/nvidia-uvm /dev/nvidia-uvm-tools /dev/uvm_model; do
	[ -c $d ] && ok "device $d" || fail "device $d" "missing"
done

# status NAME WANT CMD...: uvmclient printed "status WANT"
status() {
	name=$1 want=$2
	shift 2
	out=$("$UC" "$@" 2>&1)
	case $out in
	"status $want"*) ok "$name: status $want" ;;
	*) fail "$name" "wanted status $want: $out" ;;
	esac
}

# A target: uvmsim holding its GPU context, the range mapped, until killed.
start_target() {
	uvmsim run seq blocks 1 pages 1 hold_ms 60000 >/dev/null 2>&1 &
	P=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q nvidia-uvm /proc/$P/maps 2>/dev/null && return 0
		sleep 0.2
	done
	fail "target" "uvmsim $P never mapped its range"
}

uvmsim reset va_blocks 64 >/dev/null
start_target
[ "$(readlink /proc/$P/fd/3)" = /dev/nvidia-uvm ] && ok "uvmsim holds /dev/nvidia-uvm as fd 3" ||
	fail "uvmsim fd" "$(ls -l /proc/$P/fd)"
grep -q "^7e0000000000-7e0008000000 rw-s 7e0000000000 .* /dev/nvidia-uvm$" /proc/$P/maps &&
	ok "its managed range is a /dev/nvidia-uvm mapping at offset == address" ||
	fail "mapping" "$(grep nvidia-uvm /proc/$P/maps)"

# --- processor UUIDs ------------------------------------------------------
out=$("$UC" -p $P uuids)
printf '%s\n' "$out" | grep -q "^0 a65e0f4ed7d47ba25047412c142a7773$" && ok "UUID table V2: 0 is the CPU" ||
	fail "uuid table cpu" "$out"
printf '%s\n' "$out" | grep -q "^1 6d6f64656c6750558000000000000001$" && ok "UUID table V2: 1 is the GPU" ||
	fail "uuid table gpu" "$out"
# the model's second GPU (gpus=2) sits where the driver puts a second GPU's processor
printf '%s\n' "$out" | grep -q "^9 6d6f64656c6750558000000000000002$" && ok "UUID table V2: 9 is the second GPU" ||
	fail "uuid table gpu 1" "$out"
[ "$(printf '%s\n' "$out" | grep -c '')" = 4 ] && ok "UUID table V2: nothing else" || fail "uuid table" "$out"
out=$("$UC" -p $P uuids v1)
printf '%s\n' "$out" | grep -q "^1 6d6f64656c675055" && ok "UUID table V1" || fail "uuid table v1" "$out"

# --- bad input: the driver's NV_STATUS codes ------------------------------
status "migrate: unaligned base" 0x1e -p $P migrate $((B + 0x800)) 0x1000 gpu
status "migrate: unaligned length" 0x1e -p $P migrate $B 0x800 gpu
status "migrate: base 0" 0x1e -p $P migrate 0 0x1000 gpu
status "migrate: length 0" 0x1e -p $P migrate $B 0 gpu
status "migrate: overflow" 0x1e -p $P migrate 0xfffffffffffff000 0x2000 gpu
status "migrate: not managed memory" 0x1e -p $P migrate 0x10000000 0x1000 gpu
status "migrate: past the mapping" 0x1e -p $P migrate $((B + 64 * MB2)) 0x1000 gpu
status "migrate: straddling the mapping's end" 0x1e -p $P migrate $((B + 63 * MB2)) $((2 * MB2)) gpu
status "migrate: unknown GPU UUID" 0x26 -p $P migrate $B 0x1000 00112233445566778899aabbccddeeff
status "migrate: test-only flag" 0x1f -p $P migrate $B 0x1000 gpu flags 2
status "migrate: unknown flag" 0x1f -p $P migrate $B 0x1000 gpu flags 0x10
status "migrate: sync with a semaphore" 0x1f -p $P migrate $B 0x1000 gpu sem 0x1000 1
status "migrate: async, payload without semaphore" 0x1f -p $P migrate $B 0x1000 gpu async sem 0 5
status "migrate: async, unaligned semaphore" 0x1e -p $P migrate $B 0x1000 gpu async sem 0x1001 1
status "migrate: to the CPU, bad NUMA node" 0x1f -p $P migrate $B 0x1000 cpu numa 7
status "prefer: unknown GPU" 0x26 -p $P prefer $B $MB2 00112233445566778899aabbccddeeff
status "prefer: CPU, bad NUMA node" 0x1f -p $P prefer $B $MB2 cpu numa 7
status "prefer: not managed" 0x1e -p $P prefer 0x10000000 $MB2 gpu
status "unprefer: unaligned" 0x1e -p $P unprefer $((B + 1)) $MB2
status "accessed_by: unknown GPU" 0x26 -p $P accessed_by $B $MB2 00112233445566778899aabbccddeeff
status "accessed_by: not managed" 0x1e -p $P accessed_by 0x10000000 $MB2 gpu
status "readdup: not managed" 0x1e -p $P readdup 0x10000000 $MB2
status "unreaddup: length 0" 0x1e -p $P unreaddup $B 0
status "an fd before UVM_INITIALIZE" 0x16 --own --noinit migrate $B 0x1000 cpu
status "UVM_INITIALIZE: unknown flag" 0x1f --own --noinit init 1
status "UVM_INITIALIZE again, other flags" 0x1f --own init 2
status "own fd without a mapping: not managed" 0x1e --own migrate $B 0x1000 gpu
status "own fd, own mapping: managed" 0x0 --own --map 0 1 migrate $B 0x1000 cpu
out=$("$UC" -p $P ioctl 99 2>&1)
case $out in "errno 22 "*) ok "unknown request: EINVAL" ;; *) fail "unknown request" "$out" ;; esac
out=$("$UC" --own --map 70000 1 hold 0 2>&1)
case $out in "mmap errno 22 "*) ok "mapping outside the model's window: EINVAL" ;; *) fail "mmap outside" "$out" ;; esac
uvmsim stats >$T_DIR/s && STATS=$(cat $T_DIR/s)
# the target touched page 0: the one accepted call took it back, nothing else moved
[ "$(stat_of pages_migrated_user)" = 0 ] && [ "$(stat_of pages_migrated_to_cpu)" = 1 ] &&
	[ "$(stat_of user_migrations)" = 1 ] && ok "refused calls moved nothing" ||
	fail "refused calls" "$STATS"

# --- UVM_MIGRATE: the GPU's later accesses do not fault -------------------
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 4 >/dev/null && STATS=$(uvmsim stats)
base_faults=$(stat_of fault_entries)
[ "$base_faults" -gt 0 ] && ok "baseline: a sequential sweep of 4 blocks faults ($base_faults)" ||
	fail "baseline" "$STATS"
uvmsim reset va_blocks 64 >/dev/null
status "migrate 4 blocks to the GPU" 0x0 -p $P migrate $B $((4 * MB2)) gpu
uvmsim run seq blocks 4 >/dev/null && STATS=$(uvmsim stats)
[ "$(stat_of pages_migrated_user)" = 2048 ] && ok "2048 pages migrated" || fail "migrated pages" "$STATS"
[ "$(stat_of fault_entries)" = 0 ] && ok "then the sweep faults 0 times" || fail "faults after migrate" "$STATS"
[ "$(stat_of user_migrations)" = 1 ] && ok "one user migration counted" || fail "user_migrations" "$STATS"

uvmsim reset va_blocks 64 >/dev/null
status "async migrate of 2 blocks, semaphore released" 0x0 -p $P migrate $B $((2 * MB2)) gpu async
out=$("$UC" --own --map 0 4 migrate $((B + 2 * MB2)) $MB2 gpu async sem local 7)
case $out in *"semaphore 7"*) ok "async: the semaphore gets its payload" ;; *) fail "semaphore" "$out" ;; esac
uvmsim run seq blocks 4 >/dev/null && STATS=$(uvmsim stats)
f=$(stat_of fault_entries)
[ "$f" -gt 0 ] && [ "$f" -lt "$base_faults" ] && ok "3 of 4 blocks migrated: fewer faults ($f < $base_faults)" ||
	fail "partial migration" "faults $f, baseline $base_faults"

# back to the CPU: the next sweep faults again
status "migrate 4 blocks back to the CPU" 0x0 -p $P migrate $B $((4 * MB2)) cpu
STATS=$(uvmsim stats)
[ "$(stat_of pages_migrated_to_cpu)" = 2048 ] && ok "2048 pages back on the CPU" || fail "to cpu" "$STATS"
[ "$(stat_of chunks_used)" = 0 ] && ok "their GPU chunks freed" || fail "chunks after to-cpu" "$STATS"
uvmsim reset va_blocks 64 gpu_chunks 2 >/dev/null
status "migrate 4 blocks into 2 chunks of GPU memory" 0x0 -p $P migrate $B $((4 * MB2)) gpu
STATS=$(uvmsim stats)
[ "$(stat_of evictions)" = 2 ] && [ "$(stat_of chunks_used)" = 2 ] &&
	ok "migration past GPU memory evicts, as faults do" || fail "migrate evicts" "$STATS"

# --- alloc: fresh allocations, each its own mapping, first-touched in turn ---
uvmsim reset va_blocks 64 >/dev/null
uvmsim run alloc blocks 8 alloc 2 first 8 gap_ms 400 hold_ms 1500 >/dev/null 2>&1 &
A=$!
sleep 0.2
n=$(grep -c nvidia-uvm /proc/$A/maps)
[ "$n" -ge 1 ] && [ "$n" -lt 4 ] && ok "alloc: allocations appear one by one ($n mapped so far)" ||
	fail "alloc early" "$(grep nvidia-uvm /proc/$A/maps)"
status "alloc: the last allocation is not managed memory yet" 0x1e -p $A migrate $((B + 14 * MB2)) $MB2 gpu
sleep 1.6
n=$(grep -c nvidia-uvm /proc/$A/maps)
[ "$n" = 4 ] && ok "alloc: 4 allocations, 4 /dev/nvidia-uvm mappings" || fail "alloc maps" "$(cat /proc/$A/maps)"
grep -q "^7e0001000000-7e0001400000 rw-s 7e0001000000 .* /dev/nvidia-uvm$" /proc/$A/maps &&
	ok "alloc: the first at block 8, 2 blocks long" || fail "alloc first" "$(grep nvidia-uvm /proc/$A/maps)"
status "alloc: adjoining allocations migrate as one range" 0x0 -p $A migrate $((B + 8 * MB2)) $((8 * MB2)) cpu
wait $A
STATS=$(uvmsim stats)
[ "$(stat_of fault_entries)" -gt 0 ] && [ "$(stat_of pages_migrated_to_cpu)" = 4096 ] &&
	ok "alloc: first touches faulted, and all 8 blocks went back" || fail "alloc stats" "$STATS"

# --- hints ------------------------------------------------------------------
uvmsim reset va_blocks 64 >/dev/null
status "accessed_by GPU on block 0" 0x0 -p $P accessed_by $B $MB2 gpu
status "accessed_by CPU: accepted" 0x0 -p $P accessed_by $B $MB2 cpu
uvmsim run seq blocks 2 >/dev/null && STATS=$(uvmsim stats)
[ "$(stat_of remote_accesses)" = 512 ] && ok "accessed-by pages are read remotely (512, no fault)" ||
	fail "accessed_by" "$STATS"
[ "$(stat_of pages_accessed_by)" = 512 ] && ok "512 pages accessed-by" || fail "accessed_by pages" "$STATS"
status "unaccessed_by" 0x0 -p $P unaccessed_by $B $MB2 gpu
status "prefer the GPU" 0x0 -p $P prefer $B $((2 * MB2)) gpu
status "prefer the CPU for block 1" 0x0 -p $P prefer $((B + MB2)) $MB2 cpu
status "readdup" 0x0 -p $P readdup $B $MB2
STATS=$(uvmsim stats)
[ "$(stat_of pages_accessed_by)" = 0 ] && [ "$(stat_of pages_preferred_gpu)" = 512 ] &&
	[ "$(stat_of pages_preferred_cpu)" = 512 ] && [ "$(stat_of pages_read_dup)" = 512 ] &&
	ok "hints recorded per page" || fail "hints" "$STATS"
# a GPU fault on pages that prefer the CPU maps them there: faults once, moves nothing
uvmsim reset va_blocks 64 >/dev/null
status "prefer the GPU for block 0" 0x0 -p $P prefer $B $MB2 gpu
status "prefer the CPU for block 1, NUMA node 0" 0x0 -p $P prefer $((B + MB2)) $MB2 cpu numa 0
uvmsim run seq blocks 2 >/dev/null && STATS=$(uvmsim stats)
[ "$(stat_of pages_mapped_remote)" = 512 ] && ok "CPU-preferred block: 512 pages mapped remotely" ||
	fail "mapped remote" "$STATS"
[ "$(stat_of pages_migrated)" = 512 ] && ok "only the GPU-preferred block migrated" || fail "migrated" "$STATS"
pre=$(stat_of fault_entries)
uvmsim run seq blocks 2 >/dev/null && STATS=$(uvmsim stats)
[ "$(stat_of fault_entries)" = "$pre" ] && [ "$(stat_of remote_accesses)" = 512 ] &&
	ok "a second sweep: no faults, the CPU-preferred block read remotely" || fail "second sweep" "$STATS"
status "prefer the GPU again" 0x0 -p $P prefer $B $((2 * MB2)) gpu
status "readdup" 0x0 -p $P readdup $B $MB2
status "unprefer" 0x0 -p $P unprefer $B $((2 * MB2))
status "unreaddup" 0x0 -p $P unreaddup $B $MB2
STATS=$(uvmsim stats)
[ "$(stat_of pages_preferred_gpu)$(stat_of pages_preferred_cpu)$(stat_of pages_read_dup)" = 000 ] &&
	ok "hints cleared" || fail "hints cleared" "$STATS"

kill $P 2>/dev/null
wait $P 2>/dev/null
echo 0 >$TOOLS
[ ! -e /dev/nvidia-uvm-tools ] && ok "tools_device 0 removes the device" || fail "tools_device 0" "still there"
summary
