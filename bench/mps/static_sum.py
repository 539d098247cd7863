# SPDX-License-Identifier: GPL-2.0
"""static_sum.py PHASES WORKDIR - static_gpu.sh's figures: per configuration
the medians over rounds (LC P50, P99 [min-max], BE steps/s) and the P99 of
all its requests together (pooled: ~5000 requests over 5 rounds, where one
phase's ~950 make a P99 that moved 5.7-14 ms between rounds of LC alone,
static-2026-11-27-h100-run1), then issue 39's goals, each judged within the
call (by the pooled P99 where the LC wrote its requests' times):
  - the latency target: its LC P99 <= the target, and its BE >= that of
    every static configuration (MPS priority x threads, lc-be be-timeslice x
    be-floor, no policy) whose P99 (judged as the target's) meets the same target;
  - a BE of another uid: LC P99 <= 1.10x LC alone outside MPS (paired by
    round), BE >= 70 % of BE alone;
  - gpuctl's one command through MPS (gone): LC P99 <= 1.05x of MPS with
    priority set by hand (mps_p1t100, paired by round), BE >= 95 % of its.
Each lc-p99 phase run by GPUCTL_REF too (LABEL_ref) is judged as its twin.
Every phase with such a twin (static_gpu.sh's REFTWIN) is paired with it by
round (LC P99 and BE: this gpuctl / REF's); so are the settled twins
(LABEL_s, LABEL_ref_s: static_gpu.sh's SETTLE).  A static setting's twin is
not one of goal 2's static set.
Where WORKDIR/clocks.txt holds clocks.py's samples: each configuration's
median SM clock, power and utilization over its phases' windows.
"""
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phases  # noqa: E402
from phases import TARGETED  # noqa: E402

rows = phases.load(sys.argv[1], sys.argv[2])
targets = phases.targets(sys.argv[1])


def pooled(label):
    """The P99 of every request of label's phases together (None without lat.txt)."""
    return phases.pooled(rows, label)


def lc99(label):
    """The figure a target is judged by: the pooled P99, else the rounds' median."""
    return phases.lc99(rows, label)


def med(label, key):
    return phases.med(rows, label, key)


def paired(a, b, key):
    if a not in rows or b not in rows:
        return None
    v = [rows[a][r][key] / rows[b][r][key] for r in rows[a]
         if r in rows[b] and rows[a][r][key] and rows[b][r][key]]
    return (st.median(v), min(v), max(v), len(v)) if v else None


def fmt(m, f="%.0f"):
    return (f + " [" + f + "-" + f + "]") % m if m else "-"


print("%-12s %6s %9s %22s %10s %20s" % ("config", "rounds", "P50 us", "P99 us [min-max]",
                                         "pooled P99", "BE steps/s [min-max]"))
for label in rows:
    p50, pp = med(label, "p50"), pooled(label)
    print("%-12s %6d %9s %22s %10s %20s" % (label, len(rows[label]), "%.0f" % p50[0] if p50 else "-",
                                             fmt(med(label, "p99")), "%.0f" % pp if pp else "-",
                                             fmt(med(label, "be"), "%.1f")))

static = [x for x in rows if phases.is_static(x)]
bealone = med("be_alone", "be")
print("\ntargets (from round 1's alones): %s" % targets)
for name, label in [(n, x + s) for n, x in TARGETED for s in ("", "_ref", "_s", "_ref_s")]:
    t, p99, be = targets.get(name), lc99(label), med(label, "be")
    if not t or not p99:
        continue
    p99 = (p99,)
    meet = [(x, lc99(x), (med(x, "be") or (0,))[0]) for x in static
            if lc99(x) and lc99(x) <= t]
    best = max(meet, key=lambda m: m[2]) if meet else None
    print("\n%s: target %d us; %s P99 %.0f (%s), BE %.1f steps/s" % (
        name, t, label, p99[0], "kept" if p99[0] <= t else "NOT KEPT", be[0] if be else 0))
    for x, p, b in sorted(meet, key=lambda m: -m[2]):
        print("   static %-12s meets it: P99 %.0f, BE %.1f" % (x, p, b))
    if not meet:
        print("   no static configuration meets it")
    elif be:
        print("   goal (kept, BE >= best static %s %.1f): %s (BE %.3fx of it)" % (
            best[0], best[2], "MET" if p99[0] <= t and be[0] >= best[2] else "not met",
            be[0] / best[2] if best[2] else 0))

print("\nBE of another uid (uid 65534, outside MPS), paired by round against the alones:")
for label in [x + s for x in ("none", "p99_p110", "p99_m20p", "p99_m20", "p99_m12") for s in ("", "_ref", "_s", "_ref_s")] + [
        x for x in static if x.startswith("ts")]:
    lc, b = paired(label, "alone_plain", "p99"), med(label, "be")
    if not lc:
        continue
    share = b[0] / bealone[0] if b and bealone else 0
    pr = pooled(label) / pooled("alone_plain") if pooled(label) and pooled("alone_plain") else None
    print("   %-10s LC P99 %.3fx [%.3f-%.3f] over %d rounds%s, BE %.1f%% of alone: goal %s" % (
        label, lc[0], lc[1], lc[2], lc[3], ", pooled %.3fx" % pr if pr else "", 100 * share,
        "MET" if (pr or lc[0]) <= 1.10 and share >= 0.70 else "not met"))


