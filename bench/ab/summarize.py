# SPDX-License-Identifier: GPL-2.0
# summarize.py RESULTS.jsonl... - bench/ab's results as markdown: per
# workload, each configuration's median, min and max of the workload's metric
# (all times: lower is better) and the engine's counters (medians), then the
# paired comparisons: per round (runs of one call, one round) the difference
# or ratio of two configurations, its median, mean and the 95 % confidence
# interval of the mean (Student's t over the rounds), and where that interval
# lies (below / above / spans 0 or 1: only then is the difference resolved).
# Beside the workload's metric, the whole program: each run's wall time
# (wall_s, the command from start to exit, the engine's start included) and,
# where the workload prints it, its CPU phase (fill_ms, cpu_write_ms or
# cpu_ms): medians per configuration and the same paired ratios; and where
# it prints setup_s (the seconds from its start to its first step), those.
# Rounds pair only within one call (run_id): the GPU machine can change
# between calls.  Failed, timed-out and skipped runs are listed, never used.
#
# summarize.py --ages A,B RESULTS.jsonl...: the engine's own age of the
# allocations at their move's start (age_p99_us, age_p50_us; issue 40's
# goal: P99 <= 5 ms) and its move_yields, per workload, configurations A
# and B side by side (medians over the runs, the worst P99), and B / A;
# then each one's P99 over all its runs' allocations together (the engines'
# age_hist_us pooled: one percentile of thousands, where a run's own moves
# with its few hundred) and B / A of those.
import json
import math
import statistics
import sys

# (label, numerator config, denominator config, kind); "device:ceiling_ms"
# is the device twin's extra field (sweep: one cudaMemPrefetchAsync of the
# buffer plus the kernel on device memory).
COMPARISONS = [
    ("tree − ref (ms)", "tree", "ref", "diff"),
    ("tree / ref", "tree", "ref", "ratio"),
    ("alone / tree (tree's speed-up)", "alone", "tree", "ratio"),
    ("alone / ref (ref's speed-up)", "alone", "ref", "ratio"),
    ("tree / device", "tree", "device", "ratio"),
    ("ref / device", "ref", "device", "ratio"),
    ("tree / ceiling", "tree", "device:ceiling_ms", "ratio"),
    ("ref / ceiling", "ref", "device:ceiling_ms", "ratio"),
    ("none / alone", "none", "alone", "ratio"),
    ("ref-none / alone", "ref-none", "alone", "ratio"),
    ("none / ref-none", "none", "ref-none", "ratio"),
    ("trace / alone", "trace", "alone", "ratio"),
    ("stat / alone", "stat", "alone", "ratio"),
    ("none / trace", "none", "trace", "ratio"),
    ("tree / trace", "tree", "trace", "ratio"),
    ("tree / tree-alt", "tree", "tree-alt", "ratio"),
    ("alone / tree-alt (tree-alt's speed-up)", "alone", "tree-alt", "ratio"),
    ("tree-alt2 / tree", "tree-alt2", "tree", "ratio"),
    ("alone / tree-alt2 (tree-alt2's speed-up)", "alone", "tree-alt2", "ratio"),
    ("ref-alt / ref", "ref-alt", "ref", "ratio"),
    ("ref-alt2 / ref", "ref-alt2", "ref", "ratio"),
    ("ref-alt2 / ref-alt", "ref-alt2", "ref-alt", "ratio"),
    ("alone / ref-alt (ref-alt's speed-up)", "alone", "ref-alt", "ratio"),
    ("alone / ref-alt2 (ref-alt2's speed-up)", "alone", "ref-alt2", "ratio"),
    ("tree / old", "tree", "old", "ratio"),
    ("alone / old (old's speed-up)", "alone", "old", "ratio"),
]

# The whole program's comparisons (wall time, the CPU phase): (label, a, b).
WHOLE = [("tree / ref", "tree", "ref"), ("alone / tree (tree's speed-up)", "alone", "tree"),
         ("alone / ref (ref's speed-up)", "alone", "ref"), ("tree / device", "tree", "device"),
         ("none / alone", "none", "alone"), ("trace / alone", "trace", "alone"),
         ("stat / alone", "stat", "alone"), ("tree / tree-alt", "tree", "tree-alt"),
         ("alone / tree-alt (tree-alt's speed-up)", "alone", "tree-alt"),
         ("ref-none / alone", "ref-none", "alone"), ("none / ref-none", "none", "ref-none"),
         ("tree-alt2 / tree", "tree-alt2", "tree"),
         ("ref-alt / ref", "ref-alt", "ref"), ("ref-alt2 / ref", "ref-alt2", "ref"),
         ("alone / ref-alt (ref-alt's speed-up)", "alone", "ref-alt"),
         ("alone / ref-alt2 (ref-alt2's speed-up)", "alone", "ref-alt2"),
         ("tree / old", "tree", "old"), ("alone / old (old's speed-up)", "alone", "old")]
