# SPDX-License-Identifier: GPL-2.0
# abmetric.py - the one result line of a bench/ab workload: "BENCH {json}" on
# standard output, also appended to $BENCH_METRIC_FILE when set (run.sh reads
# it there: under `trace faults` standard output is the trace).
import json
import os
import sys


def emit(metric, value, **extra):
    d = {"metric": metric, "value": value}
    d.update(extra)
    line = "BENCH " + json.dumps(d, sort_keys=True)
    print(line, flush=True)
    path = os.environ.get("BENCH_METRIC_FILE")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


def fail(msg, code=1):
    print("%s: %s" % (os.path.basename(sys.argv[0]), msg), file=sys.stderr, flush=True)
    sys.exit(code)


def fits(need, free, frac=0.8):
    """The factor (<= 1) that scales a need of `need` bytes into frac of `free`."""
    room = free * frac
    return 1.0 if need <= room else room / need
