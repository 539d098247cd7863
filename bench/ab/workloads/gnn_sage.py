# SPDX-License-Identifier: GPL-2.0
# gnn_sage.py --so ALLOC_SO [--device] [--cache] [--nodes N] [--edges E]
# [--feat F] [--hidden H] [--epochs K] [--warmup W] - bench/ab's graph
# neural network: torch_geometric's GraphSAGE (2 layers, mean aggregation),
# full-batch training on a random graph (default 2 M nodes, 20 M edges, 64
# features, 16 classes), Adam.  Every tensor (features, edges, labels,
# messages, activations) from alloc.so through the pluggable allocator:
# cudaMallocManaged without caching (default), --cache the caching managed
# pool, --device the twin over cudaMalloc.  One line "BENCH {json}", metric
# epoch_ms = the median of the epochs after the warm-up.  Nodes and edges are
# scaled down together (and the line says so) to fit 80 % of the free memory.
# The line also gives where the rest of the wall time went, from the script's
# start: setup_s (torch, CUDA, the graph made and synchronized) and warmup_ms.
import time

T0 = time.monotonic()
import argparse  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from abmetric import emit, fail, fits  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--so", required=True)
ap.add_argument("--device", action="store_true")
ap.add_argument("--cache", action="store_true")
ap.add_argument("--nodes", type=int, default=2_000_000)
ap.add_argument("--edges", type=int, default=20_000_000)
ap.add_argument("--feat", type=int, default=64)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--classes", type=int, default=16)
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--stamp", action="store_true")  # each step's CLOCK_MONOTONIC span (bench/ab/window.py)
ap.add_argument("--warmup", type=int, default=1)
a = ap.parse_args()

import torch  # noqa: E402

kind = ("c" if a.cache else "") + ("device" if a.device else "managed")
alloc = torch.cuda.memory.CUDAPluggableAllocator(a.so, kind + "_malloc", kind + "_free")
torch.cuda.memory.change_current_allocator(alloc)
try:
    from torch_geometric.nn import GraphSAGE
except Exception as e:  # noqa: BLE001
    fail("cannot import torch_geometric: %s" % e, 3)
free, total = torch.cuda.mem_get_info()

# gathered messages (edges x width, forward and backward, both layers) dominate
width = max(a.feat, a.hidden)
need = a.edges * (width * 4 * 4 + 16) + a.nodes * (a.feat + a.hidden + a.classes) * 4 * 6
f = fits(need, free)
nodes, edges = int(a.nodes * f), int(a.edges * f)
if nodes < 1000:
    fail("%.1f GiB free: too little for the graph" % (free / 2**30))

torch.manual_seed(0)
dev = torch.device("cuda")
x = torch.randn(nodes, a.feat, device=dev)
edge_index = torch.randint(0, nodes, (2, edges), device=dev)
y = torch.randint(0, a.classes, (nodes,), device=dev)
model = GraphSAGE(a.feat, a.hidden, num_layers=2, out_channels=a.classes).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
torch.cuda.synchronize()
setup_s = time.monotonic() - T0
times, warm = [], []
for i in range(a.epochs + a.warmup):
    torch.cuda.synchronize()
    t = time.perf_counter()
    m0 = time.monotonic()
    opt.zero_grad(set_to_none=True)
    out = model(x, edge_index)
    loss = torch.nn.functional.cross_entropy(out, y)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t) * 1e3
    if a.stamp:
        print("at %.6f %.6f" % (m0, time.monotonic()))
    print("epoch_ms %.1f%s" % (ms, " (warm-up)" if i < a.warmup else ""), flush=True)
    (times if i >= a.warmup else warm).append(round(ms, 2))
extra = dict(alloc=kind + ("" if a.cache else "-nocache"), nodes=nodes, edges=edges, feat=a.feat,
             hidden=a.hidden, epochs=times, warmup=a.warmup, free_bytes=int(free),
             torch=torch.__version__, setup_s=round(setup_s, 3), warmup_ms=warm)
if f < 1:
    extra["scaled_from"] = [a.nodes, a.edges]
emit("epoch_ms", round(statistics.median(times), 2), **extra)
