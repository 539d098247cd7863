#!/bin/sh
# bench/prefetch_vm.sh - runs inside the test VM (tests/vm/run), one JSON
# object per line:
#   {"bench":"quality","pattern":..,"policy":..,"faults":..,"pages_migrated":..,
#    "pages_prefetched":..,"prefetch_hits":..}
#   {"bench":"cost","policy":..,"iterations":..,"ns":..}           (3 rounds)
#   {"bench":"cli","command":..,"ms":[..]}
ITER=${ITER:-1000000}
REPS=${REPS:-20}
st() { printf '%s\n' "$S" | awk -v k="$1" '$1 == k { print $2 }'; }

# pattern name | reset keys | run args (commas for spaces)
patterns='seq||seq,blocks,32
seq1||seq,blocks,32,warps,1
stride32||stride,stride,32,warps,1,blocks,32
stride64w4||stride,stride,64,warps,4,blocks,32
random||random,blocks,32,count,4000
moe|gpu_chunks,24|moe,blocks,32,count,256
thrash|gpu_chunks,8|seq,blocks,16,passes,3,warps,1'

policies="default none always_max adaptive stride multilevel thrashing probabilistic"

use() {	# use POLICY: attach it (adaptive keeps its loop in the background)
	[ -n "${LOOP:-}" ] && { kill -INT $LOOP; wait $LOOP; LOOP=; }
	gpuctl prefetch unload >/dev/null
	case $1 in
	default) ;;
	adaptive)
		gpuctl prefetch load adaptive interval_ms 100 >/dev/null 2>&1 &
		LOOP=$!
		i=0; until gpuctl prefetch show | grep -q adaptive || [ $i -ge 50 ]; do usleep 100000; i=$((i+1)); done ;;
	*) gpuctl prefetch load "$1" >/dev/null ;;
	esac
}

for pol in $policies; do
	use $pol
	for p in $patterns; do
		name=${p%%|*}; rest=${p#*|}; reset=${rest%%|*}; run=${rest#*|}
		# shellcheck disable=SC2046
		uvmsim reset va_blocks 64 $(echo "$reset" | tr , ' ')
		# shellcheck disable=SC2046
		uvmsim run $(echo "$run" | tr , ' ')
		S=$(uvmsim stats)
		printf '{"bench":"quality","pattern":"%s","policy":"%s","faults":%s,"pages_migrated":%s,"pages_prefetched":%s,"prefetch_hits":%s}\n' \
			"$name" "$pol" "$(st faults)" "$(st pages_migrated)" "$(st pages_prefetched)" "$(st prefetch_hits)"
	done
done

# Decision cost: interleaved rounds, every policy against the native path.
for round in 1 2 3; do
	for pol in $policies; do
		use $pol
		S=$(uvmsim bench $ITER)
		printf '{"bench":"cost","policy":"%s","round":%d,"iterations":%s,"ns":%s}\n' \
			"$pol" $round "$ITER" "$(st ns)"
	done
done
use default

# CLI wall time of a fresh load and of show, REPS times each (us).
T=tests/tools/timeit
loads="" shows=""
i=0
while [ $i -lt $REPS ]; do
	loads="$loads${loads:+,}$($T 1 gpuctl prefetch load always_max)"
	shows="$shows${shows:+,}$($T 1 gpuctl prefetch show)"
	gpuctl prefetch unload >/dev/null
	i=$((i + 1))
done
printf '{"bench":"cli","command":"gpuctl prefetch load always_max","us":[%s]}\n' "$loads"
printf '{"bench":"cli","command":"gpuctl prefetch show","us":[%s]}\n' "$shows"