def ref_of(label):
    """The twin GPUCTL_REF ran of label (static_gpu.sh's REFTWIN; LABEL_s's is LABEL_ref_s)."""
    return label[:-2] + "_ref_s" if label.endswith("_s") else label + "_ref"


twins = [x for x in rows if not x.endswith(("_ref", "_ref_s")) and ref_of(x) in rows]
if twins:
    print("\nthis gpuctl against GPUCTL_REF's (LABEL_ref), paired by round:")
for label in twins:
    ref = ref_of(label)
    lc, b = paired(label, ref, "p99"), paired(label, ref, "be")
    pa, pb = pooled(label), pooled(ref)
    print("   %-10s LC P99 %s over %d rounds%s, BE %s" % (
        label, "%.3fx [%.3f-%.3f]" % lc[:3] if lc else "-", lc[3] if lc else 0,
        ", pooled %.3fx" % (pa / pb) if pa and pb else "", "%.3fx [%.3f-%.3f]" % b[:3] if b else "-"))
settled = [x + s for _, x in TARGETED for s in ("", "_ref") if x + s + "_s" in rows and x + s in rows]
if settled:
    print("\nlc-p99 settled (LABEL_s, SETTLE s more before its skip) against the same from its start, paired by round:")
for label in settled:
    lc, b = paired(label + "_s", label, "p99"), paired(label + "_s", label, "be")
    print("   %-12s LC P99 %s, BE %s" % (label + "_s", "%.3fx [%.3f-%.3f] over %d rounds" % lc if lc else "-",
                                          "%.3fx [%.3f-%.3f]" % b[:3] if b else "-"))
am = paired("alone_mps", "alone_plain", "p99")
if am:
    print("\nLC alone under MPS / outside, P99: %.3f [%.3f-%.3f] over %d rounds" % am)
quiet = [a for a in ("alone_mps", "alone_plain") if a + "_q" in rows and a in rows]
if quiet:
    print("\nLC alone with the GPU's sampler stopped (LABEL_q, static_gpu.sh's QUIET) / with it, paired by round:")
for a in quiet:
    q, pq, pa = paired(a + "_q", a, "p99"), pooled(a + "_q"), pooled(a)
    print("   %-12s LC P99 %s%s" % (a + "_q", "%.3fx [%.3f-%.3f] over %d rounds" % q if q else "-",
                                   ", pooled %.3fx" % (pq / pa) if pq and pa else ""))

one = paired("gone", "mps_p1t100", "p99")
if one:
    b1, bh = med("gone", "be"), med("mps_p1t100", "be")
    share = b1[0] / bh[0] if b1 and bh else 0
    print("\ngpuctl's one command through MPS (gone) against MPS priority 1 by hand (mps_p1t100):")
    pr = pooled("gone") / pooled("mps_p1t100") if pooled("gone") and pooled("mps_p1t100") else None
    print("   LC P99 %.3fx [%.3f-%.3f] over %d rounds%s, BE %.1f%% of by hand: goal %s" % (
        one[0], one[1], one[2], one[3], ", pooled %.3fx" % pr if pr else "", 100 * share,
        "MET" if (pr or one[0]) <= 1.05 and share >= 0.95 else "not met"))


def clocks(w):
    """clocks.py's samples: [(mono, sm, power, util)] (fields not numbers: None)."""
    out = []
    try:
        for line in open(os.path.join(w, "clocks.txt")):
            f = line.split()
            if len(f) != 5:
                continue
            v = []
            for x in (f[0], f[1], f[3], f[4]):
                try:
                    v.append(float(x))
                except ValueError:
                    v.append(None)
            out.append(tuple(v))
    except OSError:
        pass
    return out


def clock_table(samples):
    if not samples:
        return
    print("\nthe GPU over each configuration's phases (clocks.py): median SM MHz [min-max], power W, util %")
    for label in rows:
        win = [(r["t0"], r["t1"]) for r in rows[label].values()]
        s = [x for x in samples if any(a <= x[0] <= b for a, b in win)]
        sm = [x[1] for x in s if x[1] is not None]
        if not sm:
            continue
        pw = [x[2] for x in s if x[2] is not None]
        ut = [x[3] for x in s if x[3] is not None]
        print("   %-12s SM %6.0f [%.0f-%.0f], power %s, util %s (%d samples)" % (
            label, st.median(sm), min(sm), max(sm), "%.0f" % st.median(pw) if pw else "-",
            "%.0f" % st.median(ut) if ut else "-", len(s)))


clock_table(clocks(sys.argv[2]))
