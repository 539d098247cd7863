#!/bin/sh
# Hot swaps of every policy object: each swap exits 0 with nothing on stderr
# (run with GPUCTL_BIN=gpuctl-asan: a heap error in the swap path is then a
# sanitizer report on stderr and a failed test), the new policy decides
# right after it, and the swapped-out policy leaves no pins behind.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

PARAM=/sys/module/${MODEL_NAME:-uvm_model}/parameters/uvm_perf_fault_replay_policy
echo 4 >$PARAM	# replay asks BPF: no inert warning on stderr

quiet_swap()	# quiet_swap OBJ POLICY [ARGS...]: exit 0, "replaced", empty stderr
{
	obj=$1
	shift
	expect_exit 0 gpuctl "$obj" load "$@"
	[ -z "$ERR" ] && ok "$obj $1: nothing on stderr" || fail "$obj $1: nothing on stderr" "$ERR"
	expect_out "$obj $1: replaced the running policy" "^$obj: $1 replaced "
	OUT=$(gpuctl -j "$obj" show)
	expect_json_eq "$obj $1: shown after the swap" .policy "$1"
	dirs=$(ls /sys/fs/bpf/gpuctl/"$obj" | grep -c '^[0-9]')
	[ "$dirs" = 1 ] && ok "$obj $1: one map directory after the swap" ||
		fail "$obj $1: one map directory" "$(ls /sys/fs/bpf/gpuctl/$obj)"
}

sleep 1000 & P0=$!

expect_exit 0 gpuctl prefetch load always_max
for p in none stride multilevel thrashing probabilistic always_max none; do
	quiet_swap prefetch $p
done
model_run seq blocks 4 warps 1
[ "$(stat_of pages_prefetched)" -eq 0 ] && [ "$(stat_of decisions_native)" -eq 0 ] &&
	ok "prefetch: none decides after the swaps" || fail "prefetch: none decides" "$STATS"

expect_exit 0 gpuctl evict load fifo
for p in mru lfu fifo; do
	quiet_swap evict $p
done
quiet_swap evict priority pid $P0 high
quiet_swap evict quota pid $P0 50
quiet_swap evict mru
quiet_swap evict mru

expect_exit 0 gpuctl replay load batch
for p in once adaptive batch once; do
	quiet_swap replay $p
done
uvmsim reset gpu_chunks 32 && uvmsim run random blocks 64 count 4000 seed 7 warps 16 >/dev/null
STATS=$(uvmsim stats)
[ "$(stat_of batches_deferred)" -gt 0 ] && ok "replay: once decides after the swaps" ||
	fail "replay: once decides" "$STATS"

for obj in prefetch evict replay; do
	expect_exit 0 gpuctl "$obj" unload
	[ -z "$ERR" ] && ok "$obj unload: nothing on stderr" || fail "$obj unload: stderr" "$ERR"
	[ -z "$(ls /sys/fs/bpf/gpuctl/$obj)" ] && ok "$obj: no pins left" ||
		fail "$obj: no pins left" "$(ls -R /sys/fs/bpf/gpuctl/$obj)"
done
echo 2 >$PARAM
kill $P0
summary
