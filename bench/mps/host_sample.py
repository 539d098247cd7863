# SPDX-License-Identifier: GPL-2.0
"""host_sample.py - the host's own counters beside a co-location bench, every
INTERVAL_MS (100), each line stamped with time.monotonic() as the LC stamps
its requests:
  MONO NAME=VALUE ...
cumulative counters, the differences are stall_host.py's business:
  - /proc/stat: the CPUs' user, nice, system, idle, iowait, irq, softirq
    and steal time (ticks), ctxt (context switches), intr (interrupts);
  - /proc/interrupts: irq_nvidia (every line naming nvidia, all CPUs), and
    the per-CPU kinds LOC, RES, CAL, TLB, IWI (local timer, rescheduling,
    function call, TLB shootdown, irq work);
  - /proc/softirqs: sirq_TIMER, sirq_SCHED, sirq_RCU ... (all CPUs).
Why: on some machines LC alone stalls in bursts about every 1.5 s
(slow_smi.py's table, session 15), and a counter that moves at the bursts
names what stalls it.  PROC (default /proc) for the tests; COUNT ends it
after that many lines; else it ends on SIGTERM or when its stdout closes.
"""
import os
import sys
import time

STAT_CPU = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
IPI_KINDS = ("LOC", "RES", "CAL", "TLB", "IWI")


def read(path):
    with open(path) as f:
        return f.read().splitlines()


def stat(proc, out):
    for line in read(os.path.join(proc, "stat")):
        f = line.split()
        if not f:
            continue
        if f[0] == "cpu":
            out.update(zip(STAT_CPU, (int(x) for x in f[1:1 + len(STAT_CPU)])))
        elif f[0] in ("ctxt", "intr"):
            out[f[0]] = int(f[1])


def interrupts(proc, out):
    lines = read(os.path.join(proc, "interrupts"))
    ncpu = len(lines[0].split()) if lines else 0
    out["irq_nvidia"] = 0
    for line in lines[1:]:
        f = line.split()
        if not f:
            continue
        name = f[0].rstrip(":")
        counts = [int(x) for x in f[1:1 + ncpu] if x.isdigit()]
        if name in IPI_KINDS:
            out[name] = sum(counts)
        elif "nvidia" in line:
            out["irq_nvidia"] += sum(counts)


def softirqs(proc, out):
    for line in read(os.path.join(proc, "softirqs"))[1:]:
        f = line.split()
        if f:
            out["sirq_" + f[0].rstrip(":")] = sum(int(x) for x in f[1:] if x.isdigit())


def main():
    proc = os.environ.get("PROC", "/proc")
    try:
        every = float(os.environ.get("INTERVAL_MS", "100")) / 1e3
        count = int(os.environ.get("COUNT", "0"))
    except ValueError:
        print("Error: INTERVAL_MS and COUNT are numbers", file=sys.stderr)
        return 2
    n = 0
    nxt = time.monotonic()
    while not count or n < count:
        out = {}
        t = time.monotonic()
        try:
            stat(proc, out)
            interrupts(proc, out)
            softirqs(proc, out)
        except (OSError, ValueError, IndexError) as e:
            print("Error: %s: %s" % (proc, e), file=sys.stderr)
            return 1
        try:
            print("%.3f %s" % (t, " ".join("%s=%d" % kv for kv in sorted(out.items()))), flush=True)
        except BrokenPipeError:
            return 0
        n += 1
        nxt += every
        time.sleep(max(0.0, nxt - time.monotonic()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
