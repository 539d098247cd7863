# SPDX-License-Identifier: GPL-2.0
"""rate_win.py LOG T0 T1 - matmuls per second in LOG (rate.py's) between
monotonic times T0 and T1 (the first line at or after each)."""
import sys

rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
a = next((r for r in rows if r[0] >= t0), None)
b = next((r for r in rows if r[0] >= t1), rows[-1] if rows else None)
if not a or not b or b[0] <= a[0]:
    print("rate n/a")
else:
    print("rate %.1f/s over %.2f s" % ((b[1] - a[1]) / (b[0] - a[0]), b[0] - a[0]))
