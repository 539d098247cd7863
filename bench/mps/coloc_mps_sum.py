# SPDX-License-Identifier: GPL-2.0
"""coloc_mps_sum.py PHASES WORKDIR - the co-location bench's figures
(coloc_mps_gpu.sh): per configuration the medians over rounds of LC P50 and
P99 (with min-max) and BE steps/s of its group over the same window, then
the ratios the issue's goals ask for, paired by round within the call."""
import glob, re, statistics as st, sys

phases, w = sys.argv[1], sys.argv[2]
logs = {}


def be_rate(group, t0, t1):
    if group in ("", "-"):
        return None
    if group not in logs:
        logs[group] = []
        for f in sorted(glob.glob("%s/%s[0-9]*.log" % (w, group))):
            logs[group].append([float(x) for x in open(f) if x.strip()])
    return sum(sum(1 for t in ts if t0 <= t <= t1) for ts in logs[group]) / (t1 - t0)


rows = {}
for line in open(phases):
    m = re.match(r"P (\d+) (\S+) be=(\S+) (.*)", line)
    if not m:
        continue
    r, label, group, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4)
    t = re.search(r"t0=([\d.]+) t1=([\d.]+)", rest)
    t0, t1 = float(t.group(1)), float(t.group(2))
    lc = re.search(r"n=(\d+) p50_us=(\d+) p99_us=(\d+)", rest)
    rows.setdefault(label, {})[r] = dict(
        n=int(lc.group(1)) if lc else None, p50=int(lc.group(2)) if lc else None,
        p99=int(lc.group(3)) if lc else None, be=be_rate(group, t0, t1))


def med(v):
    v = [x for x in v if x is not None]
    return (st.median(v), min(v), max(v)) if v else None


print("%-14s %6s %7s %9s %20s %18s" % ("config", "rounds", "LC n", "P50 us", "P99 us [min-max]",
                                         "BE steps/s [min-max]"))
for label, rs in rows.items():
    n, p50, p99, be = (med([x[k] for x in rs.values()]) for k in ("n", "p50", "p99", "be"))
    print("%-14s %6d %7s %9s %20s %18s" % (
        label, len(rs), "%.0f" % n[0] if n else "-", "%.0f" % p50[0] if p50 else "-",
        "%.0f [%.0f-%.0f]" % p99 if p99 else "-", "%.1f [%.1f-%.1f]" % be if be else "-"))


def ratio(a, b, key, what):
    if a not in rows or b not in rows:
        return
    v = [rows[a][r][key] / rows[b][r][key] for r in rows[a] if r in rows[b]
         and rows[a][r][key] and rows[b][r][key]]
    if v:
        print("%-44s %.3f  [%.3f-%.3f] over %d rounds" % ("%s %s / %s" % (what, a, b),
              st.median(v), min(v), max(v), len(v)))


print("\nratios, paired by round (median [min-max]):")
ratio("gpuctl_mps", "hand_p1", "p99", "LC P99")
ratio("gpuctl_mps", "hand_p1", "be", "BE")
ratio("gpuctl_mps", "hand_p1", "p50", "LC P50")
ratio("gpuctl_mps", "be_alone_mps", "be", "BE")
ratio("hand_p1", "be_alone_mps", "be", "BE")
ratio("hand_p0", "be_alone_mps", "be", "BE")
ratio("hand_p1", "hand_p0", "p99", "LC P99")
ratio("alone_mps", "alone_plain", "p99", "LC P99")
for b in ("b_tsg_rot", "b_tsg_def", "b_none"):
    ratio(b, "b_alone_plain", "p99", "LC P99")
    ratio(b, "b_be_alone", "be", "BE")
# target_gpu.sh
ratio("hint", "hint_ref", "p99", "LC P99")
ratio("hint", "hint_ref", "be", "BE")
for b in ("none", "hint", "p99_12", "p99_20"):
    ratio(b, "alone", "p99", "LC P99")
    ratio(b, "be_alone", "be", "BE")
