#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""holdconns.py HOST PORT N SECONDS SRC...

Opens N connections to HOST:PORT (IPv6 when HOST has a ':'), their source
addresses taken in turn from SRC (IPv4, IPv6, or IPv4-mapped
"::ffff:127.0.0.9" through an IPv6 socket), each trickling a request a
byte a second (slowloris), for SECONDS; then prints "held K of N": the
connections the server had neither refused nor closed.  Run as the local
user whose bound is tested (setpriv --reuid nobody).
"""
import socket, sys, time

host, port, n, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
srcs = sys.argv[5:] or ["127.0.0.1"]
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096
conns = []
for i in range(n):
    src = srcs[i % len(srcs)]
    fam = socket.AF_INET6 if ":" in src or ":" in host else socket.AF_INET
    dst = host
    if fam == socket.AF_INET6 and ":" not in host:
        dst = "::ffff:" + host
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.bind((src, 0))
        s.settimeout(2)
        s.connect((dst, port))
        conns.append(s)
    except OSError as e:
        print("connect from %s: %s" % (src, e), file=sys.stderr)
        s.close()


def alive(c):
    c.setblocking(False)
    try:
        return c.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


end = time.monotonic() + secs
pos = 0
while time.monotonic() < end:
    for c in list(conns):
        try:
            c.send(REQ[pos:pos + 1])
        except OSError:
            conns.remove(c)
    pos += 1
    time.sleep(1)
print("held %d of %d" % (sum(alive(c) for c in conns), n), flush=True)
