#!/bin/bash
# bench/exporter_h100.sh - the cost of gpuctl exporter on a GPU machine (root,
# stock driver): a fault-heavy PyTorch loop on managed memory with the
# exporter on and off in interleaved rounds, and one scrape with 64 GPU
# processes (bench/exporter_cost.py says how).  Uses the static gpuctl (make
# gpuctl-static), which is also the proof that it runs on a non-Debian host.
# Takes about 6 minutes.  Writes into $OUT (default ./out).
#
#   GPUCTL=path/gpuctl-static bench/exporter_h100.sh [ROUNDS] [ROUND_S] [PROCS]
#
# Results: bench/results/exporter-2026-11-22-h100.md.
set -u
D=$(dirname "$(readlink -f "$0")")
OUT=${OUT:-./out}
G=${GPUCTL:-./gpuctl-static}
SRC=${SRC:-$D/exporter}
WORK=/tmp/gpuctl-exporter-bench
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT" "$WORK"
: >"$WORK/pids"
echo "== static gpuctl on $(. /etc/os-release; echo "$PRETTY_NAME"), $(uname -r)"
{
	echo "\$ file-like check: $(head -c 4 "$G" | od -An -c | tr -d ' ')  ldd:"
	ldd "$G" 2>&1
	echo "\$ gpuctl version"; "$G" version 2>&1
	echo "\$ gpuctl probe"; "$G" probe 2>&1
	echo "\$ gpuctl exporter textfile (head)"; "$G" exporter textfile 2>&1 | grep -v '^#' | head -20
} >"$OUT/static.txt" 2>&1
head -4 "$OUT/static.txt"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
echo "== nvcc: um_alloc.so, hold"
"$NVCC" -O2 -arch=sm_90 -shared -Xcompiler -fPIC -o "$WORK/um_alloc.so" "$SRC/um_alloc.cu" &
"$NVCC" -O2 -arch=sm_90 -o "$WORK/hold" "$SRC/hold.cu" &
wait
[ -x "$WORK/hold" ] && [ -e "$WORK/um_alloc.so" ] || { echo "nvcc failed"; exit 1; }
echo "== bench"
timeout -k 10 430 python3 "$D/exporter_cost.py" --gpuctl "$G" --src "$SRC" --out "$OUT" --work "$WORK" \
	--rounds "${1:-28}" --round-s "${2:-7}" --procs "${3:-64}" | tail -60
# nothing of ours may outlive the run (each child's pid is in $WORK/pids)
for p in $(cat "$WORK/pids"); do kill -TERM "$p" 2>/dev/null; done
"$G" sched unload >/dev/null 2>&1
exit 0
