# SPDX-License-Identifier: GPL-2.0
# walt.py - bench/watch_alt's results: one JSON line a run, and the summary.
#
#   walt.py meta --out F KEY=VALUE...
#       {"meta": {...}}
#   walt.py record --out F --round R --pos P --config C [--rc RC] [--wall S]
#                  [--metric-file F] [--engine-json F] [--shim-out F]
#                  [--uprobe-out F] [--log F] [--status S]
#       {"round", "pos", "config", "status", "rc", "wall_s", "metric", "value",
#        "steps", "setup_s", "seen", "watch", "error"}: setup_s the workload's
#        seconds before its first step (imports, CUDA, the model: where most
#        allocations are made); seen is the count of allocations
#        the run's watcher reported (none: the engine's "allocs"; shim: the
#        sum of its lines' "allocs"; uprobe: the counter's "allocs"; alone:
#        null); watch is the watcher's own report (shim: its lines).
#   walt.py summary RESULTS.jsonl
#       Markdown: each configuration's medians (step_ms, wall_s, seen), then
#       each watcher against alone over the rounds where both ran (step_ms,
#       wall_s, and setup_s where the workload printed it): paired ratios, their median, mean and the mean's 95 % confidence interval
#       (Student's t).  A watcher that saw no allocation in any run is
#       reported as blind, not as cheap.
# Exit: 0 done; 1 a file cannot be read or holds no run; 2 usage.
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ab"))
from summarize import ci95, fmt, where  # noqa: E402
from record import bench_line, read, run_status  # noqa: E402

WATCHERS = ["none", "shim", "uprobe"]
WHAT = {"none": "`gpuctl prefetch load none -- CMD`: the allocation watcher (every syscall of the host) "
                "and the tools session",
        "shim": "LD_PRELOAD libwatchalt-shim.so: a function call per allocation, this process only",
        "uprobe": "watch-alt-uprobe -- CMD: a uprobe + uretprobe trap per allocation, this process only"}


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict):
                out.append(d)
    return out


def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def seen_of(config, engine, shim, uprobe):
    if config == "none":
        return (num(engine[-1].get("allocs")), engine[-1]) if engine else (None, None)
    if config == "shim":
        if not shim:
            return None, None
        return sum(num(x.get("allocs")) or 0 for x in shim), shim
    if config == "uprobe":
        return (num(uprobe[-1].get("allocs")), uprobe[-1]) if uprobe else (None, None)
    return None, None


def record(a):
    log = read(a.log) if a.log else ""
    b = bench_line(read(a.metric_file) if a.metric_file else "", log)
    value = num(b.get("value")) if b else None
    seen, watch = seen_of(a.config, json_lines(read(a.engine_json)) if a.engine_json else [],
                          json_lines(read(a.shim_out)) if a.shim_out else [],
                          json_lines(read(a.uprobe_out)) if a.uprobe_out else [])
    status = run_status(a.status, a.rc, value)
    line = {"round": a.round, "pos": a.pos, "config": a.config, "status": status, "rc": a.rc,
            "wall_s": a.wall, "metric": b.get("metric") if b else None, "value": value,
            "steps": (b or {}).get("steps"), "setup_s": num((b or {}).get("setup_s")), "seen": seen, "watch": watch, "error": None}
    if status != "ok":
        line["error"] = " | ".join([x for x in log.splitlines() if x.strip()][-4:])[-600:]
    print("r%-3s %-7s %-9s step_ms %s wall %s seen %s" % (
        a.round, a.config, status, "-" if value is None else value,
        "-" if a.wall is None else "%.2f" % a.wall, "-" if seen is None else seen), flush=True)
    with open(a.out, "a") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")
    return 0


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        print("Error: cannot read %s: %s" % (path, e.strerror), file=sys.stderr)
        return None, None
    meta, runs = {}, []
    for d in json_lines(text):
        if "meta" in d:
            meta = d["meta"] if isinstance(d["meta"], dict) else {}
        elif "config" in d and "round" in d:
            runs.append(d)
    return meta, runs


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pair_rows(runs, watcher):
    by_round = {}
    for r in runs:
        if r.get("status") == "ok":
            by_round.setdefault(r["round"], {})[r["config"]] = r
    rows = []
    keys = [("value", "step_ms"), ("wall_s", "wall_s")]
    if any(num(r.get("setup_s")) for r in runs):
        keys.append(("setup_s", "setup_s"))
    for key, label in keys:
        xs = []
        for cfgs in by_round.values():
            a, w = cfgs.get("alone"), cfgs.get(watcher)
            if a and w and num(a.get(key)) and num(w.get(key)) is not None:
                xs.append(w[key] / a[key])
        if not xs:
            rows.append("| %s / alone | %s | 0 | – | – | – | no pair |" % (watcher, label))
            continue
        m, lo, hi = ci95(xs)
        rows.append("| %s / alone | %s | %d | %s | %s | %s | %s |" % (
            watcher, label, len(xs), fmt(statistics.median(xs), 3), fmt(m, 3),
            "–" if lo is None else "[%s, %s]" % (fmt(lo, 3), fmt(hi, 3)), where(lo, hi, 1)))
    return rows


