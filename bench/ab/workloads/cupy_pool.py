# SPDX-License-Identifier: GPL-2.0
# cupy_pool.py [--device] [--gib G] - bench/ab's second workload: a CuPy
# memory pool over cudaMallocManaged (every array and temporary managed
# memory), a G GiB (default 4) uint32 array written by the CPU through a
# NumPy view of the managed memory, then the GPU phase, timed: sort it,
# transform (float, sqrt, scale, shift) and reduce.  --device (the twin): the
# pool is CuPy's default (cudaMalloc) and the CPU's data is copied in before
# the timer starts.  One line "BENCH {json}", metric gpu_ms.  Scales G down
# (and says so: "scaled_from_gib") to fit 80 % of the GPU's free memory
# (about 4.5 G at the peak: array, sorted copy, sort scratch, float copy).
import argparse
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from abmetric import emit, fail, fits  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--device", action="store_true")
ap.add_argument("--gib", type=float, default=4.0)
a = ap.parse_args()

import numpy as np  # noqa: E402

try:
    import cupy as cp
except Exception as e:  # noqa: BLE001
    fail("cannot import cupy: %s" % e, 3)

free, total = cp.cuda.runtime.memGetInfo()
gib = a.gib * fits(a.gib * 4.5 * 2**30, free)
n = int(gib * 2**30) // 4 // (1 << 20) * (1 << 20)
if n <= 0:
    fail("no GPU memory free")
if a.device:
    pool = cp.cuda.MemoryPool()
else:
    pool = cp.cuda.MemoryPool(cp.cuda.malloc_managed)
cp.cuda.set_allocator(pool.malloc)

# the GPU phase's kernels compiled (or read from CuPy's cache) before the timer
w = cp.sort(cp.arange(1 << 16, dtype=cp.uint32)[::-1]).astype(cp.float32)
cp.sqrt(w, out=w)
w *= 0.5
w += 1.0
float(w.sum())
del w
CHUNK = 1 << 24
x = cp.empty(n, dtype=cp.uint32)
t = time.perf_counter()
if a.device:
    for i in range(0, n, CHUNK):
        j = min(n, i + CHUNK)
        x[i:j].set(np.arange(i, j, dtype=np.uint32) * np.uint32(2654435761))
else:
    view = np.ctypeslib.as_array(ctypes.cast(x.data.ptr, ctypes.POINTER(ctypes.c_uint32)), shape=(n,))
    for i in range(0, n, CHUNK):
        j = min(n, i + CHUNK)
        np.multiply(np.arange(i, j, dtype=np.uint32), np.uint32(2654435761), out=view[i:j])
cp.cuda.runtime.deviceSynchronize()
fill_ms = (time.perf_counter() - t) * 1e3
time.sleep(0.1)  # as the sweep: an engine attached at start is up

t = time.perf_counter()
s = cp.sort(x)
y = s.astype(cp.float32)
cp.sqrt(y, out=y)
y *= 0.5
y += 1.0
total_sum = float(y.sum())
cp.cuda.runtime.deviceSynchronize()
gpu_ms = (time.perf_counter() - t) * 1e3

extra = dict(mode="device" if a.device else "managed", bytes=n * 4, fill_ms=round(fill_ms, 1),
             free_bytes=int(free), pool_bytes=int(pool.total_bytes()), check=total_sum)
if gib < a.gib:
    extra["scaled_from_gib"] = a.gib
emit("gpu_ms", round(gpu_ms, 3), **extra)