# The CPU phase a workload prints, by the name it uses (the first found).
FILL_KEYS = ("fill_ms", "cpu_write_ms", "cpu_ms")

ENGINE_KEYS = [("seen", 1, "seen"), ("eager_moved", 1, "eager moves"),
               ("eager_skipped", 1, "eager skipped"), ("cpu_pulls", 1, "CPU pulls"), ("trail_moves", 1, "trail moves"), ("driver_gpu_faults", 1, "GPU faults"),
               ("migrated_bytes", 2**30, "migrated GiB"), ("ioctls", 1, "ioctls"),
               ("lost_events", 1, "lost"), ("maps_reads", 1, "maps reads"),
               ("cpu_us", 1000, "engine CPU ms"), ("errors", 1, "errors"), ("capped", 1, "capped"),
               ("move_yields", 1, "move yields"),
               # where the wall goes: set-up before the engine's seconds, the drain at their end, the close after
               ("attach_us", 1000, "attach ms"), ("seconds", 0.001, "engine ms"), ("drain_us", 1000, "drain ms"),
               ("close_us", 1000, "close ms")]

# Student's t, two-sided 95 %, by degrees of freedom
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    if df < 1:
        return float("nan")
    if df <= len(T95):
        return T95[df - 1]
    return 2.000 if df <= 60 else (1.980 if df <= 120 else 1.960)


