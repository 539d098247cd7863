# SPDX-License-Identifier: GPL-2.0
# summarize.py results.tsv: medians per workload and configuration (markdown).
import statistics
import sys

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
head, rows = rows[0], rows[1:]
col = {h: i for i, h in enumerate(head)}


def med(vals):
    v = [float(x) for x in vals if x not in ("NA", "")]
    return statistics.median(v) if v else None


def fmt(v, scale=1.0, nd=1):
    return "-" if v is None else ("%.*f" % (nd, v / scale))


print("| workload | config | runs | metric ms (median) | speed-up | GPU faults (driver) | "
      "faults seen | H2D GiB (driver) | migrated GiB | ioctls | engine CPU ms | errors | capped | lost |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for wl in dict.fromkeys(r[0] for r in rows):
    cfgs = dict.fromkeys(r[2] for r in rows if r[0] == wl)
    base = med([r[col["metric_ms"]] for r in rows if r[0] == wl and r[2] == "alone"])
    for c in cfgs:
        rs = [r for r in rows if r[0] == wl and r[2] == c]
        m = med([r[col["metric_ms"]] for r in rs])
        g = lambda k: med([r[col[k]] for r in rs])
        sp = "-" if (m is None or base is None or m == 0) else "%.2fx" % (base / m)
        print("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            wl, c, len(rs), fmt(m), sp, fmt(g("driver_faults"), 1, 0), fmt(g("faults_seen"), 1, 0),
            fmt(g("driver_htod"), 2 ** 30, 2), fmt(g("migrated"), 2 ** 30, 2), fmt(g("ioctls"), 1, 0),
            fmt(g("cpu_us"), 1000, 0), fmt(g("errors"), 1, 0), fmt(g("capped"), 1, 0),
            fmt(g("lost"), 1, 0)))
