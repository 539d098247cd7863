# SPDX-License-Identifier: GPL-2.0
# train.py ALLOC_SO [STEPS] - a PyTorch training loop on managed memory:
# every tensor from cudaMallocManaged (alloc.so, the pluggable allocator),
# a 4-layer d=2048 transformer encoder with random weights and data, Adam.
# Prints "step_ms X" per measured step and "median_step_ms X".
import statistics
import sys
import time

import torch

so = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 6
alloc = torch.cuda.memory.CUDAPluggableAllocator(so, "managed_malloc", "managed_free")
torch.cuda.memory.change_current_allocator(alloc)
torch.manual_seed(0)
dev = torch.device("cuda")
layer = torch.nn.TransformerEncoderLayer(d_model=2048, nhead=16, dim_feedforward=8192,
                                         batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=4).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
x = torch.randn(8, 512, 2048, device=dev)
times = []
for i in range(steps + 2):
    torch.cuda.synchronize()
    t = time.time()
    opt.zero_grad(set_to_none=True)
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    ms = (time.time() - t) * 1e3
    if i >= 2:
        times.append(ms)
        print("step_ms %.1f" % ms, flush=True)
print("median_step_ms %.1f" % statistics.median(times), flush=True)
