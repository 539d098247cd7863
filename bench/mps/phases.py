# SPDX-License-Identifier: GPL-2.0
"""phases.py - the co-location benches' phase lines, read once: each phase's
LC figures (coloc.py's "lc ..." answer) and the BE group's steps/s over the
same window, from the trainers' step logs in the work directory.

  load(PHASES, WORKDIR) -> {label: {round: {n, p50, p99, be, lat, t0, t1}}}

lat: the phase's request times (us) when the LC wrote them to WORKDIR/lat.txt
(COLOC_LAT_FILE; a line "LABEL t0=T US...", found by its label and t0), else [].

What static_sum.py (one call) and static_pool.py (calls side by side) both
judge by:
  targets(PHASES) -> {name: us}    the call's "T" line (1.2x/2x alone ...)
  pooled(rows, label)              P99 of all its requests together (None
                                   without lat.txt or under 100 requests)
  lc99(rows, label)                the figure a target is judged by: pooled,
                                   else the median over rounds of phase P99s
  med(rows, label, key)            (median, min, max) over rounds, or None
  is_static(label)                 a static configuration of goal 2's set
  TARGETED                         (target name, lc-p99 phase label) pairs
"""
import glob
import re
import statistics as st

TARGETED = (("m12", "p99_m12"), ("m20", "p99_m20"), ("p110", "p99_p110"),
            ("p200", "p99_m20p"), ("m12", "gp99_m12"), ("m20", "gp99_m20"))


def _be_rate(logs, w, group, t0, t1):
    if group in ("", "-"):
        return None
    if group not in logs:
        logs[group] = []
        for f in sorted(glob.glob("%s/%s[0-9]*.log" % (w, group))):
            logs[group].append([float(x) for x in open(f) if x.strip()])
    if not logs[group]:
        return None
    return sum(sum(1 for t in ts if t0 <= t <= t1) for ts in logs[group]) / (t1 - t0)


def _lats(w):
    out = {}
    try:
        for line in open("%s/lat.txt" % w):
            f = line.split()
            if len(f) >= 2 and f[1].startswith("t0="):
                out[(f[0], f[1][3:])] = [float(x) for x in f[2:]]
    except OSError:
        pass
    return out


def load(phases, w):
    rows, logs, lats = {}, {}, _lats(w)
    for line in open(phases):
        m = re.match(r"P (\d+) (\S+) be=(\S+) (.*)", line)
        if not m:
            continue
        r, label, group, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        t = re.search(r"t0=([\d.]+) t1=([\d.]+)", rest)
        if not t:
            continue
        t0, t1 = float(t.group(1)), float(t.group(2))
        lc = re.search(r"n=(\d+) p50_us=(\d+) p99_us=(\d+)", rest)
        rows.setdefault(label, {})[r] = dict(
            n=int(lc.group(1)) if lc else None, p50=int(lc.group(2)) if lc else None,
            p99=int(lc.group(3)) if lc else None, be=_be_rate(logs, w, group, t0, t1),
            lat=lats.get((label, t.group(1)), []), t0=t0, t1=t1)
    return rows


def targets(phases):
    t = {}
    for line in open(phases):
        if line.startswith("T "):
            t = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}
    return t


def med(rows, label, key):
    v = [x[key] for x in rows.get(label, {}).values() if x[key] is not None]
    return (st.median(v), min(v), max(v)) if v else None


def pooled(rows, label):
    v = sorted(x for r in rows.get(label, {}).values() for x in r["lat"])
    return v[int(len(v) * 0.99)] if len(v) >= 100 else None


def lc99(rows, label):
    p = pooled(rows, label)
    return p if p else (med(rows, label, "p99") or (None,))[0]


def is_static(label):
    """No policy, a TSG setting (lc-be ts*) or MPS set by hand (mps_*); not
    GPUCTL_REF's twin of one (LABEL_ref: the same setting by another gpuctl)."""
    return (label == "none" or label.startswith("ts") or label.startswith("mps_")) and \
        not label.endswith("_ref")