def summary(path):
    meta, runs = load(path)
    if runs is None:
        return 1
    if not runs:
        print("Error: %s holds no run" % path, file=sys.stderr)
        return 1
    configs = ["alone"] + [w for w in WATCHERS if any(r["config"] == w for r in runs)]
    print("# bench/watch_alt: the cost of watching allocations (issue 40, item 4)\n")
    if meta:
        print("GPU: %s; %s steps after %s warm-up; %s rounds.\n" % (
            meta.get("gpu", "?"), meta.get("steps", "?"), meta.get("warmup", "?"),
            len({r["round"] for r in runs})))
    print("| config | runs ok / all | median step_ms | median wall_s | allocations seen (median) | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    blind = set()
    for c in configs:
        mine = [r for r in runs if r["config"] == c]
        ok = [r for r in mine if r.get("status") == "ok"]
        seen = [num(r.get("seen")) for r in ok]
        verdict = ""
        if c in WATCHERS:
            if not ok:
                verdict = "no run finished"
            elif not any(seen):
                verdict = "**blind**: saw no allocation"
                looks = [x.get("lookups") for r in ok if isinstance(r.get("watch"), list)
                         for x in r["watch"] if isinstance(x, dict)]
                if c == "shim":
                    verdict += (" (it reached the driver: %s lookups)" % sum(num(x) or 0 for x in looks)
                                if any(looks) else " (no line: the shim never reached the driver)")
                blind.add(c)
            else:
                verdict = "saw allocations in %d of %d runs" % (sum(1 for s in seen if s), len(ok))
        print("| %s | %d / %d | %s | %s | %s | %s |" % (
            c, len(ok), len(mine), fmt(med([r.get("value") for r in ok])),
            fmt(med([r.get("wall_s") for r in ok])), "–" if c == "alone" else fmt(med(seen), 0), verdict))
    print("\n| pair | metric | pairs | median | mean | 95 % CI of the mean | the interval |")
    print("|---|---|---:|---:|---:|---|---|")
    for w in configs[1:]:
        rows = pair_rows(runs, w)
        if w in blind:
            rows = [x.replace("| %s / alone |" % w, "| %s / alone (blind) |" % w, 1) for x in rows]
        print("\n".join(rows))
    print()
    for w in configs[1:]:
        print("- %s: %s%s" % (w, WHAT[w], " — it saw nothing, so its cost says nothing" if w in blind else ""))
    bad = [r for r in runs if r.get("status") != "ok"]
    for r in bad:
        print("- round %s %s: %s (rc %s) %s" % (r["round"], r["config"], r.get("status"), r.get("rc"),
                                               (r.get("error") or "")[:200]))
    return 0


class Args(argparse.ArgumentParser):
    def error(self, message):
        print("Error: %s (usage: walt.py meta|record --out F ..., walt.py summary F)" % message, file=sys.stderr)
        sys.exit(2)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "summary":
        if len(sys.argv) != 3 or sys.argv[2].startswith("-"):
            print("Error: usage: walt.py summary RESULTS.jsonl", file=sys.stderr)
            return 2
        return summary(sys.argv[2])
    ap = Args(prog="walt.py")
    ap.add_argument("kind", choices=["meta", "record"])
    ap.add_argument("--out", required=True)
    for k in ("config", "metric-file", "engine-json", "shim-out", "uprobe-out", "log", "status"):
        ap.add_argument("--" + k, default="")
    for k in ("round", "pos", "rc"):
        ap.add_argument("--" + k, type=int, default=None)
    ap.add_argument("--wall", type=float, default=None)
    ap.add_argument("kv", nargs="*")
    a = ap.parse_intermixed_args()
    if a.kind == "meta":
        bad = [kv for kv in a.kv if "=" not in kv]
        if bad:
            print("Error: meta takes KEY=VALUE, not '%s'" % bad[0], file=sys.stderr)
            return 2
        with open(a.out, "a") as f:
            f.write(json.dumps({"meta": dict(kv.split("=", 1) for kv in a.kv)}, sort_keys=True) + "\n")
        return 0
    if a.config not in ["alone"] + WATCHERS or a.round is None:
        print("Error: record needs --round and --config (alone, %s)" % ", ".join(WATCHERS), file=sys.stderr)
        return 2
    return record(a)


if __name__ == "__main__":
    sys.exit(main())
