#!/usr/bin/env python3
# A workload under the engine's populate policy, its counters as a dict; an
# evict policy for the length of the block, gone again whatever happens.
import sys, gpuctl
g = gpuctl.Gpuctl()
with g.loaded("evict", "lfu"):
    r = g.run(sys.argv[1:], prefetch="populate", stat=True)
print(r["command_status"], r["wall_s"], r["stat"]["counters"], r["prefetch"])
