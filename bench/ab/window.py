# SPDX-License-Identifier: GPL-2.0
# window.py - paired windows within ONE long-running workload process: the
# engines of bench/ab/bin attached (-p PID) and detached in turn while the
# workload trains, each window's steps timed by the workload itself
# (--stamp: each step's CLOCK_MONOTONIC span).  A process's start (imports,
# CUDA, the model) is paid once, not once a run, so many more pairs fit a
# call than run.sh's whole-program runs: the steady-state step (or epoch)
# time of each configuration, paired within a rotation.  What it cannot
# give: the whole program's wall time (run.sh gives that).
#
#   window.py --workload torch|torch-cache|gnn --pieces DIR --plan C,C,...
#             [--rotations N] [--plan2 C,C,... [--rotations2 N] [--discard2 D]
#             [--measure2 K]]
#             [--discard D] [--measure K] [--budget S]
#             [--policy P] [--alt-policy P] [--alt2-policy P] [--max-bytes SIZE]
#             [--out DIR] [--tag NAME] [--step-timeout S] [--dry-run]
#
# Configurations: alone (nothing attached), ref / tree (REF's / the tree's
# engine under --policy), none / ref-none (the tree's / REF's under none),
# tree-alt / ref-alt (--alt-policy), tree-alt2 / ref-alt2 (--alt2-policy),
# tree-async (the tree's engine under --policy with --async: UVM_MIGRATE
# returns once the move is queued).  --plan2: a second plan in the same
# process once the first's rotations are done (its rotations numbered on),
# with what is left of the budget.
# Each rotation runs the plan once, rotated by one each rotation (as run.sh's
# rounds); each window: attach (an engine's stats file says it is set up) or
# detach, D steps dropped, then the median of the next K steps.  Steps count
# only when they start after the switch.  Rotations go on while the longest
# so far still fits --budget.  One line a window in OUT/results.jsonl, in
# run.sh's form (workload NAME~win, round = rotation, no wall_s), so
# summarize.py pairs them per rotation.  Sizes and PYTHON from the
# environment as run.sh's.  Exit: 0 done, 1 the workload did not start, 2 usage.
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

D = os.path.dirname(os.path.abspath(__file__))
CONFIGS = ("alone", "ref", "tree", "none", "ref-none", "tree-alt", "ref-alt", "tree-alt2", "ref-alt2",
           "tree-async")