def ci95(xs):
    """(mean, lo, hi) of the mean of xs; lo, hi None with fewer than 2."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, None, None
    h = t95(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - h, m + h


def load(paths):
    meta, runs = [], []
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    d = json.loads(line)
                except ValueError:
                    print("summarize.py: %s:%d: not JSON, skipped" % (p, n), file=sys.stderr)
                    continue
                (meta if "meta" in d else runs).append(d)
    return meta, runs


def flat_engine(e):
    out = {}
    for k, v in (e or {}).items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = v
        elif isinstance(v, dict):
            for k2, v2 in v.items():
                if isinstance(v2, (int, float)) and not isinstance(v2, bool):
                    out[k + "." + k2] = v2
    return out


def value_of(run, which):
    """which: CONFIG (the metric), CONFIG:FIELD (a field the workload printed), CONFIG@wall."""
    if which.endswith("@wall"):
        v = run.get("wall_s")
    elif ":" in which:
        v = (run.get("extra") or {}).get(which.split(":", 1)[1])
    else:
        v = run.get("value")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def fill_key(runs):
    """The CPU-phase field the workload prints, or None."""
    for k in FILL_KEYS:
        if any(isinstance((r.get("extra") or {}).get(k), (int, float)) for r in runs):
            return k
    return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(v, nd=2):
    return "–" if v is None else "%.*f" % (nd, v)


def where(lo, hi, ref):
    if lo is None:
        return "one pair: no interval"
    if hi < ref:
        return "below %g" % ref
    if lo > ref:
        return "above %g" % ref
    return "spans %g: not resolved" % ref


def config_table(ok, configs, metric, fk):
    eng = {}
    for c in configs:
        for r in ok[c]:
            eng.update(dict.fromkeys(flat_engine(r.get("engine"))))
    keys = [k for k in ENGINE_KEYS if k[0] in eng]
    keys += [(k, 1, k) for k in sorted(eng) if ("age" in k or "missed" in k or "gap" in k)
             and k not in [x[0] for x in keys]]
    whole = " median wall s |" + (" median %s |" % fk if fk else "")
    print("| config | runs | median %s | min | max |%s%s" % (
        metric, whole, "".join(" %s |" % k[2] for k in keys)))
    print("|---|---:|---:|---:|---:|---:|%s%s" % ("---:|" if fk else "", "---:|" * len(keys)))
    for c in configs:
        vs = [r["value"] for r in ok[c]]
        cells = []
        for k, scale, _ in keys:
            xs = [flat_engine(r.get("engine")).get(k) for r in ok[c]]
            xs = [x for x in xs if x is not None]
            cells.append(fmt(statistics.median(xs) / scale, 2 if scale > 1 else 0) if xs else "–")
        whole = " %s |" % fmt(med([value_of(r, c + "@wall") for r in ok[c]]))
        if fk:
            whole += " %s |" % fmt(med([value_of(r, c + ":" + fk) for r in ok[c]]), 1)
        print("| %s | %d | %s | %s | %s |%s%s" % (
            c, len(vs), fmt(statistics.median(vs) if vs else None), fmt(min(vs) if vs else None),
            fmt(max(vs) if vs else None), whole, "".join(" %s |" % x for x in cells)))
    ceil = [r["extra"]["ceiling_ms"] for r in ok.get("device", [])
            if isinstance((r.get("extra") or {}).get("ceiling_ms"), (int, float))]
    if ceil:
        mig = [r["extra"].get("migrate_ms") for r in ok["device"] if r["extra"].get("migrate_ms") is not None]
        print("| ceiling (device: prefetch + kernel) | %d | %s | %s | %s |%s" % (
            len(ceil), fmt(statistics.median(ceil)), fmt(min(ceil)), fmt(max(ceil)),
            " |" * (len(keys) + 1 + (1 if fk else 0))))
        if mig:
            print("\nThe ceiling's cudaMemPrefetchAsync of the buffer: median %s ms." % fmt(statistics.median(mig)))


def paired(rounds, a, b, kind):
    """The per-round values of a against b (diff or ratio), rounds of one call only."""
    xs = []
    for cfgs in rounds.values():
        ra, rb = cfgs.get(a.split(":")[0].split("@")[0]), cfgs.get(b.split(":")[0].split("@")[0])
        if not ra or not rb:
            continue
        va, vb = value_of(ra, a), value_of(rb, b)
        if va is None or vb is None or (kind == "ratio" and vb == 0):
            continue
        xs.append(va - vb if kind == "diff" else va / vb)
    return xs


def pair_row(label, xs, kind):
    m, lo, hi = ci95(xs)
    nd = 2 if kind == "diff" else 3
    return "| %s | %d | %s | %s | %s | %s |" % (
        label, len(xs), fmt(statistics.median(xs), nd), fmt(m, nd),
        "–" if lo is None else "[%s, %s]" % (fmt(lo, nd), fmt(hi, nd)),
        where(lo, hi, 0 if kind == "diff" else 1))


def print_pairs(title, rows):
    if rows:
        print("\n| %s | pairs | median | mean | 95 %% CI of the mean | the interval |" % title)
        print("|---|---:|---:|---:|---|---|")
        print("\n".join(rows))


def pair_table(wl_runs, fk):
    rounds = {}
    for r in wl_runs:
        rounds.setdefault((r.get("run_id"), r.get("round")), {})[r["config"]] = r
    rows = []
    for label, a, b, kind in COMPARISONS:
        xs = paired(rounds, a, b, kind)
        if xs:
            rows.append(pair_row(label, xs, kind))
    print_pairs("paired, per round", rows)
    rows = []
    xs = paired(rounds, "tree@wall", "ref@wall", "diff")
    if xs:
        rows.append(pair_row("tree − ref (s)", xs, "diff"))
    for label, a, b in WHOLE:
        xs = paired(rounds, a + "@wall", b + "@wall", "ratio")
        if xs:
            rows.append(pair_row(label, xs, "ratio"))
    print_pairs("whole program (wall), per round", rows)
    if fk:
        field_pairs(rounds, fk, "CPU phase (%s), per round" % fk)
    if any(isinstance((r.get("extra") or {}).get("setup_s"), (int, float)) for r in wl_runs):
        field_pairs(rounds, "setup_s", "before the first step (setup_s: imports, CUDA, data), per round")


def field_pairs(rounds, key, title):
    """The WHOLE ratios of a field the workload printed."""
    rows = []
    for label, a, b in WHOLE:
        xs = paired(rounds, a + ":" + key, b + ":" + key, "ratio")
        if xs:
            rows.append(pair_row(label, xs, "ratio"))
    print_pairs(title, rows)


def main(paths):
    meta, runs = load(paths)
    print("# bench/ab: same-run A/B\n")
    for m in meta:
        d = m["meta"]
        print("- call %s: ref %s (%s), tree %s, policy `%s`; GPU %s; host %s, kernel %s" % (
            m.get("run_id"), d.get("ref_name", "?"), d.get("ref_sha", "?"), d.get("tree_sha", "?"),
            d.get("policy", "?"), d.get("gpu", "?"), d.get("host", "?"), d.get("kernel", "?")))
        alts = ["%s `%s`" % (k, d[k]) for k in ("alt_policy", "alt2_policy", "mode", "old_sha") if d.get(k)]
        if alts:
            print("  (%s)" % "; ".join(alts))
    for wl in dict.fromkeys(r.get("workload") for r in runs):
        wl_runs = [r for r in runs if r.get("workload") == wl]
        ok_runs = [r for r in wl_runs if r.get("ok") and isinstance(r.get("value"), (int, float))]
        configs = list(dict.fromkeys(r["config"] for r in wl_runs
                                     if r.get("config") not in ("build", "start", "end")))
        ok = {c: [r for r in ok_runs if r["config"] == c] for c in configs}
        metric = next((r["metric"] for r in ok_runs if r.get("metric")), "metric")
        rounds = len({(r.get("run_id"), r.get("round")) for r in ok_runs})
        print("\n## %s (%s, lower is better; %d round(s))\n" % (wl, metric, rounds))
        if ok_runs:
            fk = fill_key(ok_runs)
            config_table(ok, configs, metric, fk)
            pair_table(ok_runs, fk)
        scaled = sorted({"%s=%s" % (k, v) for r in ok_runs for k, v in (r.get("extra") or {}).items()
                         if k.startswith("scaled_from")})
        if scaled:
            print("\nScaled down to the free GPU memory in some runs (%s): compare only runs of one size."
                  % ", ".join(scaled))
        bad = [r for r in wl_runs if not r.get("ok")]
        if bad:
            print("\nNot used (%d run(s)):\n" % len(bad))
            for r in bad:
                print("- round %s %s: %s%s" % (r.get("round"), r.get("config"), r.get("status"),
                      (": " + r["error"][-200:]) if r.get("error") else ""))
    if not runs:
        print("\nNo runs.")
    return 0


def hist_of(e):
    """An engine report's age_hist_us ([[us, n], ...]), at its top or one level down."""
    if not isinstance(e, dict):
        return []
    if isinstance(e.get("age_hist_us"), list):
        return e["age_hist_us"]
    for v in e.values():
        if isinstance(v, dict) and isinstance(v.get("age_hist_us"), list):
            return v["age_hist_us"]
    return []


