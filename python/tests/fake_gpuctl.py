#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for the gpuctl binary (the library's tests): the same -j
documents, error objects, codes and exit statuses for the commands the
library uses, with the loaded policies kept in $FAKE_STATE and every command
line appended to $FAKE_LOG."""
import json
import os
import subprocess
import sys
import time

V = 2
state_path = os.environ["FAKE_STATE"]
state = {}
if os.path.exists(state_path):
    with open(state_path) as f:
        state = json.load(f)
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")


def out(doc, rc=0):
    if isinstance(doc, dict):
        doc["schema_version"] = V
    print(json.dumps(doc))
    with open(state_path, "w") as f:
        json.dump(state, f)
    sys.exit(rc)


def err(msg, code, rc):
    out({"error": msg, "code": code}, rc)


def wait_gone(pid):
    while os.path.exists("/proc/%d" % pid):
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split()[2] == "Z":
                    break
        except OSError:
            break
        time.sleep(0.01)


a = sys.argv[1:]
if a[:1] == ["__complete"]:
    print("\n".join(w for w in ["stat", "sched", "shell"] if w.startswith(a[-1])))
    sys.exit(0)
assert a[0] == "-j", a
a = a[1:]
obj, cmd, rest = a[0], a[1] if len(a) > 1 else None, a[2:]
if obj == "probe":
    out({"verdict": {"sched": {"available": False, "why": "stand-in"}}})
if obj == "future":
    print(json.dumps({"x": 1, "schema_version": 99}))
    sys.exit(0)
if obj in ("prefetch", "evict", "replay") and cmd == "show":
    cur = state.get(obj)
    doc = {"policy": cur["name"], "source": "builtin", "params": cur["params"]} if cur else {"policy": None}
    # as gpuctl: the policy's document alone; with engines running, both parts
    engines = state.get("engines") if obj == "prefetch" else None
    out({"system": doc, "engines": engines} if engines else doc)
if obj in ("prefetch", "evict", "replay") and cmd == "unload":
    state.pop(obj, None)
    out(None)
if obj in ("prefetch", "evict", "replay") and cmd == "load":
    pol, words = rest[0], rest[1:]
    if "--" in words or "-p" in words:
        # the engine on one process: its closing report
        if "--" in words:
            i = words.index("--")
            rc = subprocess.run(words[i + 1:]).returncode
            out({"pid": 1, "policy": pol, "seconds": 0.1, "faults": 3, "exit_status": rc})
        pid = int(words[words.index("-p") + 1])
        wait_gone(pid)
        out({"pid": pid, "policy": pol, "seconds": 0.1, "faults": 5})
    if pol == "nope":
        err("unknown %s policy 'nope'" % obj, "USAGE", 2)
    if pol == "busy":
        err("another load holds it: Device or resource busy", "EBUSY", 1)
    if pol == "noperm":
        err("'%s load' needs CAP_BPF: Operation not permitted" % obj, "EPERM", 1)
    if pol == "nocap":
        err("'%s load' needs CAP_BPF and CAP_PERFMON; missing: CAP_BPF" % obj, "PERMISSION", 1)
    if pol == "nobpffs":
        err("bpffs is not mounted at /sys/fs/bpf", "BPFFS_ABSENT", 1)
    state[obj] = {"name": pol, "params": dict(zip(words[::2], [int(x) for x in words[1::2]]))}
    out({"policy": pol, "params": state[obj]["params"]})
if obj == "stat":
    words = a[1:]
    if "--" in words:
        i = words.index("--")
        rc = subprocess.run(words[i + 1:], stdout=sys.stderr).returncode
        out({"counters": {"gpu_faults": 7}, "command_status": rc}, rc if rc > 0 else 0)
    pid = int(words[words.index("-p") + 1])
    wait_gone(pid)
    out({"counters": {"gpu_faults": 9}, "command_status": None})
if obj == "trace" and cmd == "record":
    words = a[2:]
    path = words[words.index("-o") + 1]
    if "-p" in words:
        wait_gone(int(words[words.index("-p") + 1]))
    else:
        subprocess.run(words[words.index("--") + 1:])
    with open(path, "w") as f:
        f.write("record\n")
    out(None)
if obj == "trace" and cmd == "report":
    out({"records": [{"version": 2, "backend": "bpf"}], "summary": {"counts": {"fault": 64}}})
if obj == "sched" and cmd == "run":
    state["sched"] = rest[0]
    out({"daemon_pid": 4242, "policy": rest[0]})
if obj == "sched" and cmd == "stop":
    state.pop("sched", None)
    out(None)
if obj == "run":
    words = a[1:]
    i = words.index("--")
    opts, cmd = words[:i], words[i + 1:]
    doc = {"command": cmd, "command_status": None, "wall_s": 0.01, "prefetch": None,
           "stat": None, "record": None, "sched": None}
    if "--sched" in opts:
        if "sched" not in state:
            err("no scheduling policy runs: 'gpuctl sched run POLICY ...' first", "FAILED", 1)
        doc["sched"] = {"class": opts[opts.index("--sched") + 1], "mechanism": "tsg"}
    if "--prefetch" in opts:
        pol = opts[opts.index("--prefetch") + 1]
        if pol == "nope":
            doc["prefetch"] = {"error": "unknown engine policy 'nope'", "code": "USAGE",
                               "schema_version": V}
            out(doc, 2)
        doc["prefetch"] = {"pid": 1, "policy": pol, "faults": 5, "schema_version": V}
    if "--stat" in opts:
        doc["stat"] = {"counters": {"gpu_faults": 9}, "schema_version": V}
    if "--record" in opts:
        doc["record"] = opts[opts.index("--record") + 1]
        with open(doc["record"], "w") as f:
            f.write("record\n")
    rc = subprocess.run(cmd, stdout=sys.stderr).returncode
    doc["command_status"] = rc
    out(doc, rc if rc > 0 else 0)
if obj == "stream":
    print(json.dumps({"t": 1, "schema_version": V}))
    print(json.dumps({"t": 2, "schema_version": V}))
    sys.exit(0)
if obj == "crash":
    print("Segmentation fault", file=sys.stderr)
    sys.exit(139)
err("unknown object '%s'" % obj, "USAGE", 2)
