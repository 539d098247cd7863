#!/bin/sh
# gpuctl trace and stat, bpf backend, against the model's stock-driver trace points.
. "$(dirname "$0")/../lib.sh"
G=$GPUCTL
T=$T_DIR

uvmsim reset va_blocks 64 batch 64 >/dev/null || fail "uvmsim reset" "failed"

expect_exit 0 $G probe
expect_out "probe names the trace backend" "trace backend +bpf"

# stat for a command: counts of the command's faults
expect_exit 0 $G -j stat -- uvmsim run seq blocks 4
expect_json "stat -- CMD"
expect_json_expr "stat counts gpu faults" 'j["counters"]["gpu_faults"] > 0 and j["backend"] == "bpf"'
expect_json_expr "stat counts batches and replays" 'j["counters"]["fault_batches"] > 0 and j["counters"]["replays"] > 0'
expect_json_expr "stat counts bytes to the GPU and prefetch" 'j["counters"]["bytes_htod"] > 0 and j["counters"]["prefetch_bytes"] > 0'
expect_exit 0 $G stat -x , -- uvmsim run stride blocks 2
expect_out "stat -x CSV" "^[0-9]+,,gpu_faults$"
expect_exit 0 $G stat -I 100 --interval-count 2 -- sleep 1
expect_out "stat -I intervals" "gpu_faults"

# live traces
uvmsim reset va_blocks 64 batch 64 >/dev/null
expect_exit 0 $G trace faults -- uvmsim run seq blocks 2
expect_out "trace faults: event lines" " fault +0x[0-9a-f]+ +read"
expect_out "trace faults: batch latency histogram" "batch service latency"
expect_out "trace faults: hot ranges" "hottest 2 MiB ranges"
expect_exit 0 $G -j trace faults --max-events 5 -- uvmsim run random blocks 4
n=$(printf '%s\n' "$OUT" | grep -c '"event":"fault"')
[ "$n" = 5 ] && ok "--max-events 5 gives 5 fault lines" || fail "--max-events" "$n lines"
printf '%s\n' "$OUT" | while read -r line; do
	printf '%s' "$line" | python3 -m json.tool >/dev/null 2>&1 || { echo "bad: $line"; exit 1; }
done && ok "trace -j: every line is JSON" || fail "trace -j" "a line is not JSON"
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace migrations -- uvmsim run seq blocks 2
expect_out "trace migrations: cause fault" " migration .* fault "
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace prefetch -- uvmsim run seq blocks 2
expect_out "trace prefetch: prefetch migrations" " migration .* prefetch "
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G trace replays -- uvmsim run seq blocks 2
expect_out "trace replays" " replay "
uvmsim reset va_blocks 64 gpu_chunks 2 >/dev/null
expect_exit 0 $G trace evictions -- uvmsim run seq blocks 8
expect_out "trace evictions" " eviction "

# record and report
uvmsim reset va_blocks 64 batch 64 >/dev/null
expect_exit 0 $G trace record -o $T/rec -- uvmsim run stride blocks 4 stride 8
expect_exit 0 $G trace report -i $T/rec
expect_out "report: header" "^record: version 1, .*backend bpf"
expect_out "report: summary" "gpu faults"
live=$(printf '%s\n' "$OUT" | grep "gpu faults")
expect_exit 0 $G -j trace report -i $T/rec
expect_json "report -j"
expect_exit 0 $G trace report -i $T/rec --format events
expect_out "report --format events" " fault "
expect_exit 0 $G trace report -i $T/rec --svg $T/heat.svg
grep -q "<svg" $T/heat.svg && ok "report --svg writes an SVG" || fail "svg" "no svg"
expect_exit 0 $G trace report -i $T/rec --format model
printf '%s\n' "$OUT" >$T/model.trace
expect_out "report --format model" "^[0-9a-f]+ r 0$"
uvmsim reset va_blocks 64 >/dev/null
uvmsim run trace file $T/model.trace >/dev/null && ok "the model replays the recorded trace" || fail "model replay" "uvmsim failed"
uvmsim reset va_blocks 64 >/dev/null
$G trace record -o - -- uvmsim run seq blocks 1 2>/dev/null | $G trace report -i - >$T/pipe.out
grep -q "gpu faults" $T/pipe.out && ok "record -o - | report -i -" || fail "pipe mode" "$(cat $T/pipe.out)"

# bad input
expect_exit 1 $G trace faults -p 999999
expect_stderr_line "no such pid"
expect_exit 1 $G trace faults --backend uvm-tools -p 1
expect_stderr_line "pid without a GPU context"
echo "not a record" >$T/bad
expect_exit 1 $G trace report -i $T/bad
expect_stderr_line "not a record"
head -c 200 $T/rec >$T/trunc
expect_exit 1 $G trace report -i $T/trunc
expect_stderr_line "truncated record"
expect_exit 2 $G stat -I 0
expect_stderr_line "interval 0"
expect_exit 2 $G trace faults --duration 0
expect_exit 2 $G trace faults -p 1 -- true
expect_exit 1 $G -j trace report -i $T/bad
expect_json "error under -j"
expect_exit 1 $G trace record -o /nonexistent/dir/f -- true
expect_stderr_line "unwritable output"

summary