def info(bindir):
    out = {}
    try:
        with open(os.path.join(bindir, "BUILD")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                out.setdefault(k, v)
    except OSError:
        pass
    return out


def workload_cmd(w, pieces, py):
    so = os.path.join(pieces, "alloc.so")
    if w == "gnn":
        return [py, os.path.join(D, "workloads/gnn_sage.py"), "--so", so,
                "--nodes", os.environ.get("GNN_NODES", "2000000"),
                "--edges", os.environ.get("GNN_EDGES", "20000000"), "--epochs", "100000", "--stamp"]
    c = [py, os.path.join(D, "workloads/torch_train.py"), "--so", so, "--steps", "100000", "--stamp"]
    return c + (["--cache"] if w == "torch-cache" else [])


def engine_cmd(a, c, pid):
    """argv of configuration c's engine on pid, its binary's name and policy; None: alone."""
    if c == "alone":
        return None, "", ""
    ref = c.startswith("ref")
    b = os.path.join(a.bin, "gpuctl-" + (a.ref_sha if ref else "tree"))
    pol = {"ref": a.policy, "tree": a.policy, "tree-async": a.policy, "none": "none", "ref-none": "none",
           "tree-alt": a.alt_policy, "ref-alt": a.alt_policy,
           "tree-alt2": a.alt2_policy, "ref-alt2": a.alt2_policy}[c]
    argv = [b, "-j", "prefetch", "load"] + pol.split()
    if pol.split()[0] != "none":
        argv += ["--max-bytes", a.max_bytes]
    if c == "tree-async":
        argv += ["--async"]
    return argv + ["-p", str(pid)], (a.ref_sha if ref else "tree:" + a.tree_sha), pol


class Steps:
    """The workload's stdout: 'at T0 T1' then 'step_ms X' (or epoch_ms) a step."""

    def __init__(self, proc, log):
        self.proc, self.log = proc, log
        self.v, self.metric, self.warm_done, self.lock = [], None, False, threading.Lock()
        self.tail = []
        self.t = threading.Thread(target=self.read, daemon=True)
        self.t.start()

    def read(self):
        at = None
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            self.log.write(line + "\n")
            self.tail = (self.tail + [line])[-20:]
            p = line.split()
            if len(p) == 3 and p[0] == "at":
                at = (float(p[1]), float(p[2]))
            elif len(p) >= 2 and p[0] in ("step_ms", "epoch_ms") and at:
                with self.lock:
                    self.metric = p[0]
                    if "(warm-up)" in line:
                        continue
                    self.warm_done = True
                    self.v.append((at[0], at[1], float(p[1])))
                at = None

    def since(self, t):
        with self.lock:
            return [s for s in self.v if s[0] >= t]

    def wait(self, t, n, until):
        """The first n steps that started at t or later; fewer when the workload ends or time passes."""
        while True:
            got = self.since(t)
            if len(got) >= n or self.proc.poll() is not None or time.monotonic() > until:
                return got[:n]
            time.sleep(0.02)


def start_engine(argv, stats, errf, until):
    """(process, ready time) once its stats file is there; (process, None) when it ended or hung."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errf, stdin=subprocess.DEVNULL)
    while time.monotonic() < until:
        if os.path.exists(stats):
            return p, time.monotonic()
        if p.poll() is not None:
            return p, None
        time.sleep(0.005)
    return p, None


def stop_engine(p):
    """SIGINT, its -j report (a dict, or None) and its status."""
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    try:
        doc = json.loads(out.decode(errors="replace") or "null")
    except ValueError:
        doc = None
    return (doc if isinstance(doc, dict) else None), p.returncode


def rotate(plan, r):
    k = r % len(plan)
    return plan[k:] + plan[:k]


def tail_of(path, n=5):
    try:
        with open(path, errors="replace") as f:
            return " | ".join(f.read().strip().splitlines()[-n:])
    except OSError:
        return ""


def record(res, a, **kw):
    d = {"run_id": a.run_id, "workload": a.tag, "bin": "", "policy": "", "rc": None,
         "wall_s": None, "timeout_s": None, "metric": None, "value": None, "extra": {},
         "engine": None}
    d.update(kw)
    d["ok"] = d.get("status") == "ok"
    res.write(json.dumps(d, sort_keys=True) + "\n")
    res.flush()


def window(a, steps, pid, c, r, pos, res, logf, rundir, discard, measure):
    argv, binname, pol = engine_cmd(a, c, pid)
    t0 = time.monotonic()
    until = t0 + a.step_timeout
    eng, doc, rc, status, err = None, None, None, "ok", ""
    if argv:
        logf.write("== rotation %d window %d %s: %s\n" % (r, pos, c, " ".join(argv)))
        errpath = os.path.join(rundir, "engine.err")
        stats = os.path.join(rundir, "prefetch", "%d.stats" % pid)
        if os.path.exists(stats):	# an engine killed before it could remove it
            os.unlink(stats)
        with open(errpath, "w") as errf:
            eng, ready = start_engine(argv, stats, errf, t0 + 30)
        if ready is None:
            doc, rc = stop_engine(eng)
            err = tail_of(errpath)
            logf.write("engine not set up (rc %s): %s\n" % (rc, err))
            record(res, a, round=r, pos=pos, config=c, bin=binname, policy=pol, status="engine-failed",
                   rc=rc, error=err, engine=doc)
            return time.monotonic() - t0
        t_on = ready
    else:
        logf.write("== rotation %d window %d alone\n" % (r, pos))
        t_on = t0
    got = steps.wait(t_on, discard + measure, until)
    if eng is not None:
        doc, rc = stop_engine(eng)
        err = tail_of(os.path.join(rundir, "engine.err"))
        if rc not in (0, 130, -2):
            logf.write("engine rc %s: %s\n" % (rc, err))
    kept = [round(s[2], 2) for s in got[discard:]]
    if len(got) < discard + measure:
        status = "workload-ended" if steps.proc.poll() is not None else "timeout"
    extra = {"steps": kept, "dropped": [round(s[2], 2) for s in got[:discard]],
             "attach_s": round(t_on - t0, 3), "window_s": round(time.monotonic() - t0, 2)}
    record(res, a, round=r, pos=pos, config=c, bin=binname, policy=pol, status=status, rc=rc,
           metric=steps.metric, value=statistics.median(kept) if kept and status == "ok" else None,
           extra=extra, engine=doc, error=err if status != "ok" else None)
    logf.write("%s: %s steps %s (attach %.3fs)\n" % (c, status, kept, t_on - t0))
    logf.flush()
    return time.monotonic() - t0


def parse():
    ap = argparse.ArgumentParser(description="paired engine windows within one workload process")
    ap.add_argument("--workload", required=True, choices=("torch", "torch-cache", "gnn"))
    ap.add_argument("--pieces", default="", help="where alloc.so was built")
    ap.add_argument("--plan", required=True)
    ap.add_argument("--rotations", type=int, default=3)
    ap.add_argument("--plan2", default="")
    ap.add_argument("--rotations2", type=int, default=3)
    ap.add_argument("--discard2", type=int, default=None, help="the second plan's (default --discard)")
    ap.add_argument("--measure2", type=int, default=None, help="the second plan's (default --measure)")
    ap.add_argument("--discard", type=int, default=1)
    ap.add_argument("--measure", type=int, default=2)
    ap.add_argument("--budget", type=int, default=120)
    ap.add_argument("--policy", default="populate")
    ap.add_argument("--alt-policy", default="")
    ap.add_argument("--alt2-policy", default="")
    ap.add_argument("--max-bytes", default="")
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(D, "out"))
    ap.add_argument("--tag", default="")
    ap.add_argument("--step-timeout", type=float, default=60.0)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    a.plan = [c for c in a.plan.split(",") if c]
    a.plan2 = [c for c in a.plan2.split(",") if c]
    bad = [c for c in a.plan + a.plan2 if c not in CONFIGS]
    if bad or not a.plan:
        ap.error("--plan: unknown configuration(s) %s (of: %s)" % (bad, ", ".join(CONFIGS)))
    for c in a.plan + a.plan2:
        if "alt2" in c and not a.alt2_policy.strip():
            ap.error("%s needs --alt2-policy" % c)
        elif c.endswith("-alt") and not a.alt_policy.strip():
            ap.error("%s needs --alt-policy" % c)
    if a.discard2 is None:
        a.discard2 = a.discard
    if a.measure2 is None:
        a.measure2 = a.measure
    if min(a.rotations, a.rotations2, a.measure, a.measure2, a.budget) < 1 or min(a.discard, a.discard2) < 0:
        ap.error("--rotations, --measure, --budget must be positive, --discard not negative")
    a.bin = os.environ.get("AB_BIN") or os.path.join(D, "bin")
    b = info(a.bin)
    a.ref_sha, a.tree_sha = b.get("ref_sha", "REF"), b.get("tree_sha", "")
    a.tag = a.tag or a.workload + "~win"
    a.run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-w%d" % os.getpid()
    return a


def main():
    a = parse()
    py = os.environ.get("PYTHON", "python3")
    if not a.max_bytes and any(c not in ("alone", "none", "ref-none") for c in a.plan + a.plan2):
        print("Error: --max-bytes is needed (a static gpuctl cannot read the free memory)", file=sys.stderr)
        return 2
    cmd = workload_cmd(a.workload, a.pieces, py)
    if a.dry_run:
        print("window.py --dry-run: %s; plan %s; %d rotation(s) of D=%d + K=%d steps; budget %ds"
              % (a.tag, ",".join(a.plan), a.rotations, a.discard, a.measure, a.budget))
        if a.plan2:
            print("then plan %s; up to %d rotation(s) of D=%d + K=%d" % (",".join(a.plan2), a.rotations2,
                                                                         a.discard2, a.measure2))
        print("workload: %s" % " ".join(cmd))
        for c in dict.fromkeys(a.plan + a.plan2):
            argv = engine_cmd(a, c, "PID")[0]
            if argv:
                print("%s: %s%s" % (c, " ".join(argv), "" if os.access(argv[0], os.X_OK) else "  (binary MISSING)"))
        return 0
    os.makedirs(a.out, exist_ok=True)
    rundir = tempfile.mkdtemp(prefix="abwin.")
    os.chmod(rundir, 0o755)
    env = dict(os.environ, GPUCTL_RUN_DIR=rundir)
    os.environ["GPUCTL_RUN_DIR"] = rundir
    start = time.monotonic()
    deadline = start + a.budget
    res = open(os.path.join(a.out, "results.jsonl"), "a")
    logf = open(os.path.join(a.out, "log.txt"), "a")
    wlog = open(os.path.join(a.out, "workload-%s.txt" % a.tag.replace("~", "-")), "w")
    res.write(json.dumps({"meta": {"mode": "window.py (steady state, one process, -p attach)",
                                   "workload": a.tag, "plan": ",".join(a.plan),
                                   "plan2": ",".join(a.plan2), "policy": a.policy,
                                   "alt_policy": a.alt_policy, "alt2_policy": a.alt2_policy,
                                   "ref_sha": a.ref_sha, "ref_name": a.ref_sha, "tree_sha": a.tree_sha,
                                   "discard": a.discard, "discard2": a.discard2, "measure2": a.measure2, "measure": a.measure, "budget_s": a.budget,
                                   "max_bytes": a.max_bytes, "command": " ".join(cmd)},
                          "run_id": a.run_id}) + "\n")
    logf.write("== %s: %s\n" % (a.tag, " ".join(cmd)))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    steps = Steps(proc, wlog)
    # the workload's start and warm-up: until its first measured step
    while not steps.v and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    rc = 0
    if not steps.v:
        logf.write("%s: no step before the budget or the workload ended: %s\n" % (a.tag, " | ".join(steps.tail)))
        record(res, a, round=0, pos=0, config="start", status="no-steps", error=" | ".join(steps.tail)[-400:])
        rc = 1
    longest, done = {}, 0
    stages = [(a.plan, a.rotations)] + ([(a.plan2, a.rotations2)] if a.plan2 else [])
    for si, (plan, nrot) in enumerate(stages):
        for k in range(nrot):
            r = done + 1
            if rc or proc.poll() is not None:
                break
            rs = time.monotonic()
            # a rotation starts only while the longest so far still fits
            if k and rs + sum(longest.get(c, 0) for c in plan) > deadline:
                break
            for pos, c in enumerate(rotate(plan, k), 1):
                if proc.poll() is not None:
                    break
                if time.monotonic() + longest.get(c, 0) > deadline:
                    record(res, a, round=r, pos=pos, config=c, status="skipped")
                    continue
                took = window(a, steps, proc.pid, c, r, pos, res, logf, rundir, a.discard2 if si else a.discard,
                              a.measure2 if si else a.measure)
                longest[c] = max(longest.get(c, 0), took)
            done = r
    logf.write("%s: %d rotation(s) in %.0fs\n" % (a.tag, done, time.monotonic() - start))
    if not rc and proc.poll() is not None:	# it ended before we ended it: said, with its last lines
        tail = " | ".join(steps.tail)[-400:]
        logf.write("%s: the workload ended (status %s): %s\n" % (a.tag, proc.returncode, tail))
        record(res, a, round=done + 1, pos=0, config="end", status="workload-ended", rc=proc.returncode,
               error=tail)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    steps.t.join(timeout=5)
    for f in (res, logf, wlog):
        f.close()
    print("%s: %d rotation(s), %.0fs" % (a.tag, done, time.monotonic() - start))
    return rc


if __name__ == "__main__":
    sys.exit(main())
