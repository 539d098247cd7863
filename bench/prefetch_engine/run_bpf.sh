#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/prefetch_engine/run_bpf.sh - the BPF engine on a real GPU (stock
# driver), one command: the decision cost on the host (decide-static), then
# run.sh's workloads interleaved: torch alone / none / populate (none's cost
# on a fault-heavy program; goal <= 2 %) and the 8 GiB sweep alone / none /
# populate (speed-up; the 2026-11-22 figure was 5.9x).  The engine's own
# program time per run (prog_calls, prog_us) comes from engine.jsonl.
# Needs gpuctl-static and decide-static built here (make gpuctl-static
# bench/prefetch_engine/decide-static).  About 4 minutes.
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
export OUT=${OUT:-$D/out}
mkdir -p "$OUT"
ln -sf "$R/gpuctl-static" "$D/run-gpuctl"
{ uname -r; nproc; grep -m1 "model name" /proc/cpuinfo; cat /proc/sys/net/core/bpf_jit_enable; } > "$OUT/host.txt" 2>&1
echo "== decision cost"
"$D/decide-static" -r 2001 | tee "$OUT/decide.txt"
"$D/decide-static" -r 2001 -j > "$OUT/decide.json"
ROUNDS=3 SROUNDS=0 TROUNDS=3 SKIP_SAFETY=1 \
	SWEEP_CFGS="alone none populate" TORCH_CFGS="alone none populate" \
	bash "$D/run.sh"
# the program's time under the engine, per run
python3 - "$OUT/engine.jsonl" > "$OUT/prog.txt" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    try:
        d = json.loads(l)
    except Exception:
        continue
    e = d.get("engine") or {}
    c, ns, seen = e.get("prog_calls", 0), e.get("prog_ns", 0), e.get("seen", 0)
    print("%s r%s %s: prog_calls %s seen %s prog_us %d  per call %.0f ns  per event %.1f ns  lost %s cpu_us %s" % (
        d["workload"], d["round"], d["config"], c, seen, ns // 1000, ns / c if c else 0, ns / seen if seen else 0,
        e.get("lost_events"), e.get("cpu_us")))
PY
cat "$OUT/prog.txt"