def pooled_p99(hists):
    """The P99 of every allocation of the runs' histograms together, ms (None: none)."""
    count = {}
    for h in hists:
        for us, n in h:
            count[us] = count.get(us, 0) + n
    total = sum(count.values())
    if not total:
        return None
    want, run = -(-99 * total // 100), 0
    for us in sorted(count):
        run += count[us]
        if run >= want:
            return us / 1000


def ages(configs, paths):
    _, runs = load(paths)
    ok = [r for r in runs if r.get("ok")]
    print("## Creation to the start of a move: %s side by side (ms; goal P99 <= 5)\n" % " and ".join(configs))
    print("| workload | " + " | ".join("%s runs | %s P99 median | %s P99 worst | %s P50 median | %s move yields"
                                      % ((c,) * 5) for c in configs) + " | %s / %s P99 |" % (configs[1], configs[0])
          + " %s pooled P99 | %s pooled P99 | %s / %s pooled |" % (configs[0], configs[1], configs[1], configs[0]))
    print("|---|" + "---:|" * (5 * len(configs) + 4))
    for wl in dict.fromkeys(r.get("workload") for r in ok):
        cells, p99, pool = [], [], []
        for c in configs:
            es = [flat_engine(r.get("engine")) for r in ok if r.get("workload") == wl and r.get("config") == c]
            a99 = [e["age_p99_us"] / 1000 for e in es if "age_p99_us" in e]
            a50 = [e["age_p50_us"] / 1000 for e in es if "age_p50_us" in e]
            ys = [e["move_yields"] for e in es if "move_yields" in e]
            p99.append(med(a99))
            pool.append(pooled_p99(hist_of(r.get("engine")) for r in ok
                                   if r.get("workload") == wl and r.get("config") == c))
            cells += [str(len(a99)), fmt(med(a99)), fmt(max(a99) if a99 else None), fmt(med(a50)),
                      fmt(med(ys), 0)]
        ratio = p99[1] / p99[0] if p99[0] and p99[1] is not None else None
        pratio = pool[1] / pool[0] if pool[0] and pool[1] is not None else None
        print("| %s | %s | %s | %s | %s | %s |" % (wl, " | ".join(cells), fmt(ratio, 3), fmt(pool[0]), fmt(pool[1]),
                                                    fmt(pratio, 3)))
    if not ok:
        print("\nNo runs.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--ages" and len(sys.argv[2].split(",")) == 2:
        sys.exit(ages(sys.argv[2].split(","), sys.argv[3:]))
    if len(sys.argv) < 2 or sys.argv[1].startswith("--"):
        print("Error: usage: summarize.py [--ages A,B] RESULTS.jsonl...", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
