#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""exporter_cost.py - what gpuctl exporter costs, on a GPU machine (root).

Part A, slowdown: one fault-heavy PyTorch loop on managed memory
(exporter/torch_loop.py) runs throughout; the exporter is switched on
(serving, attached to the loop, scraped every second: 15-60x Prometheus's
usual rate) and off in rounds ordered ON OFF OFF ON ON OFF ... (ABBA:
a linear drift cancels).  Each round's mean step time; each pair of
adjacent rounds (one ON, one OFF) gives a relative difference; the mean
of the pairs and its 95 % confidence interval (Student t) are the result.

Part B, one scrape with N GPU processes: N small CUDA processes
(exporter/hold.cu: a context and a 1 MiB managed buffer each) and the
TSG watcher; the exporter attaches to all of them once; then scrapes,
each one's CPU time read from the exporter (its render thread's CPU
clock) and from /proc (all its threads' schedstat run time, which
includes the HTTP handling).

Usage: exporter_cost.py --gpuctl BIN --src DIR --out DIR [--rounds R]
       [--round-s S] [--procs N] [--gib G]
"""
import argparse
import json
import math
import os
import random
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.request

# the harness library (python/gpuctl), from the tree this script is in
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gpuctl  # noqa: E402

PORT = 9471
URL = "http://127.0.0.1:%d/metrics" % PORT
# two-sided 95 % Student t by degrees of freedom
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
       10: 2.23, 11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11,
       18: 2.10, 19: 2.09, 20: 2.09, 25: 2.06, 30: 2.04}


def t95(df):
    for k in sorted(T95, reverse=True):
        if df >= k:
            return T95[k]
    return T95[1]


def log(msg):
    print("[%7.1f] %s" % (time.monotonic() - T0, msg), flush=True)


def scrape(timeout=5):
    return urllib.request.urlopen(URL, timeout=timeout).read().decode()


def metric(text, name, **labels):
    """A sample's value in the exposition (gpuctl.read_textfile), or None."""
    return gpuctl.sample_value(gpuctl.read_textfile(text), name, **labels)


def track(args, p):
    """Every child's pid into WORK/pids: the runner kills what a timeout left."""
    with open(os.path.join(args.work, "pids"), "a") as f:
        f.write("%d\n" % p.pid)
    return p


def exporter_start(args, interval_ms, log_path):
    p = track(args, subprocess.Popen([args.gpuctl, "exporter", "--listen", "127.0.0.1:%d" % PORT,
                          "--interval", str(interval_ms)],
                         stdout=subprocess.DEVNULL, stderr=open(log_path, "a")))
    for _ in range(100):
        try:
            scrape(1)
            return p
        except Exception:
            if p.poll() is not None:
                raise RuntimeError("exporter exited with %d (see %s)" % (p.returncode, log_path))
            time.sleep(0.05)
    raise RuntimeError("exporter does not answer")


def exporter_stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    return rc


