# SPDX-License-Identifier: GPL-2.0
"""lc.py SECONDS [PERIOD_MS] - latency-critical PyTorch inference for the
LC/BE benchmark: 8 fp16 Linear(1024) layers (random weights), batch 1, one
request every PERIOD_MS (2); latency = request start to result synchronized.
With $GPUCTL_HINT set, each request is bracketed by gpuctl_hint_begin/end
(libgpuctl-hint.so from $GPUCTL_HINT_LIB, default next to this script).
Prints one line: "lc n=... p50_us=... p99_us=... max_us=...".
"""
import ctypes, os, sys, time

# $PROC_COMM: this process's name (what gpuctl's comm:NAME matches) before
# CUDA starts; a renamed interpreter would lose a virtualenv
if os.environ.get("PROC_COMM"):
    with open("/proc/self/comm", "w") as f:
        f.write(os.environ["PROC_COMM"])
import torch

secs = float(sys.argv[1])
period = float(sys.argv[2]) / 1e3 if len(sys.argv) > 2 else 0.002
dev = torch.device("cuda")
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(8)]).half().to(dev).eval()
x = torch.randn(1, 1024, dtype=torch.float16, device=dev)
begin = end = lambda: 0
if os.environ.get("GPUCTL_HINT"):
    lib = ctypes.CDLL(os.environ.get("GPUCTL_HINT_LIB",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "libgpuctl-hint.so")))
    begin, end = lib.gpuctl_hint_begin, lib.gpuctl_hint_end
with torch.inference_mode():
    for _ in range(50):
        model(x)
    torch.cuda.synchronize()
    print("lc ready pid=%d" % os.getpid(), flush=True)
    lat = []
    t_end = time.monotonic() + secs
    nxt = time.monotonic()
    while time.monotonic() < t_end:
        nxt += period
        t0 = time.perf_counter()
        begin()
        y = model(x)
        torch.cuda.synchronize()
        end()
        lat.append((time.perf_counter() - t0) * 1e6)
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
        else:
            nxt = time.monotonic()
lat.sort()
n = len(lat)
print("lc n=%d p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f" %
      (n, lat[n // 2], lat[int(n * 0.9)], lat[int(n * 0.99)], lat[-1], sum(lat) / n), flush=True)
