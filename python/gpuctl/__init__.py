# SPDX-License-Identifier: GPL-2.0
"""gpuctl for experiment harnesses: the binary's JSON as Python values.

Standard library only.  Everything goes through the gpuctl binary and its -j
output (gpuctl(8), JSON OUTPUT); nothing here talks to the driver.

    import gpuctl
    g = gpuctl.Gpuctl()                       # $GPUCTL, else gpuctl on PATH
    print(g.json("probe")["verdict"])
    with g.loaded("prefetch", "stride", max_pages=64):
        ...                                   # unloaded (or the policy before
                                              # put back) on exit, exception, Ctrl-C
    r = g.run(["./train"], prefetch="populate", stat=True)
    r["status"], r["wall_s"], r["prefetch"], r["stat"]["counters"]["gpu_faults"]
"""
import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time

from .errors import (GpuctlError, UsageError, PermissionDenied, NotFound, Busy,
                     NotSupported, Failed, ProtocolError, error_from)
from .readers import read_textfile, trace_report

__all__ = ["Gpuctl", "GpuctlError", "UsageError", "PermissionDenied", "NotFound", "Busy",
           "NotSupported", "Failed", "ProtocolError", "SCHEMA_VERSION", "read_textfile",
           "documents"]

# The newest "schema_version" this library reads (cmd/lib/gpuctl.h GPUCTL_SCHEMA_VERSION).
SCHEMA_VERSION = 1
# The device a process has open once it uses UVM (GPUCTL_UVM_DEVICE: another, for tests).
UVM_DEVICE = os.environ.get("GPUCTL_UVM_DEVICE", "/dev/nvidia-uvm")


def documents(text):
    """The JSON documents in gpuctl's standard output: one, or one a line (JSON Lines)."""
    text = text.strip()
    if not text:
        return []
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    docs = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                docs.append(json.loads(line))
            except ValueError as e:
                raise ProtocolError("line %d of gpuctl's output is not JSON: %s" % (n, e),
                                    "PROTOCOL") from None
    return docs


def _kv(params):
    out = []
    for k, v in (params or {}).items():
        out += [str(k), str(v)]
    return out


