#!/bin/sh
# Naming the GPU on the model's two GPUs (gpus=2, the RM side in
# uvm_model_rm_gpu.c): probe lists them in PCI order with index, UUID, name,
# memory and bus id; sched list's GPU column and --gpu on list, set-timeslice,
# set-interleave, preempt; the exporter's gpu/UUID labels, gpuctl_gpu_info,
# promtool; stat -j per GPU; the engine's free memory from RM (no --max-bytes).
. "$(dirname "$0")/../lib.sh"

export GPUCTL_RM_DEVICE=/dev/uvm_model_rm
RMC=${RMCLIENT:-tests/model/rmclient}
[ -x "$RMC" ] || RMC=$(command -v rmclient)
G=$GPUCTL
W=$T_DIR
U0=GPU-6d6f6465-6c67-5055-8000-000000000001
U1=GPU-6d6f6465-6c67-5055-8000-000000000002
MP=/sys/module/${MODEL_NAME:-uvm_model}/parameters

[ -c /dev/uvm_model_rm ] || { fail "model RM device" "/dev/uvm_model_rm missing"; summary; }
[ "$(cat $MP/gpus 2>/dev/null)" = 2 ] && ok "the model shows 2 GPUs (gpus=2)" ||
	fail "gpus parameter" "$(cat $MP/gpus 2>&1)"

# --- probe --------------------------------------------------------------------
expect_exit 0 $G -j probe
expect_json_eq "probe -j: GPU 0 first (PCI order, RM lists it last)" '.gpus[0].uuid' "$U0"
expect_json_eq "probe -j: GPU 1" '.gpus[1].uuid' "$U1"
expect_json_eq "probe -j: index" '.gpus[1].gpu' 1
expect_json_eq "probe -j: name" '.gpus[0].name' "NVIDIA Model GPU"
expect_json_eq "probe -j: bus id as nvidia-smi prints it" '.gpus[1].pci_bus_id' "00000000:02:00.0"
expect_json_eq "probe -j: memory (unlimited model: 16 GiB)" '.gpus[0].memory_total_bytes' 17179869184
expect_exit 0 $G probe
expect_out "probe text: gpu 0 line" "gpu 0 +$U0  NVIDIA Model GPU  16 GiB, 16 GiB free  00000000:01:00.0"
expect_exit 0 env GPUCTL_RM_DEVICE=/nonexistent $G -j probe
case $OUT in *'"gpus":null,"gpus_error":"RM device /nonexistent'*) ok "probe -j without RM: gpus null and why" ;;
	*) fail "probe without RM" "$OUT" ;; esac

# --- sched: two processes, one per GPU, and one on both ------------------------
expect_exit 0 $G sched watch
start_client ongpu0 -n 2 -g 0; A=$CPID
start_client ongpu1 -n 2 -g 1; B=$CPID
start_client onboth -n 1 -g 0,1; C=$CPID
sleep 0.2
expect_exit 0 $G sched list
printf '%s\n' "$OUT" | sed 's/^/# /'
expect_out "list has a GPU column" "^ID +PID +COMM .* CLASS +GPU +AGE"
n0=$(printf '%s\n' "$OUT" | awk '$3 == "ongpu0" && $10 == "0"' | wc -l)
n1=$(printf '%s\n' "$OUT" | awk '$3 == "ongpu1" && $10 == "1"' | wc -l)
nb=$(printf '%s\n' "$OUT" | awk '$3 == "onboth" { print $10 }' | sort | tr '\n' ' ')
[ "$n0" = 2 ] && [ "$n1" = 2 ] && [ "$nb" = "0 1 " ] && ok "each TSG shows its GPU (one process on both)" ||
	fail "GPU column" "ongpu0 $n0 ongpu1 $n1 onboth '$nb'"
expect_exit 0 $G -j sched list --gpu 1
n=$(printf '%s' "$OUT" | grep -o '"gpu":1,"uuid":"'$U1'"' | wc -l)
case $OUT in *'"gpu":0'*) fail "list --gpu 1" "$OUT" ;;
	*) [ "$n" = 3 ] && ok "list --gpu 1 -j: GPU 1's 3 TSGs, with UUID" || fail "list --gpu 1" "$OUT" ;; esac
