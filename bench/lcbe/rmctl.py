# SPDX-License-Identifier: GPL-2.0
"""rmctl.py - the RM controls of gpuctl sched lc-be, in Python, for a GPU
machine where gpuctl itself cannot be carried (no BPF watcher: TSGs are found
by asking RM, through each process's own borrowed RM file, what its handles
are).  Bench tool only; gpuctl is the product.

  rmctl.py CONFIG SECONDS
CONFIG (comma separated): lcts=US bets=US lcil=LEVEL beil=LEVEL rot=MS
(one BE process's channels enabled at a time, MS each, FIFO_DISABLE_CHANNELS)
LC processes: comm lcbert/lcmlp; BE: comm becnn.  Applies, holds SECONDS (or
until SIGTERM), restores (timeslices, levels, channels on); prints what it did.
"""
import ctypes, os, signal, struct, sys, time

libc = ctypes.CDLL(None, use_errno=True)
CTL = 0xC020462A  # _IOWR('F', 0x2A, NVOS54)
GET_HANDLE_INFO, SET_TS, GET_TS, SET_IL = 0x0d02, 0xa06c0103, 0xa06c0104, 0xa06c0107
DISABLE = 0x2080110b


def ctl(fd, hc, ho, cmd, buf):
    p = ctypes.create_string_buffer(bytes(buf), len(buf))
    a = ctypes.create_string_buffer(struct.pack("<IIIIQII", hc, ho, cmd, 0, ctypes.addressof(p), len(buf), 0), 32)
    if libc.ioctl(fd, ctypes.c_ulong(CTL), a) != 0:
        return -1, None
    return struct.unpack_from("<I", a.raw, 28)[0], p.raw


def info(fd, hc, h, idx):
    st, r = ctl(fd, hc, hc, GET_HANDLE_INFO, struct.pack("<IIQ", h, idx, 0))
    return None if st != 0 else struct.unpack_from("<Q", r, 8)[0]


def comm(pid):
    try:
        return open("/proc/%d/comm" % pid).read().strip()
    except OSError:
        return ""


def borrow(pid, fd):
    pfd = libc.syscall(434, pid, 0)
    if pfd < 0:
        return -1
    d = libc.syscall(438, pfd, fd, 0)
    os.close(pfd)
    return d


class Proc:
    def __init__(self, pid):
        self.pid, self.tsgs, self.cls = pid, [], None  # tsgs: (fd, hClient, hTsg, subdev, [ch])
        for name in os.listdir("/proc/%d/fd" % pid):
            try:
                tgt = os.readlink("/proc/%d/fd/%s" % (pid, name))
            except OSError:
                continue
            if tgt != "/dev/nvidiactl":
                continue
            fd = borrow(pid, int(name))
            if fd < 0:
                continue
            for hc in range(0xc1d00000, 0xc1d00400):
                if info(fd, hc, hc, 2) is None:
                    continue
                objs = {}
                for base in (0x5c000000, 0xcaf00000, 0xbeef0000):
                    for h in range(base, base + 0x200):
                        c = info(fd, hc, h, 2)
                        if c is not None:
                            objs[h] = c
                sub = min([h for h, c in objs.items() if c == 0x2080], default=0)
                for h, c in sorted(objs.items()):
                    if c == 0xa06c:
                        ch = [x for x, cc in objs.items() if (cc & 0xff) == 0x6f and info(fd, hc, x, 1) == h]
                        self.tsgs.append((fd, hc, h, sub, ch))


def main():
    cfg = dict(kv.split("=") for kv in sys.argv[1].split(",") if kv)
    secs = float(sys.argv[2])
    lc, be = [], []
    for d in os.listdir("/proc"):
        if d.isdigit():
            c = comm(int(d))
            if c in ("lcbert", "lcmlp"):
                lc.append(Proc(int(d)))
            elif c == "becnn":
                be.append(Proc(int(d)))
    lv = {"low": 0, "medium": 1, "high": 2}
    orig = []
    for group, ts, il in ((lc, cfg.get("lcts"), cfg.get("lcil")), (be, cfg.get("bets"), cfg.get("beil"))):
        for p in group:
            for (fd, hc, h, sub, ch) in p.tsgs:
                st, r = ctl(fd, hc, h, GET_TS, struct.pack("<Q", 0))
                orig.append((fd, hc, h, struct.unpack_from("<Q", r)[0] if st == 0 else 1024))
                if ts:
                    ctl(fd, hc, h, SET_TS, struct.pack("<Q", int(ts)))
                if il:
                    ctl(fd, hc, h, SET_IL, struct.pack("<I", lv[il]))
    print("rmctl %s: LC %d procs %d TSGs, BE %d procs %d TSGs (%d with channels)" % (
        sys.argv[1], len(lc), sum(len(p.tsgs) for p in lc), len(be), sum(len(p.tsgs) for p in be),
        sum(1 for p in be for t in p.tsgs if t[4] and t[3])), flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))

    def chans(p, off):
        by = {}
        for (fd, hc, h, sub, ch) in p.tsgs:
            if sub and ch:
                by.setdefault((fd, hc, sub), []).extend(ch)
        for (fd, hc, sub), ch in by.items():
            ch = ch[:64]
            # hClientList, then hChannelList
            buf = struct.pack("<B3xIBB6xQ", off, len(ch), 0, 0, 0) + struct.pack("<64I", *([hc] * len(ch) + [0] * (64 - len(ch)))) \
                + struct.pack("<64I", *(ch + [0] * (64 - len(ch))))
            ctl(fd, hc, sub, DISABLE, buf)
    rot = float(cfg.get("rot", 0)) / 1e3
    t0, turns, i = time.monotonic(), 0, 0
    try:
        if rot and len(be) > 1:
            for p in be[1:]:
                chans(p, 1)
            while not stop and time.monotonic() - t0 < secs:
                time.sleep(rot)
                nxt = (i + 1) % len(be)
                chans(be[i], 1)
                chans(be[nxt], 0)
                i, turns = nxt, turns + 1
        else:
            while not stop and time.monotonic() - t0 < secs:
                time.sleep(0.05)
    finally:
        for p in be:
            chans(p, 0)
        for fd, hc, h, ts in orig:
            ctl(fd, hc, h, SET_TS, struct.pack("<Q", ts))
            ctl(fd, hc, h, SET_IL, struct.pack("<I", 1))
        print("rmctl done: %d turns, restored %d TSGs" % (turns, len(orig)), flush=True)


if __name__ == "__main__":
    main()
