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
    r = g.run(["./train"], prefetch="populate", stat=True)   # gpuctl run's document
    r["command_status"], r["wall_s"], r["prefetch"], r["stat"]["counters"]["gpu_faults"]
"""
import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading

from .errors import (GpuctlError, UsageError, PermissionDenied, NotFound, Busy,
                     NotSupported, Failed, NoDriver, BpffsAbsent, NoBackend, ProtocolError,
                     error_from)
from .readers import read_textfile, sample_value, trace_report

__all__ = ["Gpuctl", "GpuctlError", "UsageError", "PermissionDenied", "NotFound", "Busy",
           "NotSupported", "Failed", "NoDriver", "BpffsAbsent", "NoBackend", "ProtocolError",
           "SCHEMA_VERSION", "read_textfile", "sample_value",
           "documents"]

# The newest "schema_version" this library reads (cmd/lib/gpuctl.h GPUCTL_SCHEMA_VERSION).
SCHEMA_VERSION = 2


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
        if isinstance(doc, dict) and obj == "prefetch" and "system" in doc:
            doc = doc["system"]     # engines run too: the system-wide part
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
    def run(self, cmd, prefetch=None, params=None, stat=False, record=None, attach_timeout=None,
            sched=None):
        """gpuctl -j run: cmd (a list) under an engine prefetch policy, counted, recorded.

        Returns gpuctl run's document as a dict: "command", "command_status"
        (cmd's exit status, 128+N for signal N), "wall_s", "prefetch" (the
        engine's closing report), "stat" (gpuctl stat's document), "record",
        "sched" ({"class", "mechanism"} with sched="lc" or "be": cmd started in
        that class of the running sched policy), "schema_version".  A tool that
        failed raises its error (typed, as json() does); so does sched= with
        no sched run; a failing cmd does not raise: its status is in the dict.
        """
        args = ["run"]
        if prefetch:
            args += ["--prefetch", prefetch] + _kv(params)
        elif params:
            raise ValueError("params are the prefetch policy's: give prefetch=")
        if sched:
            args += ["--sched", sched]
        if stat:
            args.append("--stat")
        if record:
            args += ["--record", record]
        if attach_timeout is not None:
            args += ["--attach-timeout", "%dms" % round(attach_timeout * 1000)]
        argv = self._argv(args + ["--"] + [str(c) for c in cmd])
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           stdin=subprocess.DEVNULL)
        docs = documents(p.stdout)
        self._check(argv, p.returncode, docs, p.stderr)
        if len(docs) != 1 or not isinstance(docs[0], dict):
            raise ProtocolError("gpuctl run wrote %d documents" % len(docs), "PROTOCOL",
                                p.returncode, argv)
        doc = docs[0]
        for member in ("prefetch", "stat"):
            d = doc.get(member)
            if isinstance(d, dict) and "error" in d:
                raise error_from(d, p.returncode or 1, argv)
        return doc
