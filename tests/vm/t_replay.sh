#!/bin/sh
# replay, end to end on the model: the hook is inert unless the driver's
# uvm_perf_fault_replay_policy is 4 (load and show say so and how to set
# it); batch, once and adaptive decide as designed; set/show/unload; and
# the bad input of issue 5.
. "$(dirname "$0")/../lib.sh"

PIN=/sys/fs/bpf/gpuctl/replay
PARAM=/sys/module/${MODEL_NAME:-uvm_model}/parameters/uvm_perf_fault_replay_policy

st() { uvmsim stats | awk -v k="$1" '$1 == k { print $2 }'; }
work() { uvmsim reset gpu_chunks 32 $* && uvmsim run random blocks 64 count 20000 seed 7 warps 16; }
unchanged() {
	if [ ! -e $PIN/link ] && [ -z "$(ls $PIN 2>/dev/null)" ]; then
		ok "$1: nothing changed"
	else
		fail "$1: nothing changed" "$(ls -R $PIN)"
	fi
}

# --- the driver's parameter ---------------------------------------------
[ "$(cat $PARAM)" = 2 ] && ok "model: uvm_perf_fault_replay_policy defaults to 2 (batch+flush)" ||
	fail "param default" "$(cat $PARAM)"
echo 9 >$PARAM 2>/dev/null && fail "param rejects 9" "accepted" || ok "param rejects 9"

expect_exit 0 gpuctl replay list
for p in batch once adaptive; do expect_out "list names $p" "^$p "; done
expect_exit 0 gpuctl -j replay list && expect_json "replay list"

# --- bad input ----------------------------------------------------------
expect_exit 1 gpuctl replay set every 2 && expect_stderr_line "set with nothing loaded"
expect_exit 2 gpuctl replay load bogus && expect_stderr_line "unknown policy"
expect_exit 2 gpuctl replay load adaptive bogus 1 && expect_stderr_line "unknown key"
expect_exit 2 gpuctl replay load adaptive threshold 0 && expect_stderr_line "threshold 0"
expect_exit 2 gpuctl replay load adaptive threshold 101 && expect_stderr_line "threshold 101"
expect_exit 2 gpuctl replay load adaptive every -1 && expect_stderr_line "negative every"
expect_exit 2 gpuctl replay load batch every 2 && expect_stderr_line "key of another policy"
expect_exit 2 gpuctl replay load once pid 1 high && expect_stderr_line "pid for replay"
unchanged "bad loads"

# --- inert while the parameter is not 4 ---------------------------------
work
native_replays=$(st replays)
expect_exit 0 gpuctl replay load batch
expect_out "load prints what was attached" "^replay: batch attached"
case $ERR in
*"inert"*"uvm_perf_fault_replay_policy=2"*"echo 4 > $PARAM"*) ok "load says the hook is inert and how to set it" ;;
*) fail "load warns when inert" "$ERR" ;;
esac
expect_exit 0 gpuctl -j replay load batch && expect_json "-j load"
case $(json_get .warning) in *inert*) ok "-j load carries the warning" ;; *) fail "-j warning" "$OUT" ;; esac
expect_exit 0 gpuctl replay show
expect_out "show says the hook is inert" "warning: the policy is inert.*echo 4 >"
work
[ "$(st replay_bpf_calls)" -eq 0 ] && [ "$(st replays)" = "$native_replays" ] &&
	ok "inert: the driver never asked the policy" || fail "inert" "$(uvmsim stats | tr '\n' ' ')"

# --- under 4 -------------------------------------------------------------
echo 4 >$PARAM
expect_exit 0 gpuctl replay show
if printf '%s\n' "$OUT" | grep -q inert; then fail "no warning under 4" "$OUT"; else ok "no warning under 4"; fi
work
b_batches=$(st batches); b_replays=$(st replays); b_faults=$(st faults)
[ "$b_replays" -ge "$b_batches" ] && [ "$(st replay_bpf_calls)" = "$b_batches" ] &&
	ok "batch: a replay per batch ($b_replays replays, $b_batches batches)" ||
	fail "batch replays every batch" "$(uvmsim stats | tr '\n' ' ')"
expect_exit 0 gpuctl -j replay show && expect_json "show batch"
expect_json_eq "show counts the decisions" .counters.batches "$b_batches"

expect_exit 0 gpuctl replay load once
expect_out "swap to once" "^replay: once replaced batch"
work
o_replays=$(st replays); o_deferred=$(st batches_deferred)
echo "# random, 16 warps: replays batch $b_replays, once $o_replays; faults per replay $((b_faults / b_replays)) -> $(($(st faults) / o_replays))"
[ "$o_replays" -lt "$b_replays" ] && [ "$o_deferred" -gt 0 ] &&
	ok "once issues fewer replays than batch ($o_replays < $b_replays)" ||
	fail "once fewer replays" "once $o_replays, batch $b_replays"

expect_exit 0 gpuctl replay load adaptive every 4
work
a4=$(st replays)
expect_exit 0 gpuctl replay set every 16
expect_exit 0 gpuctl -j replay show
expect_json_eq "set every" .params.every 16
work
a16=$(st replays)
echo "# adaptive: replays every 4: $a4, every 16: $a16"
[ "$a4" -lt "$b_replays" ] && [ "$a16" -lt "$a4" ] && [ "$a16" -ge "$o_replays" ] &&
	ok "adaptive: between once and batch, fewer with a larger interval" ||
	fail "adaptive replays" "every 4: $a4, every 16: $a16, batch $b_replays, once $o_replays"
# a 1 % threshold: nearly every batch has a duplicate or more
expect_exit 0 gpuctl replay set threshold 1 every 1000
uvmsim reset gpu_chunks 32 && uvmsim run seq blocks 8 warps 64 >/dev/null
t1=$(st replays)
expect_exit 0 gpuctl -j replay show
[ "$(json_get .counters.by_share)" -gt 0 ] && ok "adaptive replays on the duplicate share ($t1 replays)" ||
	fail "adaptive by share" "$OUT"
expect_exit 2 gpuctl replay set threshold 0 && expect_stderr_line "set threshold 0"
expect_exit 2 gpuctl replay set every && expect_stderr_line "set key without value"
expect_exit 0 gpuctl -j replay show
expect_json_eq "bad set changed nothing" .params.threshold 1

expect_exit 0 gpuctl -j replay unload && expect_json "unload"
expect_json_eq "unload names the policy" .unloaded adaptive
work
[ "$(st replay_bpf_calls)" -eq 0 ] && ok "after unload the driver decides alone" || fail "after unload" "$(uvmsim stats | tr '\n' ' ')"
unchanged "unload"
echo 2 >$PARAM
summary
