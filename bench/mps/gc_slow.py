# SPDX-License-Identifier: GPL-2.0
"""gc_slow.py WORKDIR - were the LC's slow requests its own garbage
collector's doing?  On some machines LC alone stalled in bursts of 3-9 slow
requests every 1.36-1.75 s (session 15, calls E and F), on others not at
all; the LC is a Python server that allocates objects on every request, and
a full collection walks everything PyTorch keeps alive.

WORKDIR/gc.txt (coloc.py's COLOC_GC_FILE, bench/lcbe/gcrec.py): per run
"LABEL GEN:START:US ...", the LC's collections of generation >= 1 or of
1 ms or more in the run's counted part.  WORKDIR/slow.txt (COLOC_SLOW_FILE):
per run "LABEL START:US ...", the requests over twice the run's P50.

Per configuration: the collections of each generation (count, median and
longest), the slow requests and how many of them were under way while a
collection ran, the bursts (slow_smi.py's: each within 0.3 s of the one
before) and how many began within NEAR_S (0.05) after a collection of
generation 2 began, the median time between two generation-2 collections
beside the median between two bursts.  Without gc.txt (an older call, or
COLOC_GC=off with nothing collected) it says so and exits 0.
Exit: 0, or 2 with one Error line for a file that cannot be read.
"""
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import slow_smi  # noqa: E402

NEAR_S = 0.05


def collections(w):
    """Per label, per run: [[(gen, start s, seconds), ...], ...] in time order; None without gc.txt."""
    p = os.path.join(w, "gc.txt")
    if not os.path.exists(p):
        return None
    out = {}
    try:
        for line in open(p):
            f = line.split()
            if not f:
                continue
            run = []
            for x in f[1:]:
                g, s, us = x.split(":")
                run.append((int(g), float(s), float(us) / 1e6))
            out.setdefault(f[0], []).append(sorted(run, key=lambda r: r[1]))
    except (OSError, ValueError) as e:
        print("Error: %s: %s" % (p, e), file=sys.stderr)
        sys.exit(2)
    return out


def gaps(starts):
    """The times between one start and the next, within one run."""
    return [y - x for x, y in zip(starts, starts[1:])]


def under_gc(gcs, s, d):
    """The request [s, s + d] overlaps a collection."""
    return any(gs < s + d and s < gs + gd for _, gs, gd in gcs)


def main(argv):
    if len(argv) != 1:
        print("Error: usage: gc_slow.py WORKDIR", file=sys.stderr)
        return 2
    w = argv[0]
    gcs = collections(w)
    if gcs is None:
        print("the LC's garbage collections: none recorded (no gc.txt)")
        return 0
    sl = slow_smi.slow(w) if os.path.exists(os.path.join(w, "slow.txt")) else {}
    bursts = {}	# per label, per run
    if sl:
        for label, b in slow_smi.runs_bursts(w):
            bursts.setdefault(label, []).append(b)
    print("the LC's own garbage collections (generation >= 1, or >= 1 ms) beside its slow requests:")
    for label in sorted(set(gcs) | set(sl)):
        runs = gcs.get(label, [])
        g = [c for run in runs for c in run]
        by = {}
        for gen, _, d in g:
            by.setdefault(gen, []).append(d * 1e3)
        gens = ", ".join("gen %d: %d, median %.1f ms, longest %.1f ms" % (
            k, len(v), st.median(v), max(v)) for k, v in sorted(by.items())) or "none"
        r = sl.get(label, [])
        hit = sum(under_gc(g, s, d) for s, d in r)
        full = [s for gen, s, _ in g if gen == 2]
        b = [x for run in bursts.get(label, []) for x in run]
        near = sum(any(0 <= x[0] - f <= NEAR_S for f in full) for x in b)
        fi = [d for run in runs for d in gaps([s for gen, s, _ in run if gen == 2])]
        bi = [d for run in bursts.get(label, []) for d in gaps([x[0] for x in run])]
        print("   %-14s %s" % (label, gens))
        print("   %-14s %d slow, %d under a collection; %d bursts, %d within %.0f ms after a full one; "
              "full every %s, bursts every %s" % (
                  "", len(r), hit, len(b), near, NEAR_S * 1e3,
                  "%.2f s" % st.median(fi) if fi else "-", "%.2f s" % st.median(bi) if bi else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
