#!/bin/sh
# gpuctl trace and stat over the uvm-tools backend, end to end against the model's
# /dev/nvidia-uvm-tools (the 580 tracker ABI, cmd/drv/uvm_tools.h) on uvmsim fault
# streams: the events and the driver counters match the model's own counters.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
T=$T_DIR
UC=${UVMCLIENT:-tests/model/uvmclient}
[ -x "$UC" ] || UC=$(command -v uvmclient)
B=0x7e0000000000
TOOLS=/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
echo 1 >$TOOLS
[ -c /dev/nvidia-uvm-tools ] && ok "tools device on" || fail "tools device" "missing"
# A run that waits for the tracer to attach (a CUDA program's startup).
RUN="uvmsim run seq blocks 4 wait_ms 300"

expect_exit 0 $G -j probe
expect_json_eq "probe: uvm-tools for -p PID" .trace_backend_for_pid uvm-tools

# --- stat: the driver's counters are the model's ----------------------------
uvmsim reset va_blocks 64 batch 64 >/dev/null
expect_exit 0 $G -j stat --backend uvm-tools -- $RUN
expect_json "stat --backend uvm-tools"
STATS=$(uvmsim stats)
expect_json_eq "stat: backend" .backend uvm-tools
expect_json_eq "stat: gpu_faults = the model's fault entries" .counters.gpu_faults "$(stat_of fault_entries)"
expect_json_eq "stat: bytes_htod = pages migrated x 4 KiB" .counters.bytes_htod \
	"$(($(stat_of pages_migrated) * 4096))"
expect_json_eq "stat: replays = the model's replays" .counters.replays "$(stat_of replays)"
expect_json_eq "stat: bytes_dtoh 0" .counters.bytes_dtoh 0
[ "$(stat_of fault_entries)" -gt 0 ] && ok "the run faulted" || fail "run" "$STATS"

# --- trace: events --------------------------------------------------------
uvmsim reset va_blocks 64 batch 64 >/dev/null
expect_exit 0 $G -j trace faults --backend uvm-tools -- $RUN
STATS=$(uvmsim stats)
printf '%s\n' "$OUT" | grep '"event":"fault"' >$T/faults
n=$(grep -c '' <$T/faults)
[ "$n" = "$(stat_of fault_entries)" ] && ok "trace faults: one event per fault entry ($n)" ||
	fail "fault events" "$n events, model $(stat_of fault_entries)"
grep -vq '"addr":"0x7e00' $T/faults && fail "fault addresses" "$(grep -v '"addr":"0x7e00' $T/faults | head -2)" ||
	ok "fault addresses are in the managed mapping"
head -1 $T/faults | grep -q '"addr":"0x7e0000000000".*"access":"read"' && ok "first fault: page 0, read" ||
	fail "first fault" "$(head -1 $T/faults)"
grep -q '"gpu":0' $T/faults && ok "faults name GPU 0" || fail "fault gpu" "$(head -1 $T/faults)"

printf '%x w\n%x r\n' $((B + 0x5000)) $((B + 0x205000)) >$T/trace.in
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace faults --backend uvm-tools -- uvmsim run trace file $T/trace.in wait_ms 300
expect_out "trace: a write fault" " fault +0x7e0000005000 +write"
expect_out "trace: a read fault" " fault +0x7e0000205000 +read"

uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j trace migrations --backend uvm-tools -- $RUN
STATS=$(uvmsim stats)
printf '%s\n' "$OUT" | grep '"event":"migration"' >$T/mig
grep -q '"cause":"fault"' $T/mig && ok "migrations: cause fault" || fail "cause fault" "$(head -2 $T/mig)"
grep -q '"cause":"prefetch"' $T/mig && ok "migrations: cause prefetch" || fail "cause prefetch" "$(head -2 $T/mig)"
bytes=$(sed 's/.*"bytes":\([0-9]*\).*/\1/' $T/mig | awk '{ s += $1 } END { print s }')
[ "$bytes" = $(($(stat_of pages_migrated) * 4096)) ] && ok "migration bytes = the model's pages migrated" ||
	fail "migration bytes" "$bytes vs $(stat_of pages_migrated) pages"
pf=$(grep '"cause":"prefetch"' $T/mig | sed 's/.*"bytes":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s }')
[ "$pf" = $(($(stat_of pages_prefetched) * 4096)) ] && ok "prefetch bytes = the model's pages prefetched" ||
	fail "prefetch bytes" "$pf vs $(stat_of pages_prefetched) pages"

uvmsim reset va_blocks 64 gpu_chunks 2 >/dev/null
expect_exit 0 $G trace evictions --backend uvm-tools -- uvmsim run seq blocks 8 wait_ms 300
STATS=$(uvmsim stats)
n=$(printf '%s\n' "$OUT" | grep -c " eviction ")
[ "$n" = "$(stat_of evictions)" ] && [ "$n" -gt 0 ] && ok "trace evictions: one per evicted chunk ($n)" ||
	fail "evictions" "$n events, model $(stat_of evictions)"

uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace replays --backend uvm-tools -- $RUN
STATS=$(uvmsim stats)
n=$(printf '%s\n' "$OUT" | grep -c " replay ")
[ "$n" = "$(stat_of replays)" ] && ok "trace replays: one per replay ($n)" || fail "replays" "$n vs $(stat_of replays)"

# thrashing: pages 0-63 of blocks 0-3, three passes over 2 GPU chunks
: >$T/thrash.in
for pass in 1 2 3; do
	for b in 0 1 2 3; do
		for p in $(seq 0 63); do printf '%x r\n' $(((b * 512 + p) * 4096)) >>$T/thrash.in; done
	done
