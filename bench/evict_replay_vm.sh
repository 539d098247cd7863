#!/bin/sh
# bench/evict_replay_vm.sh - runs inside the test VM (tests/vm/run): every
# eviction policy against the driver's LRU per oversubscription pattern,
# every replay policy against the driver's batch+flush, and the cost per
# call of each hook against the native path.  One JSON object per line:
#   {"bench":"evict","pattern":...,"policy":...,"evictions":...,"refaults":...,...}
#   {"bench":"replay","pattern":...,"policy":...,"replays":...,"faults_per_replay":...}
#   {"bench":"hook","hook":...,"policy":...,"ns_per_call":...}
CHUNKS=${CHUNKS:-32}
ITER=${ITER:-200000}
st() { uvmsim stats | awk -v k="$1" '$1 == k { print $2 }'; }

sleep 1000 & P0=$!
sleep 1000 & P1=$!
uvmsim tenant 0 $P0
uvmsim tenant 1 $P1

# pattern name -> model commands (working sets 1.25 to 1.5x GPU memory)
run_pattern() {
	uvmsim reset gpu_chunks $CHUNKS
	case $1 in
	scan)	uvmsim run scan blocks $((CHUNKS * 3 / 2)) passes 3 ;;
	hotcold) uvmsim run hotcold blocks $((CHUNKS * 3)) hot 8 passes 3 hot_tenant 1 ;;
	hot_scan) uvmsim run hotcold blocks $((CHUNKS + 8)) hot 8 passes 1 hot_tenant 1
		uvmsim run seq blocks 8 tenant 1
		uvmsim run seq first 128 blocks $((CHUNKS * 3 / 2)) tenant 0
		uvmsim run seq blocks 8 tenant 1 ;;
	tenants) uvmsim run tenants blocks $((CHUNKS * 2)) passes 4 ;;
	esac
}

evict_row() {
	printf '{"bench":"evict","pattern":"%s","policy":"%s","evictions":%s,"refaults":%s,"pages_migrated":%s,"tenant0_refaults":%s,"tenant1_refaults":%s}\n' \
		"$1" "$2" "$(st evictions)" "$(st refaults)" "$(st pages_migrated)" \
		"$(st tenant0_refaults)" "$(st tenant1_refaults)"
}

for pat in scan hotcold hot_scan tenants; do
	for pol in lru fifo mru lfu "priority pid $P0 high" "quota pid $P0 75 pid $P1 25"; do
		name=${pol%% *}
		gpuctl evict unload >/dev/null
		# shellcheck disable=SC2086
		[ "$pol" = lru ] || gpuctl evict load $pol >/dev/null || { echo "# load $pol failed"; continue; }
		run_pattern $pat >/dev/null
		evict_row $pat "$name"
	done
done
gpuctl evict unload >/dev/null

# replay: the driver's policies (0..3) and the BPF ones under 4
replay_row() {
	printf '{"bench":"replay","pattern":"%s","policy":"%s","batches":%s,"replays":%s,"batches_deferred":%s,"faults":%s,"faults_per_replay":%s}\n' \
		"$1" "$2" "$(st batches)" "$(st replays)" "$(st batches_deferred)" "$(st faults)" \
		"$(( $(st faults) / ( $(st replays) > 0 ? $(st replays) : 1 ) ))"
}
replay_pattern() {
	case $1 in
	random) uvmsim run random blocks 64 count 20000 seed 7 ;;
	seq) uvmsim run seq blocks 48 warps 64 ;;
	esac
}
for pat in random seq; do
	for drv in 0:block 1:batch 2:batch_flush 3:once; do
		uvmsim reset gpu_chunks $CHUNKS replay_policy ${drv%%:*}
		replay_pattern $pat >/dev/null
		replay_row $pat "driver_${drv#*:}"
	done
	for pol in batch once "adaptive" "adaptive every 16"; do
		gpuctl replay load $pol >/dev/null 2>&1
		uvmsim reset gpu_chunks $CHUNKS replay_policy 4
		replay_pattern $pat >/dev/null
		replay_row $pat "$(echo $pol | tr ' ' _)"
	done
	gpuctl replay unload >/dev/null
done
uvmsim reset gpu_chunks $CHUNKS replay_policy 2

# hook cost per call, native path first
hook_row() {
	out=$(uvmsim hookbench $1 $ITER) || return
	printf '{"bench":"hook","hook":"%s","policy":"%s","ns_per_call":%s}\n' "$1" "$2" \
		"$(printf '%s\n' "$out" | awk '$1 == "ns_per_call" { print $2 }')"
}
uvmsim reset gpu_chunks $CHUNKS replay_policy 4
uvmsim run scan blocks $CHUNKS >/dev/null
hook_row decide_replay native
for pol in batch once adaptive; do
	gpuctl replay load $pol >/dev/null 2>&1
	hook_row decide_replay $pol
done
gpuctl replay unload >/dev/null
for h in chunk_activate chunk_used evict_prepare; do
	hook_row $h native
	for pol in fifo mru lfu "priority pid $P0 high" "quota pid $P0 75"; do
		# shellcheck disable=SC2086
		gpuctl evict load $pol >/dev/null
		hook_row $h "${pol%% *}"
	done
	gpuctl evict unload >/dev/null
done
kill $P0 $P1 2>/dev/null
