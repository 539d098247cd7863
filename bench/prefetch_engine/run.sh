#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/prefetch_engine/run.sh - the per-process prefetch engine on a real
# GPU (stock driver): each workload alone, under the engine's `none`
# policy (watching only) and under each policy, interleaved rounds.
#   sweep seq    8 GiB managed, CPU-written, one sequential GPU pass
#   sweep stride the same, 2 MiB blocks visited with a stride of 5
#   torch        4-layer d=2048 transformer encoder, Adam, managed memory
# Then the one-shot commands and the safety checks on the real driver.
# Expected time: about 6 minutes.  Writes to $OUT: results.tsv, summary.md,
# engine.jsonl (each engine's own report), safety.txt, probe.txt, logs.txt.
# ROUNDS/SROUNDS/TROUNDS, *_CFGS and SKIP_SAFETY choose what runs (run2.sh).  Managed memory: at most 8 GiB (sweep)
# and about 6 GiB (torch), one process at a time.
set -u
D=$(dirname "$(readlink -f "$0")")
OUT=${OUT:-$D/out}
mkdir -p "$OUT"
G="$D/run-gpuctl"
W=$(mktemp -d /tmp/pfe.XXXXXX)
trap 'rm -rf "$W"' EXIT
export GPUCTL_RUN_DIR=$W/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
ROUNDS=${ROUNDS:-3}
TROUNDS=${TROUNDS:-2}
MIB=${MIB:-8192}
log() { echo "[$(date +%T)] $*"; }

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
log "building"
"$NVCC" -O2 -arch=sm_90 -o "$W/sweep" "$D/sweep.cu" || exit 1
"$NVCC" -O2 -shared -Xcompiler -fPIC -o "$W/alloc.so" "$D/alloc.cu" || exit 1
# NVML (free GPU memory) for the bundled gpuctl: the host's library next to ours
L=$(ldconfig -p 2>/dev/null | awk '/libnvidia-ml.so.1 /{print $NF; exit}')
[ -n "$L" ] && [ -d "$D/lib" ] && ln -sf "$L" "$D/lib/libnvidia-ml.so.1"
GPU=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
FREE=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -1)
log "GPU $GPU free ${FREE} MiB"
if [ "${FREE:-0}" -lt 40000 ]; then log "less than 40 GB free: stop"; exit 1; fi
{ nvidia-smi --query-gpu=name,driver_version,memory.free --format=csv,noheader
  "$G" prefetch probe; "$G" -j prefetch probe; } > "$OUT/probe.txt" 2>&1
cat "$OUT/probe.txt"

printf 'workload\tround\tconfig\tmetric_ms\twall_s\tfaults_seen\tdriver_faults\tdriver_htod\tmigrated\tioctls\tcpu_us\terrors\tcapped\tlost\n' > "$OUT/results.tsv"

# A configuration: a policy name, or LABEL for a policy with parameters.
cfg_args() {
	case $1 in
	populate-noeager) echo "populate eager 0" ;;
	populate-small) echo "populate min_kb 4" ;;
	stream-async) echo "stream --async" ;;
	*) echo "$1" ;;
	esac
}

# one WORKLOAD ROUND CONFIG METRIC_KEY CMD...: a run, one row.
one() {
	local wl=$1 r=$2 cfg=$3 key=$4; shift 4
	local t0 t1 m j=$W/eng.json e=$W/err.txt o=$W/cmd.txt
	: > "$j"; : > "$e"; : > "$o"
	t0=$(date +%s.%N)
	if [ "$cfg" = alone ]; then
		timeout 150 "$@" > "$o" 2> "$e"
	else
		# -j: the engine's report on stdout, the command's output on stderr
		# shellcheck disable=SC2046
		timeout 150 "$G" -j prefetch load $(cfg_args "$cfg") --gpu "$GPU" --max-bytes 12G -- "$@" > "$j" 2> "$o"
		{ printf '{"workload":"%s","round":%s,"config":"%s","engine":' "$wl" "$r" "$cfg"
		  tr -d '\n' < "$j"; echo '}'; } >> "$OUT/engine.jsonl"
	fi
	t1=$(date +%s.%N)
	m=$(grep -h "^$key " "$o" | tail -1 | awk '{print $2}')
	python3 - "$j" "$wl" "$r" "$cfg" "${m:-NA}" "$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" >> "$OUT/results.tsv" <<'PY'
import json, sys
path, wl, r, cfg, m, wall = sys.argv[1:7]
try:
    d = json.load(open(path))
except Exception:
    d = {}
k = ["faults", "driver_gpu_faults", "driver_bytes_htod", "migrated_bytes", "ioctls", "cpu_us",
     "errors", "capped", "lost_events"]
print("\t".join([wl, r, cfg, m, "%.2f" % float(wall)] + [str(d.get(x, "NA")) for x in k]))
PY
	tail -1 "$OUT/results.tsv"
	{ echo "== $wl $r $cfg"; tail -5 "$o"; tail -3 "$e"; grep -o '"error":[^}]*' "$j"; } >> "$W/logs.txt"
}