@contextlib.contextmanager
def _no_sigint():
    """Ctrl-C waits while a policy is put back (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


class Gpuctl:
    """One gpuctl binary.  binary: a path (default $GPUCTL, else gpuctl on PATH)."""

    def __init__(self, binary=None, timeout=None):
        self.binary = binary or os.environ.get("GPUCTL") or shutil.which("gpuctl") or "gpuctl"
        self.timeout = timeout

    # ------------------------------------------------------------ the binary
    def _argv(self, args):
        return [self.binary, "-j"] + [str(a) for a in args]

    def _check(self, argv, status, docs, stderr):
        for d in docs:
            if isinstance(d, dict):
                v = d.get("schema_version")
                if isinstance(v, int) and v > SCHEMA_VERSION:
                    raise ProtocolError("gpuctl writes schema_version %d; this library reads "
                                        "%d and older" % (v, SCHEMA_VERSION), "PROTOCOL",
                                        status, argv)
                if "error" in d:
                    raise error_from(d, status or 1, argv)
        if status and status not in (0,) and not docs:
            last = stderr.strip().splitlines()[-1] if stderr.strip() else "gpuctl failed"
            raise Failed(last, "FAILED", status, argv)

    def lines(self, *args, timeout=None):
        """gpuctl -j ARGS...: every document it wrote (a list; JSON Lines)."""
        argv = self._argv(args)
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True,
                           timeout=timeout or self.timeout)
        docs = documents(p.stdout)
        self._check(argv, p.returncode, docs, p.stderr)
        return docs

    def json(self, *args, timeout=None):
        """gpuctl -j ARGS...: its one document (a dict, list or None); raises on an error document."""
        docs = self.lines(*args, timeout=timeout)
        if len(docs) > 1:
            raise ProtocolError("expected one document, got %d" % len(docs), "PROTOCOL", 0,
                                self._argv(args))
        return docs[0] if docs else None

    def complete(self, *words):
        """What may follow words (gpuctl __complete), a list; None where gpuctl leaves it to the shell."""
        p = subprocess.run([self.binary, "__complete"] + [str(w) for w in words],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if p.returncode:
            return None
        return [w for w in p.stdout.splitlines() if w]

    def trace_report(self, *paths, **opts):
        """gpuctl -j trace report -i PATH... (the record's header kept): a dict."""
        return trace_report(self, *paths, **opts)

    # ---------------------------------------------- policies for a with block
    def _current(self, obj):
        """The built-in policy obj runs now as (name, params), or None."""
        doc = self.json(obj, "show")
        if isinstance(doc, dict) and obj == "prefetch":
            doc = doc.get("system")
        if not isinstance(doc, dict) or not doc.get("policy"):
            return None
        if doc.get("source") not in (None, "builtin", "built-in"):
            return None     # a user's file: unloaded, not put back
        return doc["policy"], dict(doc.get("params") or {})

    @contextlib.contextmanager
    def loaded(self, obj, policy, **params):
        """obj (prefetch, evict, replay) runs policy with params inside the block.

        On leaving (normally, by an exception or by Ctrl-C) the policy that ran
        before is loaded again, or the object is unloaded when none did.
        """
        before = self._current(obj)
        doc = self.json(obj, "load", policy, *_kv(params))
        try:
            yield doc
        finally:
            with _no_sigint():
                if before:
                    self.json(obj, "load", before[0], *_kv(before[1]))
                else:
                    self.json(obj, "unload")

    @contextlib.contextmanager
    def sched_running(self, policy, *words):
        """gpuctl sched run POLICY WORDS... --detach for the block; sched stop after it."""
        doc = self.json("sched", "run", policy, *words, "--detach")
        try:
            yield doc
        finally:
            with _no_sigint():
                self.json("sched", "stop")

    # ------------------------------------------------------ one experiment
    def run(self, cmd, prefetch=None, params=None, stat=False, record=None, attach_timeout=30.0):
        """Runs cmd (a list) under a prefetch engine policy, counting, recording.

        Returns {"command", "status" (cmd's exit status, 128+N for signal N),
        "wall_s", "prefetch" (the engine's closing report, or None), "stat"
        (gpuctl stat's document, or None), "record" (the file, or None),
        "schema_version"}.  One tool alone runs cmd itself (nothing missed);
        several follow it by pid once it has /dev/nvidia-uvm open, so what it
        did before they attach is not seen.
        """
        cmd = [str(c) for c in cmd]
        tools = sum(bool(x) for x in (prefetch, stat, record))
        t0 = time.monotonic()
        out = {"command": cmd, "status": None, "wall_s": None, "prefetch": None,
               "stat": None, "record": record, "schema_version": SCHEMA_VERSION}
        if tools == 0:
            p = subprocess.run(cmd)
            out["status"] = _status(p.returncode)
        elif tools == 1 and prefetch:
            doc = self._run_doc(["prefetch", "load", prefetch] + _kv(params) + ["--"] + cmd)
            out["prefetch"] = doc
            out["status"] = _doc_status(doc)
        elif tools == 1 and stat:
            doc = self._run_doc(["stat", "--"] + cmd)
            out["stat"] = doc
            out["status"] = _doc_status(doc)
        elif tools == 1:
            self._run_doc(["trace", "record", "-o", record, "--"] + cmd)
        else:
            out.update(self._run_follow(cmd, prefetch, params, stat, record, attach_timeout))
        out["wall_s"] = time.monotonic() - t0
        return out

    def _run_doc(self, args):
        argv = self._argv(args)
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           stdin=subprocess.DEVNULL)
        docs = documents(p.stdout)
        self._check(argv, p.returncode if not docs else 0, docs, p.stderr)
        doc = docs[-1] if docs else None
        if isinstance(doc, dict) and "command_status" not in doc and "exit_status" not in doc:
            doc["command_status"] = _status(p.returncode)
        return doc

    def _run_follow(self, cmd, prefetch, params, stat, record, attach_timeout):
        child = subprocess.Popen(cmd)
        try:
            _wait_uvm(child, attach_timeout)
            procs = []
            pid = str(child.pid)
            if prefetch:
                procs.append(("prefetch", ["prefetch", "load", prefetch] + _kv(params) + ["-p", pid]))
            if stat:
                procs.append(("stat", ["stat", "-p", pid]))
            if record:
                procs.append(("record", ["trace", "record", "-o", record, "-p", pid]))
            running = [(k, a, subprocess.Popen(self._argv(a), stdout=subprocess.PIPE,
                                               stderr=subprocess.PIPE, text=True))
                       for k, a in procs]
            status = _status(child.wait())
            res = {"status": status}
            for k, a, p in running:
                o, e = p.communicate()
                docs = documents(o)
                self._check(self._argv(a), p.returncode, docs, e)
                if k != "record":
                    res[k] = docs[-1] if docs else None
            return res
        finally:
            if child.poll() is None:
                child.terminate()
                child.wait()


def _status(rc):
    return 128 - rc if rc < 0 else rc


def _doc_status(doc):
    if isinstance(doc, dict):
        for k in ("command_status", "exit_status"):
            if isinstance(doc.get(k), int):
                return doc[k]
    return None


def _wait_uvm(child, timeout):
    """Until child has UVM_DEVICE open (then gpuctl can follow it by pid)."""
    end = time.monotonic() + timeout
    fd_dir = "/proc/%d/fd" % child.pid
    while time.monotonic() < end:
        if child.poll() is not None:
            raise Failed("the command exited (status %d) before it opened %s"
                         % (_status(child.returncode), UVM_DEVICE), "FAILED", 1, [])
        try:
            for fd in os.listdir(fd_dir):
                try:
                    if os.readlink(os.path.join(fd_dir, fd)) == UVM_DEVICE:
                        return
                except OSError:
                    pass
        except OSError:
            pass
        time.sleep(0.005)
    raise Failed("the command did not open %s within %.0f s" % (UVM_DEVICE, timeout),
                 "FAILED", 1, [])
