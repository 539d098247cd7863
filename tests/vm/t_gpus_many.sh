#!/bin/sh
# Per-GPU tables past 16 GPUs (issue 32 item 12): the model reloaded with
# gpus=17, then gpus=32 (NVIDIA's limit: RM's attached list and UVM's UUID
# table hold 32 parent GPUs; 33 and more are tested on the host:
# tests/unit/test_trace_host.sh, tests/unit/test_sched_gate.sh).  uvmsim's
# faults on the last GPU show in probe, stat's per-GPU rows, the exporter's
# per-GPU series and trace report's per-GPU table: no GPU dropped.
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
G=$GPUCTL
W=$T_DIR
MP=/sys/module/${MODEL_NAME:-uvm_model}/parameters
PORT=9479
HTTPGET=${HTTPGET:-tests/tools/httpget}

# uuid I: the model's GPU I (its last byte I + 1)
uuid() { printf 'GPU-6d6f6465-6c67-5055-8000-0000000000%02x' $(($1 + 1)); }

# reload N: the model with gpus=N
reload() {
	i=0
	while [ -d /sys/module/$MODEL_NAME ] && ! rmmod "$MODEL_NAME" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 40 ] && break; sleep 0.25
	done
	insmod "$MODEL_KO" gpus=$1 || { fail "insmod gpus=$1" "failed"; summary; }
	echo 1 >$MP/tools_device 2>/dev/null
	[ "$(cat $MP/gpus)" = "$1" ] && ok "the model shows $1 GPUs" || fail "gpus=$1" "$(cat $MP/gpus)"
}

[ -n "${MODEL_NAME:-}" ] && [ -n "${MODEL_KO:-}" ] || { fail "model" "MODEL_NAME/MODEL_KO unset"; summary; }

for n in 17 32; do
	last=$((n - 1))
	U=$(uuid $last)
	reload $n
	# --- probe: every GPU listed -------------------------------------------
	expect_exit 0 $G -j probe
	expect_json_eq "$n GPUs: probe -j lists GPU $last" ".gpus[$last].uuid" "$U"

	# --- stat: the last GPU's row ------------------------------------------
	uvmsim reset va_blocks 64 >/dev/null
	expect_exit 0 $G -j stat --backend uvm-tools -- uvmsim run seq blocks 8 wait_ms 300 gpu $last
	case $OUT in *'"gpu":'$last',"uuid":"'$U'"'*) ok "$n GPUs: stat -j has GPU $last's row" ;;
		*) fail "$n GPUs: stat row of GPU $last" "$OUT" ;; esac
	case $ERR in *"per GPU for the first"*) fail "$n GPUs: stat cut" "$ERR" ;;
		*) ok "$n GPUs: stat cuts nothing" ;; esac

	# --- the exporter: the last GPU's series --------------------------------
	uvmsim reset va_blocks 64 >/dev/null
	$G exporter serve --listen 127.0.0.1:$PORT --interval 200 >"$W/exp$n.log" 2>&1 &
	EP=$!
	uvmsim run seq blocks 4 wait_ms 1500 hold_ms 4000 gpu $last >/dev/null 2>&1 &
	SIM=$!
	sleep 3.5
	"$HTTPGET" http://127.0.0.1:$PORT/metrics 5 >"$W/m$n.prom" 2>/dev/null
	grep -q "^gpuctl_uvm_gpu_faults_total{pid=\"$SIM\",comm=\"uvmsim\",.*gpu=\"$last\",UUID=\"$U\"} [1-9]" "$W/m$n.prom" &&
		ok "$n GPUs: exporter has GPU $last's fault series" ||
		fail "$n GPUs: exporter GPU $last" "$(grep "^gpuctl_uvm_gpu_faults" "$W/m$n.prom" | head -3) $(tail -3 "$W/exp$n.log")"
	grep -q "gpu=\"$last\",UUID=\"$U\",model_name" "$W/m$n.prom" || grep -q "^gpuctl_gpu_info{gpu=\"$last\"" "$W/m$n.prom" &&
		ok "$n GPUs: gpuctl_gpu_info for GPU $last" || fail "$n GPUs: gpu_info" "$(grep gpu_info "$W/m$n.prom" | tail -2)"
	kill $EP 2>/dev/null; wait $EP 2>/dev/null
	wait $SIM 2>/dev/null

	# --- trace report: the last GPU's row ----------------------------------
	uvmsim reset va_blocks 64 >/dev/null
	expect_exit 0 $G trace record --backend uvm-tools -o $W/rec$n -- uvmsim run seq blocks 8 wait_ms 300 gpu $last
	expect_exit 0 $G trace report -i $W/rec$n
	expect_out "$n GPUs: trace report has GPU $last's row" "^  $last +[1-9][0-9]* "
done
summary
