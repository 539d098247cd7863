# SPDX-License-Identifier: GPL-2.0
"""clocks.py - the GPU's clocks beside a co-location bench: nvidia-smi's
SM and memory clock (MHz), power (W) and utilization (%) every INTERVAL ms
(500; one nvidia-smi process, NVML kept open), each line stamped with
time.monotonic() as the workloads stamp theirs:
  MONO SM_MHZ MEM_MHZ POWER_W UTIL_PCT
It ends when nvidia-smi does, or on SIGTERM/SIGKILL with it (its stdout is
this process's pipe: a write after that ends it).  GPU 0 unless GPU is set.
"""
import os
import subprocess
import sys
import time


def main():
    ms = os.environ.get("INTERVAL", "500")
    cmd = ["nvidia-smi", "-i", os.environ.get("GPU", "0"),
           "--query-gpu=clocks.sm,clocks.mem,power.draw,utilization.gpu",
           "--format=csv,noheader,nounits", "-lms", ms]
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    except OSError as e:
        print("clocks.py: %s" % e, file=sys.stderr)
        return 1
    for line in p.stdout:
        f = [x.strip() for x in line.split(",")]
        if len(f) != 4:
            continue
        print("%.3f %s" % (time.monotonic(), " ".join(f)), flush=True)
    return p.wait()


if __name__ == "__main__":
    sys.exit(main())