def mean_sd(v):
    m = sum(v) / len(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
    return m, sd


def part_a(args, res):
    steps_path = os.path.join(args.work, "steps.txt")
    open(steps_path, "w").close()
    loop = track(args, subprocess.Popen([sys.executable, os.path.join(args.src, "torch_loop.py"),
                             os.path.join(args.work, "um_alloc.so"), steps_path, str(args.gib)],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(args.out, "exporter.log"), "a")))
    res["loop_pid"] = loop.pid

    def nsteps():
        with open(steps_path) as f:
            return sum(1 for _ in f)
    t = time.monotonic()
    while nsteps() < 10 and time.monotonic() - t < 90:
        if loop.poll() is not None:
            raise RuntimeError("torch loop exited with %d" % loop.returncode)
        time.sleep(0.5)
    log("torch loop warm: %d steps" % nsteps())
    order = []
    for i in range(args.rounds):
        order.append("on" if (i % 4) in (0, 3) else "off")	# ABBA
    windows = []
    last_expo = {}
    for i, phase in enumerate(order):
        t0 = time.monotonic()
        if phase == "on":
            p = exporter_start(args, 2000, os.path.join(args.out, "exporter.log"))
            stop = threading.Event()

            def scraper():
                while not stop.is_set():
                    try:
                        last_expo["text"] = scrape()
                    except Exception as e:
                        last_expo["error"] = str(e)
                    stop.wait(1.0)
            th = threading.Thread(target=scraper)
            th.start()
            time.sleep(args.round_s)
            stop.set()
            th.join()
            t1 = time.monotonic()
            exporter_stop(p)
        else:
            time.sleep(args.round_s)
            t1 = time.monotonic()
        windows.append((phase, t0 + args.settle_s, t1))
        log("round %2d %-3s done" % (i, phase))
    loop.send_signal(signal.SIGTERM)
    try:
        loop.wait(10)
    except subprocess.TimeoutExpired:
        loop.kill()
    steps = []
    with open(steps_path) as f:
        for line in f:
            a = line.split()
            if len(a) >= 2:
                steps.append((float(a[0]), float(a[1])))
    rounds = []
    for phase, a, b in windows:
        # a step counts for the round it ran entirely inside
        v = [s for end, s in steps if end - s >= a and end <= b]
        rounds.append({"phase": phase, "steps": len(v), "mean_s": sum(v) / len(v) if v else None})
    with open(os.path.join(args.out, "rounds.csv"), "w") as f:
        f.write("round,phase,steps,mean_step_s\n")
        for i, r in enumerate(rounds):
            f.write("%d,%s,%d,%s\n" % (i, r["phase"], r["steps"], r["mean_s"]))
    diffs = []
    for i in range(0, len(rounds) - 1, 2):
        a, b = rounds[i], rounds[i + 1]
        if a["mean_s"] is None or b["mean_s"] is None:
            continue
        on, off = (a, b) if a["phase"] == "on" else (b, a)
        diffs.append((on["mean_s"] - off["mean_s"]) / off["mean_s"] * 100)
    m, sd = mean_sd(diffs)
    half = t95(len(diffs) - 1) * sd / math.sqrt(len(diffs))
    on_all = [r["mean_s"] for r in rounds if r["phase"] == "on" and r["mean_s"]]
    off_all = [r["mean_s"] for r in rounds if r["phase"] == "off" and r["mean_s"]]
    res["a"] = {
        "rounds": len(rounds), "round_s": args.round_s, "settle_s": args.settle_s, "pairs": len(diffs),
        "pair_diffs_pct": [round(d, 3) for d in diffs],
        "slowdown_pct": round(m, 3), "ci95_pct": round(half, 3), "pair_sd_pct": round(sd, 3),
        "on_mean_step_s": round(sum(on_all) / len(on_all), 5),
        "off_mean_step_s": round(sum(off_all) / len(off_all), 5),
        "steps_total": len(steps),
    }
    text = last_expo.get("text", "")
    if text:
        with open(os.path.join(args.out, "expo-torch.prom"), "w") as f:
            f.write(text)
        v = metric(text, "gpuctl_uvm_gpu_faults_total", pid=loop.pid)
        res["a"]["loop_gpu_faults_seen_last_scrape"] = int(v) if v is not None else None
    res["a"]["scrape_error"] = last_expo.get("error")
    log("A: slowdown %.2f %% +- %.2f %% (95 %% CI, %d pairs)" % (m, half, len(diffs)))


