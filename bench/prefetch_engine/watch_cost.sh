#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/prefetch_engine/watch_cost.sh - what watching costs a fault-heavy
# PyTorch step (train.py on managed memory, about 1 M GPU faults a step) on a
# real GPU: alone, under `stat --`, `trace record --` (uvm-tools, every event to a file) and the
# engine's `prefetch load none --`, interleaved rounds, one row per run.
#   GPUCTL=./gpuctl-static ROUNDS=3 bench/prefetch_engine/watch_cost.sh
# CFGS picks the configurations; LABEL=ENV... adds one that runs `none` with
# extra environment (for a build that reads it), e.g. "none-x=PFE_X_WAKE=32768".
# Writes $OUT/watch.tsv (workload round config median_step_ms wall_s) and
# $OUT/watch.md (medians and ratios to alone).  About 20 s a run.
set -u
D=$(dirname "$(readlink -f "$0")")
OUT=${OUT:-$D/out}
G=${GPUCTL:-$D/../../gpuctl-static}
ROUNDS=${ROUNDS:-3}
CFGS=${CFGS:-"alone stat trace none"}
W=$(mktemp -d /tmp/watch.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"
export GPUCTL_RUN_DIR=$W/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" -O2 -shared -Xcompiler -fPIC -o "$W/alloc.so" "$D/alloc.cu" || exit 1
T="python3 $D/train.py $W/alloc.so 5"
printf 'workload\tround\tconfig\tmedian_step_ms\twall_s\n' > "$OUT/watch.tsv"

one() {	# one ROUND CONFIG
	local r=$1 c=$2 env='' t0 t1 m o=$W/o.txt
	case $c in *=*) env=${c#*=}; c=${c%%=*} ;; esac
	t0=$(date +%s.%N)
	case $c in
	alone) timeout 150 $T > "$o" 2>&1 ;;
	stat) timeout 150 "$G" stat --backend uvm-tools -- $T > "$o" 2>&1 ;;
	trace) timeout 150 "$G" trace record -o "$W/t.rec" --backend uvm-tools -- $T > "$o" 2>&1; rm -f "$W/t.rec" ;;
	*) timeout 150 env $env "$G" -j prefetch load none -- $T > "$W/e.json" 2> "$o"
	   echo "$c r$r $(tr -d '\n' < "$W/e.json" | grep -o '"seen":[0-9]*\|"cpu_us":[0-9]*\|"maps_reads":[0-9]*\|"lost_events":[0-9]*' | paste -sd' ')" >> "$OUT/engine.txt" ;;
	esac
	t1=$(date +%s.%N)
	m=$(grep -h "^median_step_ms " "$o" | tail -1 | awk '{print $2}')
	printf 'torch\t%s\t%s\t%s\t%.2f\n' "$r" "$c" "${m:-NA}" "$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" | tee -a "$OUT/watch.tsv"
}

for r in $(seq "$ROUNDS"); do
	list=$CFGS
	[ $((r % 2)) = 0 ] && list=$(echo "$CFGS" | tr ' ' '\n' | tac | paste -sd' ')
	for c in $list; do one "$r" "$c"; done
done
python3 - "$OUT/watch.tsv" > "$OUT/watch.md" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
by = {}
for wl, r, c, m, w in rows:
    if m != "NA":
        by.setdefault(c, {})[r] = float(m)
alone = by.get("alone", {})
print("| config | median step ms | per round | / alone per round | median ratio |")
print("|---|---:|---|---|---:|")
for c, d in by.items():
    rs = sorted(d)
    ratios = [d[r] / alone[r] for r in rs if r in alone]
    print("| %s | %.1f | %s | %s | %s |" % (c, statistics.median(d.values()),
          " ".join("%.1f" % d[r] for r in rs), " ".join("%.3f" % x for x in ratios),
          "%.3f" % statistics.median(ratios) if ratios else "-"))
PY
cat "$OUT/watch.md"
