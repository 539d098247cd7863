# SPDX-License-Identifier: GPL-2.0
"""rate.py SECONDS LOG - a GPU worker whose progress can be read at any
instant: bf16 4096^3 matmuls, synchronized every 2, one line "T N" to LOG
every 0.1 s (time.monotonic, matmuls done so far).  Used by facts_gpu.sh to
see whether taking a TSG off its runlist stops this process's work."""
import os, sys, time

if os.environ.get("PROC_COMM"):
    with open("/proc/self/comm", "w") as f:
        f.write(os.environ["PROC_COMM"])
import torch

secs, log = float(sys.argv[1]), sys.argv[2]
a = torch.randn(4096, 4096, dtype=torch.bfloat16, device="cuda")
b = torch.randn(4096, 4096, dtype=torch.bfloat16, device="cuda")
c = torch.empty_like(a)
torch.matmul(a, b, out=c)
torch.cuda.synchronize()
print("rate ready pid=%d" % os.getpid(), flush=True)
n, last = 0, 0.0
t_end = time.monotonic() + secs
with open(log, "w", buffering=1) as f:
    while time.monotonic() < t_end:
        for _ in range(2):
            torch.matmul(a, b, out=c)
        torch.cuda.synchronize()
        n += 2
        now = time.monotonic()
        if now - last >= 0.1:
            f.write("%.3f %d\n" % (now, n))
            last = now
