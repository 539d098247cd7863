#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""slowclients.py HOST PORT IDLE TRICKLE SCRAPES [SPREAD]

Against an HTTP server on HOST:PORT: opens IDLE connections that send
nothing and TRICKLE connections that send a request one byte every 2 s
(slowloris), then, with all of them still open, does SCRAPES GETs of
/metrics from 127.0.0.1, each on a fresh connection.  The attackers come
from 127.0.0.2 (IDLE) and 127.0.0.3 (TRICKLE), or with SPREAD=N spread over
N addresses 127.0.1.x each (fewer per address than a per-client limit).
Prints one line per scrape: "scrape N: STATUS SECONDS" (STATUS "fail:
reason" when none came), then "opened I idle, T trickling" (those the
server had not closed by the end).  With SLOW_AS_UID=N in the environment
(run as root), the attackers' sockets are user N's (seteuid while they are
made), the scrapes root's: a server that bounds each local user must still
answer the scrapes.
"""
import os, socket, sys, threading, time

host, port = sys.argv[1], int(sys.argv[2])
n_idle, n_trickle, n_scrapes = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
spread = int(sys.argv[6]) if len(sys.argv) > 6 else 0


def src(kind, i):
    if spread:
        return "127.0.1.%d" % (1 + i % spread)
    return "127.0.0.2" if kind == "idle" else "127.0.0.3"


def connect(kind, i):
    s = socket.socket()
    s.bind((src(kind, i), 0))
    s.settimeout(5)
    try:
        s.connect((host, port))
    except OSError:
        s.close()
        return None
    return s


as_uid = os.environ.get("SLOW_AS_UID")
if as_uid:
    os.seteuid(int(as_uid))	# a socket is its maker's (the fs uid)
idle = [c for c in (connect("idle", i) for i in range(n_idle)) if c]
trickle = [c for c in (connect("trickle", i + n_idle) for i in range(n_trickle)) if c]
if as_uid:
    os.seteuid(0)
stop = False
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096


def trickler():
    pos = 0
    while not stop:
        for c in list(trickle):
            try:
                c.send(REQ[pos % len(REQ):pos % len(REQ) + 1])
            except OSError:
                trickle.remove(c)
        pos += 1
        time.sleep(2)


t = threading.Thread(target=trickler, daemon=True)
t.start()
time.sleep(3)		# the attack is established: trickling, idling
for n in range(n_scrapes):
    t0 = time.monotonic()
    try:
        s = socket.create_connection((host, port), timeout=10,
                                     source_address=("127.0.0.1", 0))
        s.sendall(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
        line = data.split(b"\r\n", 1)[0].decode(errors="replace")
        status = line.split(" ")[1] if line.startswith("HTTP/") else "fail:garbled"
        if status == "200" and b"gpuctl_exporter_build_info" not in data:
            status = "fail:no-metrics"
    except OSError as e:
        status = "fail:" + type(e).__name__
    print("scrape %d: %s %.2f" % (n, status, time.monotonic() - t0), flush=True)
    time.sleep(1)
stop = True


def alive(c):
    c.setblocking(False)
    try:
        return c.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


print("opened %d idle, %d trickling" % (sum(alive(c) for c in idle),
                                         sum(alive(c) for c in trickle)))