expect_exit 0 $G sched list --gpu 6d6f6465-6c67-5055-8000-000000000001
n=$(printf '%s\n' "$OUT" | grep -c ' live$')
[ "$n" = 3 ] && ok "list --gpu UUID (no GPU- prefix): 3 TSGs" || fail "list --gpu UUID" "$OUT"
expect_exit 0 $G sched list --gpu 00000000:02:00.0
n=$(printf '%s\n' "$OUT" | grep -c ' live$')
[ "$n" = 3 ] && ok "list --gpu PCI bus id" || fail "list --gpu PCI" "$OUT"
expect_exit 1 $G sched list --gpu 7 && expect_stderr_line "list --gpu 7: no such GPU"
case $ERR in *"$U0"*) ok "the error names the GPUs there are" ;; *) fail "no such GPU" "$ERR" ;; esac
expect_exit 2 $G sched list --gpu && expect_stderr_line "--gpu without a value"
expect_exit 0 $G sched set-timeslice --gpu 1 777
n=$(printf '%s\n' "$OUT" | grep -c "RM applied 777 us")
[ "$n" = 3 ] && ok "set-timeslice --gpu 1: GPU 1's 3 TSGs" || fail "set --gpu" "$OUT"
expect_exit 0 $G sched list
ts0=$(printf '%s\n' "$OUT" | awk '$3 == "ongpu0" { print $7 }' | sort -u)
[ "$ts0" = 1024us ] && ok "GPU 0's TSGs unchanged" || fail "GPU 0 touched" "$ts0"
expect_exit 0 $G sched set-timeslice --pid $C --gpu 0 555
n=$(printf '%s\n' "$OUT" | grep -c "RM applied 555 us")
[ "$n" = 1 ] && ok "--pid with --gpu: the process's TSG on that GPU only" || fail "pid+gpu" "$OUT"
expect_exit 1 $G sched set-timeslice --pid $A --gpu 1 500 && expect_stderr_line "--pid of GPU 0 with --gpu 1: none"
expect_exit 0 $G sched set-interleave --gpu 0 --pid $A high
n=$(printf '%s\n' "$OUT" | grep -c "interleave")
[ "$n" = 2 ] && ok "set-interleave --gpu" || fail "set-interleave --gpu" "$OUT"

# run --gpu: a policy for one GPU; the others' TSGs left as they are
$G sched run fixed timeslice 3333 --gpu 1 >"$W/run.out" 2>&1 &
RP=$!
i=0; while ! grep -q "active" "$W/run.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05; done
expect_exit 0 $G sched list
ts0=$(printf '%s\n' "$OUT" | awk '$10 == "0" && $3 != "onboth" { print $7 }' | sort -u | paste -sd' ')
ts1=$(printf '%s\n' "$OUT" | awk '$10 == "1" { print $7 }' | sort -u)
[ "$ts1" = 3333us ] && ok "run --gpu 1: GPU 1's TSGs (both processes) get the policy" ||
	fail "run --gpu 1" "$OUT"
case " $ts0 " in *" 3333us "*) fail "run --gpu 1 touched GPU 0" "$OUT" ;;
	*) ok "run --gpu 1: GPU 0's TSGs left as they were ($ts0)" ;; esac
kill -TERM $RP; wait $RP
expect_exit 0 $G sched list
n=$(printf '%s\n' "$OUT" | grep -c " 3333us ")
[ "$n" = 0 ] && ok "run --gpu 1 stopped: GPU 1's values restored" || fail "restore" "$OUT"
expect_exit 1 $G sched run fixed timeslice 100 --gpu 9 &&
	expect_stderr_line "no such GPU"


# --- exporter -----------------------------------------------------------------
PORT=9473
$G exporter serve --listen 127.0.0.1:$PORT >"$W/exp.log" 2>&1 &
EP=$!
HTTPGET=${HTTPGET:-tests/tools/httpget}
i=0; while ! "$HTTPGET" http://127.0.0.1:$PORT/metrics 5 >"$W/m.prom" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.2; done
grep -q "^gpuctl_gpu_info{gpu=\"0\",UUID=\"$U0\",model_name=\"NVIDIA Model GPU\",pci_bus_id=\"00000000:01:00.0\"} 1$" "$W/m.prom" &&
	ok "exporter: gpuctl_gpu_info of GPU 0" || fail "gpu_info" "$(grep gpu_info "$W/m.prom")"
[ "$(grep -c '^gpuctl_gpu_info{' "$W/m.prom")" = 2 ] && ok "exporter: two GPUs" || fail "gpu_info count" "$(grep -c '^gpuctl_gpu_info{' "$W/m.prom")"
grep -q "^gpuctl_gpu_memory_free_bytes{gpu=\"1\",UUID=\"$U1\"} " "$W/m.prom" && ok "exporter: free memory per GPU" ||
	fail "memory" "$(grep memory "$W/m.prom")"
