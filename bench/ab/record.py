# SPDX-License-Identifier: GPL-2.0
# record.py - one line of bench/ab's results.jsonl (run.sh calls it).
#
#   record.py meta --out F --run-id ID KEY=VALUE...
#       {"meta": {...}, "run_id": ID}
#   record.py run --out F --run-id ID --workload W --round R --pos P --config C
#             [--policy P] [--bin B] [--rc RC] [--wall S] [--timeout S]
#             [--metric-file F] [--engine-json F] [--log F] [--status S]
#       {"run_id", "workload", "round", "pos", "config", "policy", "bin",
#        "status", "ok", "rc", "wall_s", "metric", "value", "extra", "engine",
#        "error"} and a short line on standard output.
# status: ok; failed (rc != 0); timeout (rc 124 or 137: `timeout` ended it);
# no-metric (rc 0, no BENCH line); skipped (no time left); build-failed.
# The metric is the last "BENCH {json}" line of the metric file (the
# workload's $BENCH_METRIC_FILE), else of the run's log.
import argparse
import json
import sys


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def bench_line(*texts):
    for text in texts:
        for line in reversed(text.splitlines()):
            if line.startswith("BENCH "):
                try:
                    d = json.loads(line[6:])
                except ValueError:
                    continue
                if isinstance(d, dict):
                    return d
    return None


def run_status(given, rc, value):
    """A run's status: the one given, else from its exit status and whether it printed a metric."""
    if given:
        return given
    if rc in (124, 137):
        return "timeout"
    if rc != 0:
        return "failed"
    return "no-metric" if value is None else "ok"


def engine_report(text):
    text = text.strip()
    if not text:
        return None
    try:
        d = json.loads(text)
        return d if isinstance(d, dict) else None
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["meta", "run"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--run-id", required=True)
    for k in ("workload", "config", "policy", "bin", "metric-file", "engine-json", "log", "status"):
        ap.add_argument("--" + k, default="")
    for k in ("round", "pos", "rc"):
        ap.add_argument("--" + k, type=int, default=None)
    for k in ("wall", "timeout"):
        ap.add_argument("--" + k, type=float, default=None)
    ap.add_argument("kv", nargs="*")
    a = ap.parse_intermixed_args()

    if a.kind == "meta":
        meta = dict(kv.split("=", 1) for kv in a.kv if "=" in kv)
        line = {"meta": meta, "run_id": a.run_id}
    else:
        log = read(a.log) if a.log else ""
        b = bench_line(read(a.metric_file) if a.metric_file else "", log)
        value = b.get("value") if b else None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            value = None
        status = run_status(a.status, a.rc, value)
        extra = {k: v for k, v in (b or {}).items() if k not in ("metric", "value")}
        line = {"run_id": a.run_id, "workload": a.workload, "round": a.round, "pos": a.pos,
                "config": a.config, "policy": a.policy, "bin": a.bin, "status": status,
                "ok": status == "ok", "rc": a.rc, "wall_s": a.wall, "timeout_s": a.timeout,
                "metric": b.get("metric") if b else None, "value": value, "extra": extra,
                "engine": engine_report(read(a.engine_json)) if a.engine_json else None}
        if status != "ok":
            tail = [x for x in log.splitlines() if x.strip()][-4:]
            if isinstance(line["engine"], dict) and "error" in line["engine"]:
                tail.append("engine: %s" % line["engine"]["error"])
            line["error"] = " | ".join(tail)[-600:]
        print("%-12s r%-2s %-9s %-10s %s %s" % (a.workload, a.round, a.config, status,
              line["metric"] or "-", "-" if value is None else value), flush=True)
    with open(a.out, "a") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
