# SPDX-License-Identifier: GPL-2.0
"""be.py SECONDS - best-effort PyTorch trainer stand-in for the LC/BE
benchmark: loops bf16 8192x8192 @ 8192x8192 matmuls (random), synchronizing
every 4; prints matmuls per second and TFLOP/s over the measured window
(after a 2 s warm-up, for SECONDS)."""
import os, sys, time

# $PROC_COMM: this process's name (what gpuctl's comm:NAME matches) before
# CUDA starts; a renamed interpreter would lose a virtualenv
if os.environ.get("PROC_COMM"):
    with open("/proc/self/comm", "w") as f:
        f.write(os.environ["PROC_COMM"])
import torch

secs = float(sys.argv[1])
dev = torch.device("cuda")
a = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
b = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
c = torch.empty_like(a)
for _ in range(4):
    torch.matmul(a, b, out=c)
torch.cuda.synchronize()
print("be ready pid=%d" % os.getpid(), flush=True)
t0 = time.monotonic()
while time.monotonic() - t0 < 2:
    for _ in range(4):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
n = 0
t0 = time.monotonic()
while time.monotonic() - t0 < secs:
    for _ in range(4):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    n += 4
el = time.monotonic() - t0
print("be matmuls=%d seconds=%.2f per_s=%.2f tflops=%.1f" % (n, el, n / el, n * 2 * 8192**3 / el / 1e12),
      flush=True)
