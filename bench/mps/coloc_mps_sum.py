# SPDX-License-Identifier: GPL-2.0
"""coloc_mps_sum.py PHASES WORKDIR - the co-location bench's figures
(coloc_mps_gpu.sh): per configuration the medians over rounds of LC P50 and
P99 (with min-max) and BE steps/s of its group over the same window, then
the ratios the issue's goals ask for, paired by round within the call."""
import os, statistics as st, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from phases import load  # noqa: E402

rows = load(sys.argv[1], sys.argv[2])


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