def sched_cpu_ns(pid):
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def part_b(args, res):
    b = res["b"] = {"procs": args.procs}
    w = subprocess.run([args.gpuctl, "sched", "watch"], capture_output=True, text=True)
    b["watcher"] = (w.stdout + w.stderr).strip()
    holds = []
    for _ in range(args.procs):
        holds.append(track(args, subprocess.Popen([os.path.join(args.work, "hold")], stdout=subprocess.PIPE,
                                                  stderr=subprocess.DEVNULL, text=True)))
    ready = 0
    t = time.monotonic()
    for h in holds:
        left = 120 - (time.monotonic() - t)
        if left > 0 and select.select([h.stdout], [], [], left)[0]:
            ready += h.stdout.readline().startswith("ready")
    b["ready"] = ready
    b["startup_s"] = round(time.monotonic() - t, 1)
    log("B: %d/%d GPU processes ready in %.1f s" % (ready, args.procs, time.monotonic() - t))
    try:
        p = exporter_start(args, 3600000, os.path.join(args.out, "exporter.log"))
        text = scrape()
        b["attached"] = metric(text, "gpuctl_exporter_processes_attached")
        b["first_rescan_cpu_s"] = metric(text, "gpuctl_exporter_last_rescan_cpu_seconds")
        b["tsg_series"] = sum(1 for n, _, _ in gpuctl.read_textfile(text) if n == "gpuctl_tsg_info")
        self_cpu, proc_cpu = [], []
        for _ in range(args.scrapes):
            c0 = sched_cpu_ns(p.pid)
            text = scrape()
            c1 = sched_cpu_ns(p.pid)
            proc_cpu.append((c1 - c0) / 1e6)
            time.sleep(0.2)
            # the exporter reports the previous scrape's render CPU
            self_cpu.append(metric(scrape(), "gpuctl_exporter_last_scrape_cpu_seconds") * 1e3)
        with open(os.path.join(args.out, "expo-%d.prom" % args.procs), "w") as f:
            f.write(text)
        b["scrape_bytes"] = len(text)
        b["series"] = sum(1 for l in text.splitlines() if l and not l.startswith("#"))
        b["scrape_render_cpu_ms"] = {"max": round(max(self_cpu), 3), "mean": round(sum(self_cpu) / len(self_cpu), 3)}
        b["scrape_process_cpu_ms"] = {"max": round(max(proc_cpu), 3), "mean": round(sum(proc_cpu) / len(proc_cpu), 3),
                                      "all": [round(x, 3) for x in proc_cpu]}
        exporter_stop(p)
        # the periodic walk of /proc with N attached processes
        p = exporter_start(args, 500, os.path.join(args.out, "exporter.log"))
        time.sleep(3)
        text = scrape()
        b["rescan_cpu_ms"] = round(metric(text, "gpuctl_exporter_last_rescan_cpu_seconds") * 1e3, 3)
        b["rescans"] = metric(text, "gpuctl_exporter_rescans_total")
        b["exporter_exit"] = exporter_stop(p)
        log("B: attached %s, scrape CPU max %.3f ms (render) %.3f ms (process), rescan %.3f ms" %
            (b["attached"], b["scrape_render_cpu_ms"]["max"], b["scrape_process_cpu_ms"]["max"], b["rescan_cpu_ms"]))
    finally:
        for h in holds:
            h.send_signal(signal.SIGTERM)
        for h in holds:
            try:
                h.wait(20)
            except subprocess.TimeoutExpired:
                h.kill()
        u = subprocess.run([args.gpuctl, "sched", "unload"], capture_output=True, text=True)
        b["unload"] = (u.stdout + u.stderr).strip()


def main():
    global T0
    T0 = time.monotonic()
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuctl", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/gpuctl-exporter-bench")
    ap.add_argument("--rounds", type=int, default=28)
    ap.add_argument("--round-s", type=float, default=7.0)
    ap.add_argument("--settle-s", type=float, default=0.5)
    ap.add_argument("--gib", type=float, default=0.75)
    ap.add_argument("--procs", type=int, default=64)
    ap.add_argument("--scrapes", type=int, default=10)
    ap.add_argument("--skip-a", action="store_true")
    args = ap.parse_args()
    res = {"args": vars(args)}
    try:
        if not args.skip_a:
            part_a(args, res)
    except Exception as e:
        res["a_error"] = repr(e)
        log("A failed: %r" % e)
    try:
        part_b(args, res)
    except Exception as e:
        res["b_error"] = repr(e)
        log("B failed: %r" % e)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
