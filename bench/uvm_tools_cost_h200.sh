#!/bin/bash
# bench/uvm_tools_cost_h200.sh - where the cost of observing a process through
# NVIDIA's UVM tools API comes from, on a real GPU: the managed-memory workload
# (tests/gpu/managed_phases) alone and under bench/uvm_tools_cost in each mode,
# plus gpuctl stat and trace faults, ROUNDS interleaved rounds; medians and
# ratios to the workload alone.  Writes into $OUT (default ./out).
#
#   COST=path/uvm_tools_cost GPUCTL=path/gpuctl bench/uvm_tools_cost_h200.sh [MIB] [REPEAT] [ROUNDS]
#
# Build the tool (only glibc needed on the GPU machine):
#   cc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-format-truncation -Icmd -Icmd/lib -Icmd/drv -Ibpf \
#      -o uvm_tools_cost bench/uvm_tools_cost.c cmd/drv/ut_queue.c cmd/drv/ut_session.c \
#      cmd/lib/borrow.c
# Results: bench/results/trace-2026-11-21-h200.md.
set -u
OUT=${OUT:-./out}
G=${GPUCTL:-./gpuctl}
C=${COST:-./uvm_tools_cost}
MIB=${1:-1024}
REP=${2:-3}
ROUNDS=${3:-8}
W=/tmp/managed_phases
MODES="alone attach ctr-faults ctr-bytes ctr-all q-replay q-faults stat trace"
mkdir -p "$OUT"
[ -x $W ] || nvcc -O2 -o $W tests/gpu/managed_phases.cu || { echo "nvcc failed"; exit 1; }
: >"$OUT/cost.raw"
for r in $(seq 1 "$ROUNDS"); do
	for m in $MODES; do
		case $m in
		alone) $W "$MIB" "$REP" >/tmp/c.txt 2>/dev/null ;;
		stat) $G stat -- $W "$MIB" "$REP" 2>/dev/null >/tmp/c.txt ;;
		trace) $G trace faults -- $W "$MIB" "$REP" 2>/dev/null | grep -E '^(phase|total)' >/tmp/c.txt ;;
		*) $C $m -- $W "$MIB" "$REP" >/tmp/c.txt 2>>"$OUT/cost.err" ;;
		esac
		awk -v m=$m '/^total ms/ {print m, $3}' /tmp/c.txt >>"$OUT/cost.raw"
	done
done
python3 - "$OUT/cost.raw" "$MODES" >"$OUT/cost.md" <<'PY'
import sys, statistics as st
d = {}
for line in open(sys.argv[1]):
    m, v = line.split()
    d.setdefault(m, []).append(float(v))
base = st.median(d["alone"])
print("| mode | total ms (median, n) | vs alone | runs |")
print("|---|---|---|---|")
for m in sys.argv[2].split():
    v = d.get(m, [])
    if not v: continue
    md = st.median(v)
    print(f"| {m} | {md:.1f} ({len(v)}) | {100*(md/base-1):+.1f} % | {' '.join(f'{x:.0f}' for x in v)} |")
PY
cat "$OUT/cost.md"
