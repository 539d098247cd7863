#!/bin/bash
# bench/gpus_h100.sh - gpuctl names the GPU on a real GPU machine (root, stock
# driver, the static gpuctl): probe's GPU list beside nvidia-smi's, sched list's
# GPU column and --gpu, stat -j per GPU, one exporter scrape with its labels and
# its time, and the engine without --max-bytes (free memory from RM).
# About a minute.  Writes into $OUT.
#   GPUCTL=./gpuctl-static bench/gpus_h100.sh
set -u
OUT=${OUT:-./out}
G=${GPUCTL:-./gpuctl-static}
W=/tmp/gpuctl-gpus
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT" "$W"
PIDS=
cleanup() { for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done; "$G" sched unload >/dev/null 2>&1; }
trap cleanup EXIT
x() { echo "\$ $*"; "$@" 2>&1; echo "[exit $?]"; }
exec > >(tee "$OUT/gpus.txt") 2>&1
date -u; uname -r
if [ -x build/gpus_work ]; then cp build/gpus_work "$W/"	# built beside (carried)
else "$NVCC" -O2 -arch=sm_90 -o "$W/gpus_work" tests/gpu/gpus_work.cu || { echo "nvcc failed"; exit 1; }; fi
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
echo "== probe vs nvidia-smi"
x nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.free,pci.bus_id --format=csv
t0=$(date +%s%N); "$G" probe >"$W/probe.txt" 2>&1; t1=$(date +%s%N)
sed -n '/^gpus/,$p' "$W/probe.txt"; echo "(probe: $(( (t1 - t0) / 1000000 )) ms)"
x "$G" -j probe; echo
echo "== why RM said no (-d), if it did"
"$G" -d probe 2>&1 | grep -E "^debug: GPU|^  gpu " 
echo "== sched"
x "$G" sched watch
"$W/gpus_work" 2048 6 >"$W/w1.out" 2>&1 & P1=$!; PIDS="$PIDS $P1"
for _ in $(seq 50); do grep -q ready "$W/w1.out" && break; sleep 0.1; done
cat "$W/w1.out"
x "$G" sched list
x "$G" -j sched list --gpu 0
U=$("$G" -j probe | sed -n 's/.*"uuid":"\(GPU-[^"]*\)".*/\1/p' | head -1)
x "$G" sched list --gpu "${U:0:12}"
x "$G" sched set-timeslice --gpu 0 --pid $P1 2048
x "$G" sched list --gpu 1
echo "== sched run --gpu (a policy for one GPU; the TSG's GPU asked of RM)"
"$G" sched run fixed timeslice 3333 --gpu 0 >"$W/run.txt" 2>&1 & RP=$!
sleep 2
x "$G" sched list --gpu 0
kill -TERM $RP; wait $RP; cat "$W/run.txt"
x "$G" sched list --gpu 0
x "$G" sched run fixed timeslice 3333 --gpu 1
echo "== stat -j per GPU (a second process, 3 rounds)"
x "$G" -j stat --backend uvm-tools -- "$W/gpus_work" 1024 3 &
SP=$!; sleep 8; pkill -TERM -P $SP gpus_work 2>/dev/null; kill -TERM $(pgrep -f 'gpus_work 1024 3') 2>/dev/null; wait $SP
echo "== trace record/report per GPU"
x "$G" trace record -o "$W/t.trace" --backend uvm-tools --duration 6 -- "$W/gpus_work" 1024 2
x "$G" trace report -i "$W/t.trace" --top 3
x "$G" -j trace report -i "$W/t.trace" --top 3
echo "== exporter scrape"
"$G" exporter serve --listen 127.0.0.1:9471 >"$W/exp.log" 2>&1 & EP=$!; PIDS="$PIDS $EP"
sleep 3
for i in 1 2 3 4 5; do
	curl -s -o "$W/m$i.prom" -w "scrape $i: %{time_total}s %{size_download} bytes\n" http://127.0.0.1:9471/metrics
	sleep 0.5
done
grep -E '^gpuctl_gpu_|^gpuctl_uvm_gpu_faults_total|^gpuctl_uvm_migrated_bytes_total|^gpuctl_tsg_info|^gpuctl_exporter_last_scrape|^gpuctl_exporter_source_up' "$W/m5.prom"
command -v promtool >/dev/null && promtool check metrics <"$W/m5.prom"
cp "$W/m5.prom" "$OUT/scrape.prom"
kill -TERM $EP; sleep 0.5; cat "$W/exp.log" | tail -5
echo "== engine without --max-bytes (free memory from RM)"
x "$G" prefetch probe
PTR=$(sed -n 's/^ready ptr=\(0x[0-9a-f]*\).*/\1/p' "$W/w1.out")
x "$G" -j prefetch migrate -p $P1 $PTR 1G
x "$G" prefetch load populate -- "$W/gpus_work" 1024 2 &
LP=$!; sleep 6; kill -TERM $(pgrep -f 'gpus_work 1024 2') 2>/dev/null; wait $LP
x "$G" sched unload
date -u
