#!/bin/bash
# bench/trace_h200.sh - gpuctl trace/stat on a real GPU (the H200 test machine):
# every command against tests/gpu/managed_phases, then the overhead of stat and
# trace faults, ROUNDS interleaved runs each.  Writes into $OUT (default ./out).
#
#   GPUCTL=path LD_LIBRARY_PATH=... bench/trace_h200.sh [MIB] [REPEAT] [ROUNDS]
set -u
OUT=${OUT:-./out}
G=${GPUCTL:-./gpuctl}
MIB=${1:-1024}
REP=${2:-3}
ROUNDS=${3:-5}
W=/tmp/managed_phases
mkdir -p "$OUT"
log() { echo "### $*" | tee -a "$OUT/commands.txt"; }
run() { log "$*"; "$@" >>"$OUT/commands.txt" 2>&1; echo "rc=$?" >>"$OUT/commands.txt"; }

nvcc -O2 -o $W tests/gpu/managed_phases.cu || { echo "nvcc failed"; exit 1; }
{ date -u; uname -r; nvidia-smi --query-gpu=name,driver_version,memory.free --format=csv; } >"$OUT/machine.txt" 2>&1

# ---- every command once
run $G probe
run $G stat -- $W 512 1
run $G -j stat -- $W 512 1
run $G stat -x , -- $W 256 1
run $G stat -I 500 --interval-count 3 -- $W 2048 2
run $G trace faults --max-events 20 -- $W 256 1
run $G -j trace faults --max-events 5 -- $W 256 1
run $G trace migrations --max-events 10 -- $W 256 1
run $G trace prefetch --max-events 10 -- $W 256 1
run $G trace replays --max-events 10 -- $W 256 1
run $G trace evictions --duration 5 -- $W 256 1
run $G trace record -o "$OUT/rec.gpuctl" -- $W 256 1
# TSGs (rm backend): the workload's contexts; then a running process, seen
# by sched list and by trace tsg -p as it exits
run $G trace tsg -- $W 256 1
run $G -j trace tsg -- $W 128 1
$W 2048 2 >/dev/null 2>&1 &
wp=$!
sleep 2
run $G sched list --pid $wp
run $G trace tsg -p $wp --duration 30
wait $wp
log "-d trace faults: the tools interface in use"
$G -d trace faults --max-events 3 -- $W 128 1 2>&1 | grep -E "^uvm-tools:" >>"$OUT/commands.txt"
run $G trace report -i "$OUT/rec.gpuctl"
run $G trace report -i "$OUT/rec.gpuctl" --sort bytes --svg "$OUT/heatmap.svg"
log "trace report --format model | head"
$G trace report -i "$OUT/rec.gpuctl" --format model 2>&1 | head -5 >>"$OUT/commands.txt"
log "record -o - | report -i -"
$G trace record -o - -- $W 128 1 2>/dev/null | $G trace report -i - >>"$OUT/commands.txt" 2>&1
# -p on a running process
$W 2048 4 >/dev/null 2>&1 &
wp=$!
sleep 1
run $G stat -p $wp -I 500 --interval-count 3
run $G trace faults -p $wp --max-events 5
wait $wp
# bad input
run $G trace faults -p 1
run $G stat -p 999999
run $G trace faults --backend bpf -- true
run $G stat -I 0
echo garbage >/tmp/garbage
run $G trace report -i /tmp/garbage

# ---- consistency: the event stream against the driver's own counters over
# the same span (-d prints them at the end), three runs
for i in 1 2 3; do
	$G -d trace record -o "$OUT/cons$i.rec" -- $W 512 1 >/dev/null 2>"$OUT/cons$i.err"
	$G -j trace report -i "$OUT/cons$i.rec" >"$OUT/cons_report$i.json" 2>>"$OUT/commands.txt"
	grep "^uvm-tools:" "$OUT/cons$i.err" >>"$OUT/commands.txt"
