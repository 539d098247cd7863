# SPDX-License-Identifier: GPL-2.0
"""gcrec.py - the LC server's own Python garbage collections, for the
co-location bench (coloc.py; bench/mps/gc_slow.py reads them).  Stdlib only.

The LC's request loop allocates Python objects on every request, so the
interpreter collects now and then.  A full (generation 2) collection walks
every object PyTorch keeps alive and stalls the loop while it runs.  Whether
that is what makes an LC's slow requests come in bursts every ~1.5 s on some
machines (session 15, calls E and F) is what these records answer.

  GcRec()            hooks gc.callbacks; nothing is kept until arm()
  arm(t0)            keep the collections that start at or after t0
                     (time.monotonic(), the run's counted part)
  line(label)        "LABEL GEN:START:US ...": the kept ones of generation
                     >= 1 or of 1 ms or more, then forgets them (disarmed)
  close()            unhooks

COLOC_GC (apply(mode)): "" leaves the collector as it is; "freeze" collects
once and freezes every object alive after the warm-up (gc.freeze: they are
never scanned again); "off" disables automatic collection.  Anything else
is refused (ValueError).
"""
import gc
import time

MODES = ("", "freeze", "off")


def apply(mode):
    """Sets up the collector as COLOC_GC asks, after the model's warm-up."""
    if mode not in MODES:
        raise ValueError("COLOC_GC is one of freeze, off (or empty), not %r" % mode)
    if mode == "freeze":
        gc.collect()
        gc.freeze()
    elif mode == "off":
        gc.collect()
        gc.disable()


class GcRec:
    LONG_US = 1000

    def __init__(self):
        self.t0 = None
        self.began = None
        self.kept = []
        gc.callbacks.append(self._cb)

    def _cb(self, phase, info):
        if phase == "start":
            self.began = time.monotonic()
            return
        if self.began is None or self.t0 is None or self.began < self.t0:
            return
        us = (time.monotonic() - self.began) * 1e6
        gen = info.get("generation", -1)
        if gen >= 1 or us >= self.LONG_US:
            self.kept.append((gen, self.began, us))

    def arm(self, t0):
        self.t0 = t0
        self.kept = []

    def line(self, label):
        out = "%s %s" % (label, " ".join("%d:%.4f:%.0f" % k for k in self.kept))
        self.t0 = None
        self.kept = []
        return out.rstrip()

    def close(self):
        if self._cb in gc.callbacks:
            gc.callbacks.remove(self._cb)
