# SPDX-License-Identifier: GPL-2.0
"""static_pool.py OUT1 OUT2 ... - issue 39's goal 2 (the latency target: LC
P99 <= the target, and BE >= every configuration of the static set that
meets the same target) over several static_gpu.sh calls, when one call
cannot hold the whole static set (SET=pick, bench/mps/README.md).

Each OUT is a call's directory: phases.txt, and its work directory as w.tgz,
as OUT/w/, or unpacked in OUT itself (lat.txt, the trainers' step logs).
Per call, each configuration (round 0's *_warm and *_cal left out): the
fewest LC requests a phase of it counted (the issue asks >= 1000), its LC
P99 (pooled over its rounds as static_sum.py does, else the rounds' median),
kept or not against each of the call's own targets (its "T" line), its BE
steps/s (median over rounds) and BE / the call's anchor, MPS by hand with
priority 1 (mps_p1t100, the median of its rounds): the BE ratio formed within
one call, as the issue asks ("each ratio is computed within one call").

Then, per target (m12, m20: 1.2x and 2x each call's LC alone under MPS; and
p110, p200 where a call has them), every lc-p99 phase at it (gp99_*, p99_*,
their _ref/_s twins) in each call where it ran, against every static
configuration (phases.is_static: MPS by hand, lc-be's TSG settings, no
policy; the anchor among them) that meets the same target in its own call.
The goal is met where, in every call where the target's phase ran, it kept
the target and its BE/anchor >= the best of those.  Two more lines follow
each verdict: within each call, the phase's BE against the best static
setting meeting the target in that same call (steps/s, no anchor); and,
where the phase kept the target and gave at least its own call's best in
every call, yet fell short of a static setting of another call: for each
such pair of calls, by how much (1 - ratio / best's), beside how much the
anchor's own BE differs between the two calls: a shortfall within that
spread is not resolved.

Exit: 0 the tables and verdicts printed (met or not); 2 bad input (no OUT, an
OUT without phases.txt or its "T" line, a w.tgz that cannot be read, a call
without the anchor's BE): one Error line on stderr, nothing printed.
"""
import os
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phases  # noqa: E402

ANCHOR = "mps_p1t100"
NAMES = ("m12", "m20", "p110", "p200")


def esc(s):
    """What a file named, safe to print: anything not printable as \\xNN."""
    return "".join(c if c.isprintable() else "\\x%02x" % ord(c) for c in str(s))


def die(msg):
    print("Error: " + esc(msg), file=sys.stderr)
    sys.exit(2)


def workdir(out, tmp):
    tgz = os.path.join(out, "w.tgz")
    if os.path.isfile(tgz):
        d = tempfile.mkdtemp(dir=tmp)
        try:
            with tarfile.open(tgz) as t:
                if hasattr(tarfile, "data_filter"):
                    t.extractall(d, filter="data")
                else:
                    t.extractall(d)
        except (OSError, tarfile.TarError) as e:
            die("%s: cannot read w.tgz: %s" % (out, e))
        return d
    return os.path.join(out, "w") if os.path.isdir(os.path.join(out, "w")) else out


def load_call(out, tmp):
    p = os.path.join(out, "phases.txt")
    if not os.path.isfile(p):
        die("%s: no phases.txt (a static_gpu.sh call's OUT)" % out)
    t = {k: v for k, v in phases.targets(p).items() if k in NAMES and v > 0}
    if not t:
        die("%s: phases.txt has no targets (its T line, from LC alone's calibration)" % out)
    rows = phases.load(p, workdir(out, tmp))
    a = phases.med(rows, ANCHOR, "be")
    if not a or not a[0]:
        die("%s: no BE of %s (MPS by hand, priority 1: the anchor each call's ratios need; "
            "static_gpu.sh SET=pick adds it)" % (out, ANCHOR))
    figs = {}
    for label in rows:
        if label.endswith("_warm") or label.endswith("_cal"):
            continue
        be, n = phases.med(rows, label, "be"), phases.med(rows, label, "n")
        figs[label] = dict(rounds=len(rows[label]), p99=phases.lc99(rows, label), n=n[1] if n else None,
                           be=be[0] if be else None, ratio=be[0] / a[0] if be else None)
    return dict(out=out, t=t, anchor=a[0], figs=figs)


def table(i, c):
    print("call %d: %s; targets %s; anchor %s BE %.1f steps/s" % (
        i, esc(c["out"]), ", ".join("%s %d us" % (n, c["t"][n]) for n in NAMES if n in c["t"]),
        ANCHOR, c["anchor"]))
    names = [n for n in NAMES if n in c["t"]]
    print("   %-14s %6s %7s %10s %s %10s %9s" % ("config", "rounds", "LC n>=", "LC P99 us",
                                            " ".join("%5s" % n for n in names), "BE step/s", "BE/anchor"))
    for label, f in c["figs"].items():
        kept = " ".join("%5s" % ("-" if f["p99"] is None else "kept" if f["p99"] <= c["t"][n] else "over")
                        for n in names)
        print("   %-14s %6d %7s %10s %s %10s %9s" % (
            esc(label), f["rounds"], f["n"] if f["n"] is not None else "-", "%.0f" % f["p99"] if f["p99"] is not None else "-", kept,
            "%.1f" % f["be"] if f["be"] is not None else "-",
            "%.3f" % f["ratio"] if f["ratio"] is not None else "-"))