done
uvmsim reset va_blocks 64 gpu_chunks 2 >/dev/null
expect_exit 0 $G -j stat --backend uvm-tools -- uvmsim run trace file $T/thrash.in warps 1 wait_ms 300
STATS=$(uvmsim stats)
[ "$(stat_of thrashing_pages)" -gt 0 ] && ok "the model flagged thrashing pages" || fail "thrashing" "$STATS"
expect_json_eq "stat: thrashing = the model's thrashing pages" .counters.thrashing "$(stat_of thrashing_pages)"
expect_json_eq "stat: evictions = the model's" .counters.evictions "$(stat_of evictions)"
expect_json_eq "stat: eviction bytes = the model's" .counters.eviction_bytes \
	"$(($(stat_of pages_evicted) * 4096))"
expect_json_eq "stat: bytes_dtoh = eviction bytes" .counters.bytes_dtoh "$(($(stat_of pages_evicted) * 4096))"

# --- -p PID: the tracker follows the target's fd; UVM_MIGRATE shows as user ---
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 2 wait_ms 3000 >/dev/null &
P=$!
sleep 0.3
$G -j trace migrations -p $P >$T/p.out 2>$T/p.err &
TP=$!
i=0	# the tracer has the tools device open (-j prints no "Tracing" line): 5 s at most
until ls -l /proc/$TP/fd 2>/dev/null | grep -q nvidia-uvm-tools; do
	i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.1
done
sleep 0.3	# and its events enabled
"$UC" -p $P migrate $B 0x400000 gpu >/dev/null
wait $P
wait $TP
STATS=$(uvmsim stats)
# one migration event per 2 MiB VA block, as the driver reports them
n=$(grep -c '"event":"migration".*"cause":"user".*"bytes":2097152' $T/p.out)
grep -q '"event":"migration".*"addr":"0x7e0000200000".*"cause":"user"' $T/p.out && [ "$n" = 2 ] &&
	ok "-p PID: UVM_MIGRATE by another process: the target's user migrations, per block" ||
	fail "-p user migration" "$(head -c 400 $T/p.out) $(cat $T/p.err)"
grep -q '"cause":"fault"' $T/p.out && fail "-p: after the migration" "the target still faulted" ||
	ok "-p: the migrated target did not fault"
[ "$(stat_of fault_entries)" = 0 ] && ok "model: 0 faults after the migration" || fail "faults" "$STATS"

# --- the queue's semantics, through gpuctl's consumer (utqclient) -----------
# A 16-entry queue, threshold 8, read only after the run: poll wakes at the
# threshold, 15 entries fit (one slot stays free), the rest count as dropped.
UQ=${UTQCLIENT:-tests/model/utqclient}
[ -x "$UQ" ] || UQ=$(command -v utqclient)
uvmsim reset va_blocks 64 batch 64 >/dev/null
uvmsim run seq blocks 4 wait_ms 500 >/dev/null &
P=$!
sleep 0.1
"$UQ" $P 16 8 5000 >$T/q.out 2>&1 &
Q=$!
wait $P
wait $Q
STATS=$(uvmsim stats)
q() { awk -v k="$1" '$1 == k { print $2 }' $T/q.out; }
fe=$(stat_of fault_entries)
[ "$(q woken)" = 1 ] && ok "queue: poll woke at the threshold" || fail "queue woken" "$(cat $T/q.out)"
[ "$(q pending)" -ge 8 ] && [ "$(q pending)" -le 15 ] && ok "queue: 8..15 entries pending at wake-up" ||
	fail "queue pending" "$(cat $T/q.out)"
[ "$(q read)" = 15 ] && ok "queue: a full 16-entry queue holds 15" || fail "queue read" "$(cat $T/q.out)"
[ "$(q dropped)" = $((fe - 15)) ] && ok "queue: the other $((fe - 15)) fault events counted as dropped" ||
	fail "queue dropped" "$(cat $T/q.out); model fault entries $fe"
[ "$(q counter)" = "$fe" ] && ok "counter tracker: GPU faults = the model's fault entries" ||
	fail "counter" "$(cat $T/q.out); model $fe"

# record and report through uvm-tools
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace record -o $T/rec --backend uvm-tools -- $RUN
expect_exit 0 $G trace report -i $T/rec
expect_out "report: backend uvm-tools" "backend uvm-tools"
expect_out "report: gpu faults" "gpu faults"
# record all tsg (issue 44): uvm-tools for the command's UVM events, rm beside it
# on the model's RM device, one record; the command makes no TSG, so none is in it
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 env GPUCTL_RM_DEVICE=/dev/uvm_model_rm $G trace record all tsg -o $T/both.rec --backend uvm-tools -- $RUN
expect_err "record all tsg: both backends started" "^Tracing all\+tsg with the uvm-tools\+rm backend for the command"
expect_exit 0 $G trace report -i $T/both.rec
expect_out "record all tsg: the record names both backends" "backend uvm-tools\+rm, events all\+tsg"
expect_out "record all tsg: the command's faults" "^  gpu faults +[1-9][0-9]* "
expect_exit 0 $G trace report -i $T/both.rec --format csv
expect_out "record all tsg: uvm-tools names the GPU (its index is nvidia-smi's)" '^[0-9]+,fault,[0-9]+,"uvmsim",0,"GPU-[0-9a-f-]+",'

# --- refusals ---------------------------------------------------------------
"$UC" --own --noinit hold 5000 >/dev/null &
P=$!
sleep 0.3
expect_exit 1 $G trace faults --backend uvm-tools -p $P
expect_stderr_line "uvm-tools on an uninitialized fd"
expect_err "names the driver's answer" "not an initialized UVM va_space \\(status 0x16\\)"
kill $P
wait $P 2>/dev/null

echo 0 >$TOOLS
summary
