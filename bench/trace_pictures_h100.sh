#!/bin/bash
# bench/trace_pictures_h100.sh - issue 44 on a real GPU (root, stock driver,
# the static gpuctl), in one device call of at most 5 minutes:
#   1. one command records a run of tests/gpu/managed_phases with both
#      back-ends (`trace record all tsg -- CMD`: uvm-tools for the UVM events,
#      rm beside it for the TSGs, one version-2 record with the process name,
#      the GPU's name and UUID and the allocations as the recorder saw them);
#   2. it is drawn (SVG), written as Chrome JSON and CSV, and checked with
#      tests/tools/picturecheck.py: the JSON against the trace-event format,
#      the first 2000 faults of the CSV found on the SVG from its labels alone;
#   3. what recording costs: the workload alone, under `trace record` (UVM
#      events) and under `trace record all tsg`, ROUNDS interleaved rounds,
#      each run's wall time and record size, and the medians.
# Every step has a time limit and the whole stops taking rounds at BUDGET
# seconds (default 250), so the call ends within 5 minutes; what was skipped
# is said.  Records stay in /tmp (they can pass 16 MiB); what comes back in
# $OUT: pictures.txt (this log), run.svg, run.json, run.csv.gz, cost.txt.
#
# The lead's call (here first: make gpuctl-static NODEPS=1):
#   run  command: GPUCTL=./gpuctl-static timeout 295 bash bench/trace_pictures_h100.sh 1024 3
#        carry: ["gpuctl-static"]   timeout_s: 300
set -u
OUT=${OUT:-./out}
G=${GPUCTL:-./gpuctl-static}
MIB=${1:-1024}
ROUNDS=${2:-3}
BUDGET=${BUDGET:-250}
W=/tmp/gpuctl-pictures
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
PC="python3 tests/tools/picturecheck.py"
mkdir -p "$OUT" "$W"
exec > >(tee "$OUT/pictures.txt") 2>&1
x() { echo "\$ $*"; "$@"; echo "[exit $?]"; }
# room for a step expected to take $1 seconds before the budget ends
left() { [ $((SECONDS + $1)) -lt "$BUDGET" ]; }
sz() { stat -c %s "$1" 2>/dev/null || echo none; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
date -u; uname -r
echo "gpuctl: $("$G" version 2>&1 | head -1)"
nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.free --format=csv
if [ -x build/managed_phases ]; then cp build/managed_phases "$W/"
else timeout 120 "$NVCC" -O2 -o "$W/managed_phases" tests/gpu/managed_phases.cu ||
	{ echo "nvcc failed"; exit 1; }; fi
P=$W/managed_phases
echo "built in ${SECONDS}s"

echo "== 1. one run, one command, both back-ends: trace record all tsg -- managed_phases $MIB"
s1=$SECONDS
x timeout 120 "$G" trace record all tsg -o "$W/run.trace" -- "$P" "$MIB" 1
round_s=$(( 3 * (SECONDS - s1) + 5 ))	# a round: three runs (the first guess)
ls -la "$W/run.trace"
x timeout 60 "$G" trace report -i "$W/run.trace"

echo "== 2. drawn, exported, checked"
x timeout 60 "$G" trace report -i "$W/run.trace" --svg "$OUT/run.svg"
timeout 60 "$G" trace report -i "$W/run.trace" --format chrome >"$OUT/run.json"; echo "chrome exit $?"
timeout 60 "$G" trace report -i "$W/run.trace" --format csv >"$W/run.csv"; echo "csv exit $?"
gzip -c "$W/run.csv" >"$OUT/run.csv.gz"
ls -la "$OUT/run.svg" "$OUT/run.json" "$OUT/run.csv.gz"
echo "-- the record's tables: allocations, names, GPUs"
timeout 60 "$G" trace report -i "$W/run.trace" --format events | grep -E " (alloc|free) " | head -10
grep -o 'GPU [0-9]*: [^<]*' "$OUT/run.svg" | sort -u | head
grep -o 'class="seglabel"[^<]*<' "$OUT/run.svg" | sort -u | head -10
grep -o 'class="note"[^<]*<' "$OUT/run.svg"
echo "-- TSG rows in the picture: $(grep -c 'class="tsg"' "$OUT/run.svg")," \
	"TSG events in the CSV: $(grep -c ',tsg_' "$W/run.csv")"
timeout 120 $PC chrome "$OUT/run.json"; echo "chrome: the trace-event format, strictly: exit $?"
python3 - "$W/run.csv" >"$W/faults" <<'PY'
import csv, sys
n = 0
for r in csv.DictReader(open(sys.argv[1], newline='')):
    if r['event'] == 'fault' and n < 2000:
        print('fault %s %s %s %s %s' % (r['time_ns'], r['address'],
              'write' if r['access'] in ('write', 'atomic') else 'read', r['gpu'], r['pid']))
        n += 1
PY
timeout 120 $PC locate "$OUT/run.svg" "$W/faults" >"$W/spots"
echo "locate exit $? ($(wc -l <"$W/spots") of $(wc -l <"$W/faults") faults placed from the labels)"
tail -3 "$W/spots"
echo "steps 1-2 done at ${SECONDS}s"

echo "== 3. what recording costs: alone, trace record, trace record all tsg ($ROUNDS rounds)"
: >"$W/cost"
for r in $(seq "$ROUNDS"); do
	if ! left "$round_s"; then
		echo "round $r and later: skipped (${SECONDS}s used, a round takes ~${round_s}s, budget ${BUDGET}s)"
		break
	fi
	s1=$SECONDS
	rm -f "$W/c1.trace" "$W/c2.trace"
	t0=$(date +%s%N); timeout 60 "$P" "$MIB" 1 >/dev/null 2>&1; r0=$?; t1=$(date +%s%N)
	timeout 90 "$G" trace record -o "$W/c1.trace" -- "$P" "$MIB" 1 >/dev/null 2>"$W/c1.err"; r1=$?
	t2=$(date +%s%N)
	timeout 90 "$G" trace record all tsg -o "$W/c2.trace" -- "$P" "$MIB" 1 >/dev/null 2>"$W/c2.err"; r2=$?
	t3=$(date +%s%N)
	echo "round $r: alone $(ms "$t0" "$t1") ms (exit $r0); trace record $(ms "$t1" "$t2") ms" \
		"(exit $r1, $(sz "$W/c1.trace") B); record all tsg" \
		"$(ms "$t2" "$t3") ms (exit $r2, $(sz "$W/c2.trace") B)"
	round_s=$(( SECONDS - s1 + 5 ))
	# a round counts only when all three ran to the end
	[ $r0 = 0 ] && [ $r1 = 0 ] && [ $r2 = 0 ] &&
		echo "$(ms "$t0" "$t1") $(ms "$t1" "$t2") $(ms "$t2" "$t3")" >>"$W/cost"
done
python3 - "$W/cost" <<'PY' | tee "$OUT/cost.txt"
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
if not rows:
    print('no round ran to the end: no cost measured')
    sys.exit()
a, r, b = (statistics.median(c) for c in zip(*rows))
print('rounds %d: medians alone %.0f ms, trace record %.0f ms (%+.1f %%), record all tsg %.0f ms (%+.1f %%)'
      % (len(rows), a, r, 100.0 * (r - a) / a, b, 100.0 * (b - a) / a))
PY
tail -4 "$W/c2.err"
echo "done at ${SECONDS}s"