def statics(c, name):
    """The static settings that meet target name in call c and have a BE: [(label, figures)]."""
    return [(x, f) for x, f in c["figs"].items() if phases.is_static(x) and f["p99"] is not None
            and f["p99"] <= c["t"][name] and f["be"] is not None]


def best_in(c, name):
    """The static setting meeting the target in call c with the most BE: (label, figures) or None."""
    meet = statics(c, name)
    return max(meet, key=lambda m: m[1]["be"]) if meet else None


def within(calls, ran, name, label):
    """label against the best static setting meeting the target in its own call, BE by BE;
    True when it gave at least as much in every call where both have a BE."""
    ok = True
    for i, c in ran:
        f, b = c["figs"][label], best_in(c, name)
        if f["be"] is None:
            print("   within call %d: %s has no BE figure there" % (i, esc(label)))
            ok = False
            continue
        if not b:
            print("   within call %d: no static setting meets it there" % i)
            continue
        x, g = b
        ok = ok and f["be"] >= g["be"]
        print("   within call %d: BE %.1f steps/s, the best static there %s %.1f: %.3fx (%s)" % (
            i, f["be"], esc(x), g["be"], f["be"] / g["be"] if g["be"] else float("inf"),
            ">=" if f["be"] >= g["be"] else "<"))
    return ok


def across(calls, ran, label, best):
    """Short only of a static setting of another call: by more than the anchor moved between the two?"""
    for i, c in ran:
        if i == best[0]:
            continue
        r = c["figs"][label]["ratio"]
        if r >= best[2]["ratio"]:
            continue
        short = 1 - r / best[2]["ratio"]
        a, b = c["anchor"], calls[best[0] - 1]["anchor"]
        spread = abs(a - b) / max(a, b)
        print("   across calls %d and %d: BE/anchor %.1f %% under %s's; the anchor's own BE differs by "
              "%.1f %% between them: %s" % (
                  i, best[0], 100 * short, esc(best[1]), 100 * spread,
                  "not resolved (within the anchor's spread)" if short <= spread else "short by more than it"))


def judge(calls, name, label):
    """label's lc-p99 phases at target name, against the static settings meeting it; True when met."""
    ran = [(i, c) for i, c in enumerate(calls, 1) if label in c["figs"] and name in c["t"]]
    meet = [(i, x, f) for i, c in enumerate(calls, 1) if name in c["t"] for x, f in statics(c, name)]
    best = max(meet, key=lambda m: m[2]["ratio"]) if meet else None
    print("\n%s at %s (each call's own target), BE as a share of each call's %s:" % (esc(label), name, ANCHOR))
    for i, x, f in sorted(meet, key=lambda m: -m[2]["ratio"]):
        print("   static call %d %-14s meets it: P99 %.0f <= %d, BE/anchor %.3f" % (
            i, esc(x), f["p99"], calls[i - 1]["t"][name], f["ratio"]))
    if not meet:
        print("   no static configuration meets it in any call")
    ok = True
    for i, c in ran:
        f = c["figs"][label]
        kept = f["p99"] is not None and f["p99"] <= c["t"][name]
        beats = f["ratio"] is not None and (not best or f["ratio"] >= best[2]["ratio"])
        ok = ok and kept and beats
        print("   %s call %d: P99 %s %s %d (%s), BE/anchor %s%s" % (
            esc(label), i, "%.0f" % f["p99"] if f["p99"] is not None else "-", "<=" if kept else ">",
            c["t"][name], "kept" if kept else "NOT KEPT", "%.3f" % f["ratio"] if f["ratio"] is not None else "-",
            " (%s the best static's %.3f)" % (">=" if beats else "<", best[2]["ratio"]) if best else ""))
    print("%s: goal %s: kept in %d of %d calls, BE/anchor %s against the best static %s" % (
        esc(label), "MET" if ok else "not met",
        sum(1 for _, c in ran if c["figs"][label]["p99"] is not None and c["figs"][label]["p99"] <= c["t"][name]),
        len(ran), "/".join("%.3f" % c["figs"][label]["ratio"] for _, c in ran if c["figs"][label]["ratio"] is not None)
        or "-", "%s (call %d) %.3f" % (esc(best[1]), best[0], best[2]["ratio"]) if best else "(none meets it)"))
    beat_own = within(calls, ran, name, label)
    kept_all = all(c["figs"][label]["p99"] is not None and c["figs"][label]["p99"] <= c["t"][name]
                   and c["figs"][label]["ratio"] is not None for _, c in ran)
    if not ok and kept_all and beat_own and best:
        across(calls, ran, label, best)
    return ok


def main(argv):
    if not argv:
        die("usage: static_pool.py OUT1 [OUT2 ...] (static_gpu.sh calls' OUT directories)")
    for out in argv:
        if not os.path.isdir(out):
            die("%s: not a directory" % out)
    with tempfile.TemporaryDirectory() as tmp:
        calls = [load_call(out, tmp) for out in argv]
    for i, c in enumerate(calls, 1):
        table(i, c)
        print()
    print("goal 2 across %d calls: LC P99 <= the target, and BE >= every static configuration "
          "that meets the same target, by BE / each call's %s:" % (len(calls), ANCHOR))
    judged = 0
    for name, base in phases.TARGETED:
        for label in [base + s for s in ("", "_ref", "_s", "_ref_s")]:
            if any(label in c["figs"] and name in c["t"] for c in calls):
                judge(calls, name, label)
                judged += 1
    if not judged:
        print("   no lc-p99 phase at a target in any call")


if __name__ == "__main__":
    main(sys.argv[1:])