n=$(grep "^gpuctl_tsg_info{pid=\"$B\",comm=\"ongpu1\"," "$W/m.prom" | grep -c "tsg=\"[0-9]*\",.*gpu=\"1\",UUID=\"$U1\"")
[ "$n" = 2 ] && ok "exporter: TSG series carry gpu and UUID" || fail "tsg labels" "$(grep tsg_info "$W/m.prom")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$W/m.prom" >"$W/pt" 2>&1 && ok "promtool check metrics" || fail "promtool" "$(cat "$W/pt")"
else
	fail "promtool in the guest" "missing: run through tests/run (VM_BINS)"
fi
kill $EP 2>/dev/null; wait $EP 2>/dev/null

# --- stat per GPU (uvm-tools counters per processor) ---------------------------
echo 1 >$MP/tools_device 2>/dev/null
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j stat --backend uvm-tools -- uvmsim run seq blocks 8 wait_ms 300
expect_json "stat -j"
case $OUT in *'"per_process_gpu":[{"pid":'*'"gpu":0,"uuid":"'$U0'"'*) ok "stat -j: the row names GPU 0 and its UUID" ;;
	*) fail "stat per GPU" "$OUT" ;; esac

# --- a version-2 record names its GPUs (uvm-tools: nvidia-smi's index; issue 44) --------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace record --backend uvm-tools -o $W/rec1 -- uvmsim run seq blocks 4 wait_ms 300 gpu 1
expect_exit 0 $G trace report -i $W/rec1 --format csv
expect_out "record v2: GPU 1's faults carry its UUID" "^[0-9]+,fault,[0-9]+,\"uvmsim\",1,\"$U1\","
expect_exit 0 $G trace report -i $W/rec1 --svg $W/rec1.svg
grep -q ">GPU 1: NVIDIA Model GPU ($U1), [0-9]* events<" $W/rec1.svg &&
	grep -q ">GPU 1: NVIDIA Model GPU<" $W/rec1.svg && ok "record v2: the picture names GPU 1" ||
	fail "GPU name in the picture" "$(grep -o '>GPU [0-9][^<]*<' $W/rec1.svg | head -3)"

# --- the exporter's per-process UVM counters, per GPU ---------------------------
uvmsim reset va_blocks 64 >/dev/null
$G exporter serve --listen 127.0.0.1:$PORT --interval 200 >"$W/exp3.log" 2>&1 &
EP=$!
uvmsim run seq blocks 4 wait_ms 1500 hold_ms 4000 >/dev/null 2>&1 &
SIM=$!
sleep 3.5
"$HTTPGET" http://127.0.0.1:$PORT/metrics 5 >"$W/m3.prom" 2>/dev/null
n=$(grep -c "^gpuctl_uvm_gpu_faults_total{pid=\"$SIM\",comm=\"uvmsim\",.*gpu=\"0\",UUID=\"$U0\"} [1-9]" "$W/m3.prom")
[ "$n" = 1 ] && ok "exporter: uvmsim's GPU faults on GPU 0, by gpu and UUID" ||
	fail "per-GPU UVM counters" "$(grep "^gpuctl_uvm_" "$W/m3.prom" | head -5) $(tail -3 "$W/exp3.log")"
grep -q "^gpuctl_uvm_gpu_faults_total{pid=\"$SIM\",comm=\"uvmsim\",.*gpu=\"1\"" "$W/m3.prom" &&
	fail "GPU 1" "a series for a GPU the process never used" || ok "exporter: no series for GPU 1 (unused)"
kill $EP 2>/dev/null; wait $EP 2>/dev/null
wait $SIM 2>/dev/null

# --- trace report per GPU -----------------------------------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace record -o $W/rec -- uvmsim run seq blocks 4
expect_exit 0 $G trace report -i $W/rec
expect_out "trace report: a per-GPU table" "^per GPU$"
expect_out "trace report: GPU 0's faults" "^  0 +[1-9][0-9]* "
expect_exit 0 $G -j trace report -i $W/rec
case $OUT in *'"by_gpu":[{"gpu":0,"gpu_faults":'[1-9]*) ok "trace report -j: by_gpu" ;; *) fail "by_gpu" "$OUT" ;; esac

# --- the engine's free memory from RM -----------------------------------------
B0=0x7e0000000000
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 1 pages 1 hold_ms 60000 >/dev/null 2>&1 &
P=$!
sleep 0.5
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch migrate -p $P $B0 4M
expect_json_eq "migrate without --max-bytes: RM told the free memory" .bytes 4194304
kill $P 2>/dev/null; wait $P 2>/dev/null

kill $A $B $C 2>/dev/null
$G sched unload >/dev/null 2>&1
summary