done
python3 - "$OUT" >"$OUT/consistency.md" <<'PY'
import json, re, sys
o = sys.argv[1]
print("| run | driver gpu_faults | fault events | of them duplicates | events - duplicates | driver bytes_htod | migrated to GPU | driver bytes_dtoh | migrated to CPU | driver cpu_faults | cpu fault events | lost |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for i in (1, 2, 3):
    err = open(f"{o}/cons{i}.err").read()
    m = re.search(r"gpu_faults (\d+) bytes_htod (\d+) bytes_dtoh (\d+) cpu_faults (\d+)", err)
    d = [int(x) for x in m.groups()] if m else [-1] * 4
    r = json.load(open(f"{o}/cons_report{i}.json"))["summary"]
    c, b = r["counts"], r["bytes"]
    print(f"| {i} | {d[0]} | {c['fault']} | {c['duplicates']} | {c['fault'] - c['duplicates']} | "
          f"{d[1]} | {b['to_gpu']} | {d[2]} | {b['to_cpu']} | {d[3]} | {c['cpu_fault']} | {c['lost']} |")
PY
cat "$OUT/consistency.md"

# ---- overhead: nothing attached, stat, trace faults; interleaved rounds
: >"$OUT/overhead.raw"
for r in $(seq 1 "$ROUNDS"); do
	for mode in none stat trace tsg; do
		case $mode in
		none) $W "$MIB" "$REP" >/tmp/o.txt 2>&1 ;;
		stat) $G stat -- $W "$MIB" "$REP" >/tmp/o.txt 2>/tmp/o.err ;;
		trace) $G trace faults -- $W "$MIB" "$REP" >/tmp/t.txt 2>/tmp/o.err
		       grep -E '^(phase|total)' /tmp/t.txt >/tmp/o.txt
		       echo "lines $(grep -c ' fault ' /tmp/t.txt) lost $(grep 'lost events' /tmp/t.txt | awk '{print $3}')" >>"$OUT/trace_lines.txt" ;;
		tsg) $G trace tsg -- $W "$MIB" "$REP" 2>/tmp/o.err | grep -E '^(phase|total)' >/tmp/o.txt ;;
		esac
		awk -v m=$mode -v r=$r '/^phase/ {print m, r, $2, $4} /^total ms/ {print m, r, "total", $3}' /tmp/o.txt >>"$OUT/overhead.raw"
	done
done
# medians per mode and phase, and the ratio to nothing attached
python3 - "$OUT/overhead.raw" >"$OUT/overhead.md" <<'PY'
import sys, statistics as st
d = {}
for line in open(sys.argv[1]):
    m, r, ph, v = line.split()
    d.setdefault((m, ph), []).append(float(v))
phases = ["seq", "stride", "random", "total"]
print("| phase | none ms (median, n) | stat ms | stat vs none | trace faults ms | trace vs none | trace tsg ms | tsg vs none |")
print("|---|---|---|---|---|---|---|---|")
for ph in phases:
    n = d.get(("none", ph), [])
    s = d.get(("stat", ph), [])
    t = d.get(("trace", ph), [])
    g = d.get(("tsg", ph), [])
    if not n: continue
    mn = st.median(n)
    ms = st.median(s) if s else float("nan")
    mt = st.median(t) if t else float("nan")
    mg = st.median(g) if g else float("nan")
    print(f"| {ph} | {mn:.1f} ({len(n)}) | {ms:.1f} ({len(s)}) | {100*(ms/mn-1):+.1f} % | {mt:.1f} ({len(t)}) | {100*(mt/mn-1):+.1f} % | {mg:.1f} ({len(g)}) | {100*(mg/mn-1):+.1f} % |")
print()
print("all runs (mode phase: ms...):")
for k in sorted(d):
    print(" ", k[0], k[1], " ".join(f"{v:.1f}" for v in d[k]))
PY
cat "$OUT/overhead.md"
