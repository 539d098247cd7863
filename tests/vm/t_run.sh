#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# t_run.sh - gpuctl run against the model: one tool running CMD itself
# (the engine's report, stat's counters), several tools following CMD by pid
# (engine + stat + record in one document), CMD's status, the python
# library's view where python3 is in the guest.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
SLOW="wait_ms 300 slice 32 gap_ms 20"
MAX="--max-bytes 256M"	# no NVML in the VM: the cap has to be given

uvmsim reset va_blocks 64 >/dev/null
# one tool: the engine runs CMD (its KEY VALUE words and options among them)
expect_exit 0 $G -j run --prefetch populate $MAX -- uvmsim run seq blocks 16 $SLOW
expect_json_expr "run --prefetch: the engine's report, CMD's status" \
    'j["prefetch"]["policy"] == "populate" and j["command_status"] == 0 and j["stat"] is None and j["schema_version"] == 2'
# one tool: stat runs CMD
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j run --stat -- uvmsim run seq blocks 4
expect_json_expr "run --stat: counters, status" \
    'j["stat"]["counters"]["gpu_faults"] > 0 and j["command_status"] == 0 and j["prefetch"] is None'
expect_exit 3 $G -j run --stat -- sh -c 'uvmsim run seq blocks 1 >/dev/null; exit 3'
expect_json_eq "run --stat: a failing CMD's status" .command_status 3
# several tools: CMD first, the tools on its pid once it has the UVM device open
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j run --prefetch stream $MAX --stat --record "$T_DIR/r.gtr" -- uvmsim run seq blocks 32 $SLOW
expect_json_expr "run, three tools: one document" \
    'j["prefetch"]["policy"] == "stream" and "counters" in j["stat"] and j["record"].endswith("r.gtr") and j["command_status"] == 0'
[ -s "$T_DIR/r.gtr" ] && ok "run --record: the record was written" || fail "run --record" "no $T_DIR/r.gtr"
expect_exit 0 $G -j trace report -i "$T_DIR/r.gtr"
expect_json "run --record: the record reads back"
summary
