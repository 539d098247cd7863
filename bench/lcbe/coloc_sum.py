# SPDX-License-Identifier: GPL-2.0
"""coloc_sum.py WORKDIR NBE - medians of the co-location bench (LC P50/P99, BE it/s, longest BE gap)."""
import glob, re, statistics as st, sys
w, nbe = sys.argv[1], int(sys.argv[2])
be = [[float(x) for x in open("%s/be%d.log" % (w, i + 1))] for i in range(nbe)]
rows = {}
for k in ("bert", "mlp"):
    for line in open("%s/%s.out" % (w, k)):
        m = re.match(r"lc (\w+) (\w+) n=(\d+) p50_us=(\d+) p99_us=(\d+) max_us=(\d+) t0=([\d.]+) t1=([\d.]+)", line)
        if not m:
            continue
        kind, label, t0, t1 = m.group(1), m.group(2), float(m.group(7)), float(m.group(8))
        its, gaps = 0, []
        for ts in be:
            inw = [t for t in ts if t0 <= t <= t1]
            its += len(inw)
            prev = max([t for t in ts if t < t0], default=t0)
            for t in inw + [t1]:
                gaps.append(t - prev); prev = t
        rows.setdefault((kind, label), []).append((int(m.group(4)), int(m.group(5)), its / (t1 - t0), max(gaps) * 1e3))
print("%-5s %-10s %6s %8s %8s %10s %12s  (medians of %s rounds)" % ("LC", "config", "n", "P50 us", "P99 us", "BE it/s", "BE gap max ms", "N"))
for (kind, label), v in rows.items():
    print("%-5s %-10s %6d %8.0f %8.0f %10.2f %12.0f   rounds: %s" % (kind, label, len(v), st.median(x[0] for x in v),
          st.median(x[1] for x in v), st.median(x[2] for x in v), st.median(x[3] for x in v),
          " ".join("%d/%d/%.1f/%.0f" % x for x in v)))
