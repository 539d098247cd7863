# SPDX-License-Identifier: GPL-2.0
"""torch_loop.py SO OUT [GIB] - a fault-heavy PyTorch loop on managed memory.

Every tensor comes from cudaMallocManaged (um_alloc.cu through PyTorch's
CUDAPluggableAllocator, which does not cache), so each step's tensors are
fresh and their first GPU touches fault.  A step touches about GIB GiB (at
most 3 tensors of GIB/3 live at once).  Appends "t_end_monotonic step_s" per
step to OUT until killed.
"""
import sys
import time

import torch

so, out = sys.argv[1], sys.argv[2]
gib = float(sys.argv[3]) if len(sys.argv) > 3 else 0.75
alloc = torch.cuda.memory.CUDAPluggableAllocator(so, "um_malloc", "um_free")
torch.cuda.memory.change_current_allocator(alloc)
n = int(gib * (1 << 30) / 3 / 4)
with open(out, "a", buffering=1) as f:
    while True:
        t0 = time.monotonic()
        x = torch.empty(n, device="cuda")
        x.uniform_()
        y = x * 2.0 + 1.0
        z = torch.sqrt(y)
        s = float(z.sum())
        del x, y, z
        torch.cuda.synchronize()
        t1 = time.monotonic()
        f.write("%.6f %.6f %d\n" % (t1, t1 - t0, int(s) & 1))