SWEEP_CFGS=${SWEEP_CFGS:-"alone none populate stream stride"}
STRIDE_CFGS=${STRIDE_CFGS:-"alone none populate stride"}
TORCH_CFGS=${TORCH_CFGS:-"alone none populate stream"}
for r in $(seq "$ROUNDS"); do
	for c in $SWEEP_CFGS; do
		log "sweep seq round $r $c"
		one sweep-seq "$r" "$c" kernel_ms "$W/sweep" "$MIB" seq
	done
done
for r in $(seq "${SROUNDS:-2}"); do
	for c in $STRIDE_CFGS; do
		log "sweep stride round $r $c"
		one sweep-stride "$r" "$c" kernel_ms "$W/sweep" "$MIB" stride 5
	done
done
for r in $(seq "$TROUNDS"); do
	for c in $TORCH_CFGS; do
		log "torch round $r $c"
		one torch "$r" "$c" median_step_ms python3 "$D/train.py" "$W/alloc.so" 5
	done
done
[ -n "${SKIP_SAFETY:-}" ] && { python3 "$D/summarize.py" "$OUT/results.tsv" > "$OUT/summary.md"
	cat "$OUT/summary.md"; tail -c 60000 "$W/logs.txt" > "$OUT/logs.txt"; log "done"; exit 0; }

# --- one-shot commands and safety on the real driver -----------------------
S=$OUT/safety.txt
: > "$S"
chk() { echo "\$ $*" >> "$S"; "$@" >> "$S" 2>&1; echo "exit $?" >> "$S"; }
log "one-shot migrate during a paused sweep"
SWEEP_PAUSE_MS=4000 "$W/sweep" 4096 seq > "$W/p.txt" 2>&1 &
SP=$!
for i in $(seq 50); do grep -q '^pid ' "$W/p.txt" && break; sleep 0.1; done
read -r _ PID _ BUF _ BYTES < <(grep '^pid ' "$W/p.txt")
{ echo "maps of $PID (nvidia-uvm):"; grep nvidia-uvm "/proc/$PID/maps" | head -20; } >> "$S"
chk "$G" prefetch migrate -p "$PID" "$BUF" 1G --to GPU-00000000-0000-0000-0000-000000000000
chk "$G" prefetch migrate -p "$PID" 0x1000 4096
chk "$G" prefetch advise -p "$PID" "$BUF" 2M preferred-location "$GPU"
chk "$G" prefetch advise -p "$PID" "$BUF" 2M unset-preferred-location
chk "$G" prefetch migrate -p "$PID" "$BUF" "$BYTES"
wait "$SP"
cat "$W/p.txt" >> "$S"
log "engine: second engine refused, kill -9 leaves the target running"
SWEEP_PAUSE_MS=4000 "$W/sweep" 2048 seq > "$W/k.txt" 2>&1 &
SP=$!
for i in $(seq 50); do grep -q '^pid ' "$W/k.txt" && break; sleep 0.1; done
PID=$(awk '/^pid /{print $2}' "$W/k.txt")
chk "$G" prefetch load populate -p "$PID" --detach --gpu "$GPU"
chk "$G" prefetch load stream -p "$PID" --detach --gpu "$GPU"
chk "$G" prefetch show
EP=$(cat "$GPUCTL_RUN_DIR/prefetch/$PID.pid" 2>/dev/null)
[ -n "$EP" ] && kill -9 "$EP"
echo "killed engine $EP with -9" >> "$S"
wait "$SP"; echo "target exit status $?" >> "$S"
cat "$W/k.txt" >> "$S"
chk "$G" prefetch show
chk "$G" prefetch unload -p "$PID"
SWEEP_PAUSE_MS=3000 "$W/sweep" 1024 seq > "$W/u.txt" 2>&1 &
SP=$!
for i in $(seq 50); do grep -q '^pid ' "$W/u.txt" && break; sleep 0.1; done
PID=$(awk '/^pid /{print $2}' "$W/u.txt")
chk "$G" prefetch load stride -p "$PID" --detach --gpu "$GPU"
sleep 0.5
chk "$G" -j prefetch show
chk "$G" prefetch unload -p "$PID"
wait "$SP"; echo "target exit status $?" >> "$S"
chk "$G" prefetch load stream -p "$$" --gpu "$GPU"
cat "$S"

python3 "$D/summarize.py" "$OUT/results.tsv" > "$OUT/summary.md"
cat "$OUT/summary.md"
tail -c 60000 "$W/logs.txt" > "$OUT/logs.txt"
log "done"
