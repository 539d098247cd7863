# SPDX-License-Identifier: GPL-2.0
"""phases.py - the co-location benches' phase lines, read once: each phase's
LC figures (coloc.py's "lc ..." answer) and the BE group's steps/s over the
same window, from the trainers' step logs in the work directory.

  load(PHASES, WORKDIR) -> {label: {round: {n, p50, p99, be, lat, t0, t1}}}

lat: the phase's request times (us) when the LC wrote them to WORKDIR/lat.txt
(COLOC_LAT_FILE; a line "LABEL t0=T US...", found by its label and t0), else [].
"""
import glob
import re


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
