# SPDX-License-Identifier: GPL-2.0
"""slow_smi.py WORKDIR [WINDOW_MS] - were the LC's slow requests the GPU
sampler's doing?  static_gpu.sh samples the GPU with nvidia-smi every
500 ms beside every phase (clocks.py); LC alone's P99 rests on its 1-2 %
slowest requests (9-17 over 10 ms of ~900 a phase, session 14's lvl call),
about as many as the samples in a phase's counted 5 s.

WORKDIR/slow.txt (coloc.py's COLOC_SLOW_FILE): per run "LABEL START:US ...",
the counted requests over twice the run's P50.  WORKDIR/clocks.txt: one
line per sample, its time first (time.monotonic(), as START).  A sample's
query runs before its line is printed: a request is "at a sample" when it
was under way at a line's time or up to WINDOW_MS (50) before it.  Chance:
a request of d seconds starting at a random time is at a sample with
probability (d + WINDOW) / the samples' interval.  Per configuration:
slow requests, of all counted (WORKDIR/lat.txt), at a sample, and the
number chance gives.

Then the slow requests' bursts (each within GAP_S, 0.3, of the one before,
within one run): per configuration their count, the median time between
one burst's start and the next's, and the median requests a burst.  On some
machines LC alone stalled in bursts every 1.5-2 s (session 15, call E), on
others not at all: a period points at what stalls it.
"""
import bisect
import os
import statistics as st
import sys


def samples(w):
    t = []
    try:
        for line in open(os.path.join(w, "clocks.txt")):
            f = line.split()
            if f:
                t.append(float(f[0]))
    except (OSError, ValueError):
        return []
    return sorted(t)


def slow(w):
    out = {}
    try:
        for line in open(os.path.join(w, "slow.txt")):
            f = line.split()
            if not f:
                continue
            out.setdefault(f[0], []).extend(
                (float(s), float(u) / 1e6) for s, u in (x.split(":") for x in f[1:]))
    except (OSError, ValueError) as e:
        print("Error: %s/slow.txt: %s" % (w, e), file=sys.stderr)
        sys.exit(2)
    return out


def counted(w):
    n = {}
    try:
        for line in open(os.path.join(w, "lat.txt")):
            f = line.split()
            if f:
                n[f[0]] = n.get(f[0], 0) + len(f) - 2
    except OSError:
        pass
    return n


GAP_S = 0.3


def bursts(w):
    """Per label: [burst count, the intervals between bursts' starts, requests a burst]."""
    out = {}
    for line in open(os.path.join(w, "slow.txt")):
        f = line.split()
        if len(f) < 2:
            continue
        starts = sorted(float(x.split(":")[0]) for x in f[1:])
        b = [[starts[0]]]
        for s in starts[1:]:
            if s - b[-1][-1] > GAP_S:
                b.append([s])
            else:
                b[-1].append(s)
        o = out.setdefault(f[0], [0, [], []])
        o[0] += len(b)
        o[1].extend(y[0] - x[0] for x, y in zip(b, b[1:]))
        o[2].extend(len(x) for x in b)
    return out


def print_bursts(w):
    rows = [(k, v) for k, v in sorted(bursts(w).items()) if v[1]]
    if not rows:
        return
    print("bursts of slow requests (each within %.0f ms of the one before, in one run):" % (GAP_S * 1e3))
    for label, (nb, iv, per) in rows:
        print("   %-14s %4d bursts, one every %.2f s (median), %.1f slow a burst" % (
            label, nb, st.median(iv), st.median(per)))


def at_sample(t, s, d, win):
    """A sample's window [T - win, T] meets the request [s, s + d]."""
    i = bisect.bisect_left(t, s)	# the first sample at or after the start
    return i < len(t) and t[i] - win <= s + d


def main(argv):
    if not argv or len(argv) > 2:
        print("Error: usage: slow_smi.py WORKDIR [WINDOW_MS]", file=sys.stderr)
        return 2
    w = argv[0]
    try:
        win = float(argv[1]) / 1e3 if len(argv) > 1 else 0.05
    except ValueError:
        print("Error: WINDOW_MS is a number of ms, not '%s'" % argv[1], file=sys.stderr)
        return 2
    t, sl, n = samples(w), slow(w), counted(w)
    if len(t) < 2:
        print("slow requests against the GPU's samples: no samples (clocks.txt)")
        return 0
    every = st.median(b - a for a, b in zip(t, t[1:]))
    print("slow requests (over 2x their run's P50) against nvidia-smi's samples (every %.0f ms, "
          "window %.0f ms):" % (every * 1e3, win * 1e3))
    for label in sorted(sl):
        r = sl[label]
        hit = sum(at_sample(t, s, d, win) for s, d in r)
        chance = sum(min(1.0, (d + win) / every) for _, d in r)
        tot = " of %d" % n[label] if label in n else ""
        ratio = " (%.1fx)" % (hit / chance) if chance > 0 else ""
        print("   %-14s %4d slow%s, %4d at a sample, chance %.1f%s" % (
            label, len(r), tot, hit, chance, ratio))
    print_bursts(w)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
