#!/bin/bash
# bench/trace_pictures_h100.sh - issue 44 on a real GPU (root, stock driver,
# the static gpuctl): a version-2 record of tests/gpu/managed_phases (its
# process name, GPU name/UUID and allocations as the recorder saw them) beside
# a TSG record of the same run, drawn as the SVG, written as Chrome JSON and
# CSV, checked (tests/tools/picturecheck.py: the faults of the CSV found on the
# SVG from its labels), and what recording costs: the workload alone against
# under `trace record`, ROUNDS interleaved rounds.  A few minutes.  Into $OUT.
#   GPUCTL=./gpuctl-static bench/trace_pictures_h100.sh [MIB] [ROUNDS]
set -u
OUT=${OUT:-./out}
G=${GPUCTL:-./gpuctl-static}
MIB=${1:-1024}
ROUNDS=${2:-3}
W=/tmp/gpuctl-pictures
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT" "$W"
exec > >(tee "$OUT/pictures.txt") 2>&1
x() { echo "\$ $*"; "$@"; echo "[exit $?]"; }
date -u; uname -r
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv
if [ -x build/managed_phases ]; then cp build/managed_phases "$W/"
else "$NVCC" -O2 -o "$W/managed_phases" tests/gpu/managed_phases.cu || { echo "nvcc failed"; exit 1; }; fi
P=$W/managed_phases

echo "== one run, two records: UVM events (uvm-tools) and TSGs (rm), merged by report"
"$G" trace record tsg -o "$OUT/tsg.trace" --duration 600 >"$W/tsg.log" 2>&1 &
TP=$!
sleep 2
x "$G" trace record -o "$OUT/uvm.trace" -- "$P" "$MIB" 1
sleep 1
kill -INT $TP; wait $TP; cat "$W/tsg.log"
ls -la "$OUT"/*.trace
x "$G" trace report -i "$OUT/uvm.trace" -i "$OUT/tsg.trace" --svg "$OUT/run.svg"
"$G" trace report -i "$OUT/uvm.trace" -i "$OUT/tsg.trace" --format chrome >"$OUT/run.json"; echo "chrome exit $?"
"$G" trace report -i "$OUT/uvm.trace" --format csv >"$W/run.csv"; echo "csv exit $?"
gzip -c "$W/run.csv" >"$OUT/run.csv.gz"
ls -la "$OUT/run.svg" "$OUT/run.json" "$OUT/run.csv.gz"
echo "== the tables of the record (events alloc/free; names)"
"$G" trace report -i "$OUT/uvm.trace" --format events | grep -E " (alloc|free) " | head -20
grep -o 'GPU [0-9]*: [^<]*' "$OUT/run.svg" | sort -u | head
grep -o 'class="seglabel"[^<]*<' "$OUT/run.svg" | sort -u | head -20
grep -o 'class="note"[^<]*<' "$OUT/run.svg"
python3 tests/tools/picturecheck.py chrome "$OUT/run.json"; echo "chrome fields exit $?"
echo "== the faults of the CSV found on the SVG by its labels (first 2000)"
python3 - "$W/run.csv" >"$W/faults" <<'PY'
import csv, sys
n = 0
for r in csv.DictReader(open(sys.argv[1], newline='')):
    if r['event'] == 'fault' and n < 2000:
        print('fault %s %s %s %s %s' % (r['time_ns'], r['address'],
              'write' if r['access'] in ('write', 'atomic') else 'read', r['gpu'], r['pid']))
        n += 1
PY
python3 tests/tools/picturecheck.py locate "$OUT/run.svg" "$W/faults" >"$W/spots"; echo "locate exit $? ($(wc -l <"$W/spots") faults placed)"
tail -3 "$W/spots"

echo "== cost of recording: alone vs under trace record, $ROUNDS rounds"
for r in $(seq "$ROUNDS"); do
	t0=$(date +%s%N); "$P" "$MIB" 1 >/dev/null 2>&1; t1=$(date +%s%N)
	"$G" trace record -o "$W/c.trace" -- "$P" "$MIB" 1 >/dev/null 2>"$W/c.err"; t2=$(date +%s%N)
	echo "round $r: alone $(( (t1 - t0) / 1000000 )) ms  recorded $(( (t2 - t1) / 1000000 )) ms" \
		"($(wc -c <"$W/c.trace") bytes)"
done
