#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# t_python.sh - the harness library (python/gpuctl) against the real gpuctl
# and the model in the VM (the guest's python3, stdlib only; the package from
# the source tree): documents and schema_version, a typed error, loaded()
# putting the policy before back (after the block, after an exception),
# run() with stat and a record read back through trace_report() (the
# record's header kept), the exporter's textfile through read_textfile(),
# sched_running() with run(sched=...) starting a program in a class, and the
# refusal of run(sched=...) with no sched run.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

command -v python3 >/dev/null || { fail "python3 in the guest" "missing (VM_PYTHON=0?)"; summary; }
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run GPUCTL_RM_DEVICE=/dev/uvm_model_rm
mkdir -m 755 "$GPUCTL_RUN_DIR"
uvmsim reset va_blocks 64 >/dev/null

[ -d "$(pwd)/python/gpuctl" ] || { fail "python/ in the guest" "not carried (tests/run sets VM_COPY=python for t_python)"; summary; }
LIB=$(pwd)/python
out=$(cd "$T_DIR" && PYTHONPATH="$LIB" GPUCTL="$GPUCTL" W="$T_DIR" python3 - <<'PY' 2>&1
import os, subprocess, traceback
import gpuctl

g = gpuctl.Gpuctl()
W = os.environ["W"]


def check(name, cond, detail=""):
    print(("ok %s" if cond else "FAIL %s: " + str(detail)) % name)


def step(name, fn):
    try:
        fn()
    except Exception as e:
        print("FAIL %s: %s" % (name, "".join(traceback.format_exception_only(type(e), e)).strip()))


def documents():
    check("version: schema_version", g.json("version")["schema_version"] == gpuctl.SCHEMA_VERSION)
    p = g.json("probe")
    check("probe: a verdict", "verdict" in p, p)


def typed_error():
    try:
        g.json("prefetch", "load", "no-such-policy")
        check("a bad policy raises", False, "no exception")
    except gpuctl.UsageError as e:
        check("a bad policy raises UsageError (USAGE, 2)", e.code == "USAGE" and e.status == 2, e)


def current(obj):
    d = g.json(obj, "show")
    return d["policy"]


def loaded():
    check("nothing loaded at first", current("prefetch") is None, current("prefetch"))
    with g.loaded("prefetch", "stride") as d:
        check("loaded(): stride inside the block", current("prefetch") == "stride", d)
    check("loaded(): unloaded after the block", current("prefetch") is None, current("prefetch"))
    g.json("prefetch", "load", "always_max")
    with g.loaded("prefetch", "stride"):
        pass
    check("loaded(): the policy before put back", current("prefetch") == "always_max",
          current("prefetch"))
    g.json("prefetch", "unload")
    try:
        with g.loaded("evict", "lfu"):
            check("loaded(): lfu inside", current("evict") == "lfu", current("evict"))
            raise RuntimeError("the harness failed")
    except RuntimeError:
        pass
    check("loaded(): unloaded after an exception", current("evict") is None, current("evict"))


def run_and_record():
    r = g.run(["uvmsim", "run", "seq", "blocks", "4"], stat=True)
    check("run(stat=True): counters, status", r["stat"]["counters"]["gpu_faults"] > 0 and
          r["command_status"] == 0, r)
    r = g.run(["sh", "-c", "exit 3"])
    check("run(): a failing command's status, no raise", r["command_status"] == 3, r)
    rec = os.path.join(W, "r.gtr")
    subprocess.run(["uvmsim", "reset", "va_blocks", "64"], stdout=subprocess.DEVNULL)  # faults again
    r = g.run(["uvmsim", "run", "seq", "blocks", "4"], record=rec)
    check("run(record=): the path", r["record"] == rec and os.path.getsize(rec) > 0, r)
    rep = g.trace_report(rec)
    check("trace_report(): the record's header", rep["records"][0]["backend"] == "bpf" and
          rep["records"][0]["version"] >= 1, rep.get("records"))
    check("trace_report(): the counts", rep["summary"]["counts"]["fault"] > 0, rep["summary"]["counts"])


def textfile():
    path = os.path.join(W, "gpuctl.prom")
    g.json("exporter", "textfile", "--output", path)
    with open(path) as f:
        s = gpuctl.read_textfile(f.read())
    check("read_textfile(): samples", len(s) > 5 and all(n for n, _, _ in s), len(s))
    up = gpuctl.sample_value(s, "gpuctl_exporter_source_up", source="policies")
    check("sample_value(): a labelled sample", up in (0.0, 1.0), up)


def sched():
    try:
        g.run(["true"], sched="be")
        check("run(sched=) without a sched run raises", False, "no exception")
    except gpuctl.Failed as e:
        check("run(sched=) without a sched run raises Failed", "sched run" in e.message, e)
    with g.sched_running("lc-be", "lc", "comm:lc1"):
        st = g.json("sched", "status")
        check("sched_running(): a policy runs", st["policy_pid"] > 0, st)
        r = g.run(["sh", "-c", 'test "$GPUCTL_SCHED_CLASS" = be'], sched="be")
        check("run(sched='be'): the class, CMD's status", r["sched"]["class"] == "be" and
              r["command_status"] == 0, r)
    st = g.json("sched", "status")
    check("sched_running(): stopped after the block", st["policy_pid"] == 0, st)


for name, fn in [("documents", documents), ("typed error", typed_error), ("loaded", loaded),
                 ("run", run_and_record), ("textfile", textfile), ("sched", sched)]:
    step(name, fn)
PY
)
printf '%s\n' "$out" | grep -q '^ok ' || fail "the library ran" "$(printf '%s' "$out" | tail -5)"
printf '%s\n' "$out" | while IFS= read -r line; do
	case $line in "ok "*|"FAIL "*) ;; *) echo "# $line" ;; esac
done
n=$(printf '%s\n' "$out" | grep -c '^ok ')
T_PASS=$((T_PASS + n))
printf '%s\n' "$out" | grep '^ok ' | sed 's/^ok /ok   /'
bad=$(printf '%s\n' "$out" | grep '^FAIL ')
if [ -n "$bad" ]; then
	printf '%s\n' "$bad" | while IFS= read -r line; do echo "$line"; done
	T_FAIL=$((T_FAIL + $(printf '%s\n' "$bad" | grep -c .)))
fi
"$GPUCTL" prefetch unload >/dev/null 2>&1
"$GPUCTL" evict unload >/dev/null 2>&1
"$GPUCTL" sched unload >/dev/null 2>&1
summary
