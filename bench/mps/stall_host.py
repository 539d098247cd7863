# SPDX-License-Identifier: GPL-2.0
"""stall_host.py WORKDIR [WINDOW_MS] - which of the host's counters move when
the LC stalls?  WORKDIR/host.txt: host_sample.py's lines (MONO NAME=VALUE
..., cumulative).  WORKDIR/slow.txt: the LC's slow requests, grouped into
bursts as slow_smi.py does (every burst of at least MIN_BURST requests).
Each counter's rate (per second) over the sample intervals that meet a
window of WINDOW_MS (200) before to WINDOW_MS after a burst's first slow
request, against its median rate over all intervals: the counters with the
largest ratio first (a counter that never moves off the bursts and moves at
them shows "new").  A counter that rises only at the bursts names a suspect
(a timer softirq, the GPU's interrupts, another VM's steal time), not a
cause.
"""
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import slow_smi  # noqa: E402

MIN_BURST = 3
TOP = 10


def host(w):
    rows = []
    for line in open(os.path.join(w, "host.txt")):
        f = line.split()
        if len(f) < 2:
            continue
        rows.append((float(f[0]), {k: int(v) for k, v in (x.split("=", 1) for x in f[1:])}))
    return rows


def rates(rows):
    """Per interval between two samples: (start, end, {counter: per second})."""
    out = []
    for (t0, a), (t1, b) in zip(rows, rows[1:]):
        if t1 > t0:
            out.append((t0, t1, {k: (b[k] - a[k]) / (t1 - t0) for k in b if k in a}))
    return out


def main(argv):
    if not argv or len(argv) > 2:
        print("Error: usage: stall_host.py WORKDIR [WINDOW_MS]", file=sys.stderr)
        return 2
    w = argv[0]
    try:
        win = float(argv[1]) / 1e3 if len(argv) > 1 else 0.2
        iv = rates(host(w))
        starts = [b[0] for _, bs in slow_smi.runs_bursts(w) for b in bs if len(b) >= MIN_BURST]
    except OSError as e:
        print("Error: %s" % e, file=sys.stderr)
        return 2
    except ValueError as e:
        print("Error: %s: not a number: %s" % (w, e), file=sys.stderr)
        return 2
    if len(iv) < 2 or not starts:
        print("the host's counters at the LC's stalls: %s" % (
            "no bursts of %d slow requests or more" % MIN_BURST if starts == [] else "too few samples"))
        return 0
    at = [r for t0, t1, r in iv if any(t1 >= s - win and t0 <= s + win for s in starts)]
    keys = sorted(set().union(*(r.keys() for _, _, r in iv)))
    rows = []
    for k in keys:
        base = st.median(r.get(k, 0) for _, _, r in iv)
        hit = st.mean(r.get(k, 0) for r in at) if at else 0
        if hit > 0:
            rows.append((hit / base if base > 0 else float("inf"), k, hit, base))
    rows.sort(key=lambda x: (-x[0], x[1]))
    print("the host's counters at the LC's stalls (%d bursts of %d+ slow requests, %d of %d "
          "intervals within %.0f ms of one), per second:" % (
              len(starts), MIN_BURST, len(at), len(iv), win * 1e3))
    for ratio, k, hit, base in rows[:TOP]:
        print("   %-16s at the stalls %10.1f, median %10.1f  (%s)" % (
            k, hit, base, "new" if ratio == float("inf") else "%.1fx" % ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
