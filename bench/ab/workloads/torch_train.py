# SPDX-License-Identifier: GPL-2.0
# torch_train.py --so ALLOC_SO [--device] [--cache] [--model M] [--steps N]
# [--warmup W] [--batch B] - bench/ab's PyTorch training workloads: every
# tensor from alloc.so through torch.cuda.memory.CUDAPluggableAllocator.
#   default   cudaMallocManaged without caching: each step makes and frees its
#             allocations (≈ 1 M first-touch GPU faults a step on an H100)
#   --cache   a caching pool over cudaMallocManaged (steady state: the pool's
#             blocks stay on the GPU once touched)
#   --device  the twin: the same allocator shape over cudaMalloc
# Models: transformer (default; the 4-layer d=2048 encoder of
# bench/prefetch_engine/train.py, the workload of issue 31's figures) or mlp
# (4 Linear layers of width 8192).  Adam, random weights and data.  One line
# "BENCH {json}", metric step_ms = the median of the steps after the warm-up.
# The batch is halved until the estimate fits 80 % of the free GPU memory.
# The line also gives where the rest of the wall time went, from the script's
# start: setup_s (torch, CUDA, model and data made and synchronized), warmup_ms.
import time

T0 = time.monotonic()
import argparse  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from abmetric import emit, fail  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--so", required=True)
ap.add_argument("--device", action="store_true")
ap.add_argument("--cache", action="store_true")
ap.add_argument("--model", choices=["transformer", "mlp"], default="transformer")
ap.add_argument("--steps", type=int, default=5)
ap.add_argument("--stamp", action="store_true")  # each step's CLOCK_MONOTONIC span (bench/ab/window.py)
ap.add_argument("--warmup", type=int, default=None)
ap.add_argument("--batch", type=int, default=8)
a = ap.parse_args()
warm = a.warmup if a.warmup is not None else (3 if a.cache else 2)

import torch  # noqa: E402

kind = ("c" if a.cache else "") + ("device" if a.device else "managed")
# before anything touches CUDA: the allocator cannot be swapped afterwards
alloc = torch.cuda.memory.CUDAPluggableAllocator(a.so, kind + "_malloc", kind + "_free")
torch.cuda.memory.change_current_allocator(alloc)
free, total = torch.cuda.mem_get_info()


def need_bytes(model, batch):
    # parameters + gradients + Adam's two states, and the activations
    if model == "transformer":
        params = 4 * (4 * 2048 * 2048 + 2 * 2048 * 8192)
        act = batch * 512 * (2048 * 40 + 16 * 512 * 3) * 4 * 4
    else:
        params = 4 * 8192 * 8192
        act = batch * 4096 * 8192 * 4 * 8
    return params * 4 * 4 + act


batch = a.batch
while batch > 1 and need_bytes(a.model, batch) > 0.8 * free:
    batch //= 2
if need_bytes(a.model, batch) > 0.8 * free:
    fail("%.1f GiB free: too little for the %s model" % (free / 2**30, a.model))

torch.manual_seed(0)
dev = torch.device("cuda")
if a.model == "transformer":
    layer = torch.nn.TransformerEncoderLayer(d_model=2048, nhead=16, dim_feedforward=8192,
                                             batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=4).to(dev)
    x = torch.randn(batch, 512, 2048, device=dev)
else:
    model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(8192, 8192),
                                                                  torch.nn.ReLU())]).to(dev)
    x = torch.randn(batch * 4096, 8192, device=dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
torch.cuda.synchronize()
setup_s = time.monotonic() - T0
times, warm_ms = [], []
for i in range(a.steps + warm):
    torch.cuda.synchronize()
    t = time.perf_counter()
    m0 = time.monotonic()
    opt.zero_grad(set_to_none=True)
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t) * 1e3
    if a.stamp:
        print("at %.6f %.6f" % (m0, time.monotonic()))
    print("step_ms %.1f%s" % (ms, " (warm-up)" if i < warm else ""), flush=True)
    (times if i >= warm else warm_ms).append(round(ms, 2))
extra = dict(model=a.model, alloc=kind + ("" if a.cache else "-nocache"), batch=batch,
             steps=times, warmup=warm, free_bytes=int(free), torch=torch.__version__,
             setup_s=round(setup_s, 3), warmup_ms=warm_ms)
if batch != a.batch:
    extra["scaled_from_batch"] = a.batch
emit("step_ms", round(statistics.median(times), 2), **extra)
