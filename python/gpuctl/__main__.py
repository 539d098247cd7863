# SPDX-License-Identifier: GPL-2.0
"""python3 -m gpuctl ARGS...: gpuctl -j ARGS..., pretty-printed (a quick look)."""
import json
import sys

from . import Gpuctl, GpuctlError

try:
    print(json.dumps(Gpuctl().json(*sys.argv[1:]), indent=2))
except GpuctlError as e:
    print("Error: %s" % e, file=sys.stderr)
    sys.exit(e.status or 1)
