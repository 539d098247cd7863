#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_stall.sh - bench/mps/host_sample.py on a made-up /proc (the
# CPUs' times, context switches, the GPU's interrupts summed over CPUs and
# lines, the IPI kinds, the softirqs), COUNT lines and a missing file's
# Error; stall_host.py on known counters: the one that rises only at the
# LC's bursts of slow requests comes first, one that never moves elsewhere
# is "new", a steady one is 1.0x; no bursts said so; bad input: one Error
# line, exit 2.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

M=bench/mps
P=$T_DIR/proc
mkdir -p "$P"
cat >"$P/stat" <<'X'
cpu  100 2 30 4000 5 6 7 8 0 0
cpu0 50 1 15 2000 2 3 3 4 0 0
intr 12345 1 2 3
ctxt 999
btime 1
X
cat >"$P/interrupts" <<'X'
           CPU0       CPU1
  0:         10          0   IO-APIC   2-edge      timer
 40:        100        200   PCI-MSI 1-edge      nvidia
 41:          5          6   PCI-MSI 2-edge      nvidia-nvlink
 50:          7          7   PCI-MSI 3-edge      eth0
LOC:       1000       2000   Local timer interrupts
RES:         30         40   Rescheduling interrupts
TLB:          1          2   TLB shootdowns
X
cat >"$P/softirqs" <<'X'
                    CPU0       CPU1
          HI:          0          0
       TIMER:        500        600
       SCHED:         70         80
X
expect_exit 0 env PROC="$P" COUNT=2 INTERVAL_MS=1 python3 $M/host_sample.py
[ "$(printf '%s\n' "$OUT" | grep -c .)" = 2 ] && ok "host_sample: COUNT lines" || fail "count" "$OUT"
L=$(printf '%s\n' "$OUT" | head -1)
for kv in user=100 nice=2 system=30 idle=4000 steal=8 ctxt=999 intr=12345 irq_nvidia=311 LOC=3000 RES=70 TLB=3 \
	sirq_TIMER=1100 sirq_SCHED=150 sirq_HI=0; do
	case " $L " in *" $kv "*) ok "host_sample: $kv" ;; *) fail "host_sample: $kv" "$L" ;; esac
done
case "$L" in [0-9]*.[0-9][0-9][0-9]\ *) ok "host_sample: stamped with the monotonic clock" ;; *) fail "stamp" "$L" ;; esac
rm "$P/softirqs"
expect_exit 1 env PROC="$P" COUNT=1 python3 $M/host_sample.py
expect_stderr_line "host_sample: a missing /proc file"
expect_exit 2 env INTERVAL_MS=fast COUNT=1 python3 $M/host_sample.py
expect_stderr_line "host_sample: INTERVAL_MS not a number"

# --- stall_host.py: samples every 0.1 s over 100-110 s; bursts at 102.0, 104.0, 106.0 -----
W=$T_DIR/w
mkdir -p "$W"
python3 - "$W" <<'PY'
import sys
w = sys.argv[1]
bursts = (102.0, 104.0, 106.0)
t, timer, ctxt, steal, lines = 100.0, 0, 0, 0, []
for i in range(101):
    t = 100.0 + i * 0.1
    near = any(abs(t - b) < 0.15 for b in bursts)
    timer += 100 if near else 10
    ctxt += 50
    steal += 7 if near else 0
    lines.append("%.3f sirq_TIMER=%d ctxt=%d steal=%d" % (t, timer, ctxt, steal))
open(w + "/host.txt", "w").write("\n".join(lines) + "\n")
# one run's slow requests: three bursts of 3, and a lone one (no burst of 3: not counted)
open(w + "/slow.txt", "w").write("alone_mps " + " ".join(
    "%.3f:20000" % (b + k * 0.02) for b in bursts for k in range(3)) + " 108.5:20000\n")
PY
expect_exit 0 python3 $M/stall_host.py "$W"
expect_out "stall_host: the heading counts bursts and intervals" \
	"^the host's counters at the LC's stalls \(3 bursts of 3\+ slow requests, [0-9]+ of 100 intervals within 200 ms of one\), per second:$"
first=$(printf '%s\n' "$OUT" | sed -n 2p)
case "$first" in "   steal "*"(new)") ok "stall_host: a counter moving only at the stalls comes first, new" ;;
	*) fail "first" "$OUT" ;; esac
expect_out "stall_host: the timer softirq, higher at the stalls" '^   sirq_TIMER +at the stalls +[0-9.]+, median +100\.0  \([0-9.]+x\)$'
expect_out "stall_host: the steady one at 1.0x" '^   ctxt +at the stalls +500\.0, median +500\.0  \(1\.0x\)$'
printf '%s\n' "$OUT" | grep -n '' | grep -q '^3:   sirq_TIMER' && ok "stall_host: ordered by the ratio" || fail "order" "$OUT"
echo "alone_mps 103.0:20000 105.0:20000" >"$W/slow.txt"
expect_exit 0 python3 $M/stall_host.py "$W"
expect_out "stall_host: no bursts, said" "^the host's counters at the LC's stalls: no bursts of 3 slow requests or more$"
expect_exit 2 python3 $M/stall_host.py
expect_stderr_line "stall_host: no WORKDIR"
expect_exit 2 python3 $M/stall_host.py "$T_DIR/nowhere"
expect_stderr_line "stall_host: a missing WORKDIR"
echo "100.0 ctxt=x" >"$W/host.txt"
expect_exit 2 python3 $M/stall_host.py "$W"
expect_stderr_line "stall_host: a counter not a number"
summary
