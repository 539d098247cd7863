# SPDX-License-Identifier: GPL-2.0
"""coloc.py - the co-location benchmark's PyTorch workloads (random weights,
nothing downloaded).

  coloc.py be LOGFILE              a CNN trainer (ResNet-like, written here),
                                   one line "T" per step (time.monotonic) to LOGFILE
  coloc.py lc {bert|mlp} PERIOD_MS an LC server: reads "run LABEL SECONDS [HINTFILE]
                                   [skip=S]" lines on stdin, answers "lc LABEL n p50_us p99_us max_us"

bert: a BERT-base-sized encoder (12 layers, d 768, 12 heads, FFN 3072, seq 128,
batch 1, fp16); mlp: 8 fp16 Linear(1024), batch 1.  With HINTFILE the request
is bracketed as libgpuctl-hint.so does (busy += 1 ... busy -= 1, futex wake on
0 <-> 1), on a mapping made for that run.  $COLOC_SKIP_S: the first seconds
of each run are not counted (t0 printed is the end of that skip); a run's
skip=S counts from S instead.  $COLOC_LAT_FILE: each run's request times
(us, counted ones) appended as one line; $COLOC_SLOW_FILE: the counted
requests slower than twice the run's P50, each as START:US (START its
time.monotonic(), as clocks.py stamps the GPU's samples); $COLOC_GC_FILE: the
LC's own garbage collections in each run's counted part, as GEN:START:US
(gcrec.py); $COLOC_GC=freeze|off: the collector after the warm-up (gcrec.py).
"""
import ctypes, mmap, os, struct, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcrec  # noqa: E402

if os.environ.get("PROC_COMM"):
    with open("/proc/self/comm", "w") as f:
        f.write(os.environ["PROC_COMM"])
import torch
import torch.nn as nn

dev = torch.device("cuda")
torch.manual_seed(0)


def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                                  nn.MaxPool2d(3, 2, 1))
        self.body = nn.Sequential(block(64, 64, 1), block(64, 64, 1), block(64, 128, 2), block(128, 128, 1),
                                  block(128, 256, 2), block(256, 256, 1), block(256, 512, 2), block(512, 512, 1))
        self.head = nn.Linear(512, 1000)

    def forward(self, x):
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(self.body(self.stem(x)), 1), 1))


def be(logfile):
    m = CNN().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device=dev)
    with open(logfile, "w", buffering=1) as log:
        print("be ready pid=%d" % os.getpid(), flush=True)
        while True:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(m(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss.item()
            log.write("%.6f\n" % time.monotonic())


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(768, 12, 3072, batch_first=True, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
        self.emb = nn.Embedding(30522, 768)

    def forward(self, ids):
        return self.enc(self.emb(ids))


class Hint:
    """The hint file as libgpuctl-hint.so uses it (hint/gpuctl_hint.h): the busy word and
    begins, and each request's time into the latency histogram when gpuctl keeps one."""
    libc = ctypes.CDLL(None, use_errno=True)
    LAT_OFF, LAT_MAGIC, NB = 64, 0x3174616c, 256

    def __init__(self, path):
        fd = os.open(path, os.O_RDWR)
        self.mm = mmap.mmap(fd, 4096)
        os.close(fd)
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(self.mm)) + 8
        magic, nb = struct.unpack_from("<II", self.mm, self.LAT_OFF)
        self.lat = magic == self.LAT_MAGIC and nb == self.NB
        self.t0 = 0.0

    @staticmethod
    def bucket(us):
        if us < 16:
            return us
        msb = us.bit_length() - 1
        return min(16 + (msb - 4) * 8 + ((us >> (msb - 3)) & 7), Hint.NB - 1)

    def add(self, d):
        b = struct.unpack_from("<I", self.mm, 8)[0]
        nb = (b + d) & 0xffffffff
        struct.pack_into("<I", self.mm, 8, nb)
        if d > 0:
            struct.pack_into("<Q", self.mm, 16, struct.unpack_from("<Q", self.mm, 16)[0] + 1)
            self.t0 = time.monotonic()
        elif self.lat:
            us = int((time.monotonic() - self.t0) * 1e6)
            o = self.LAT_OFF + 24 + 8 * self.bucket(us)
            struct.pack_into("<Q", self.mm, o, struct.unpack_from("<Q", self.mm, o)[0] + 1)
            struct.pack_into("<Q", self.mm, self.LAT_OFF + 16,
                             struct.unpack_from("<Q", self.mm, self.LAT_OFF + 16)[0] + us)
            struct.pack_into("<Q", self.mm, self.LAT_OFF + 8,
                             struct.unpack_from("<Q", self.mm, self.LAT_OFF + 8)[0] + 1)
        if b == 0 or nb == 0:
            self.libc.syscall(202, ctypes.c_void_p(self.addr), 1, 1, None, None, 0)


def slow_of(starts, lat):
    """The requests over twice the median, as (start, us), in their order."""
    if not lat:
        return []
    cut = 2 * sorted(lat)[len(lat) // 2]
    return [(s, v) for s, v in zip(starts, lat) if v > cut]


def lc(kind, period_ms):
    period = period_ms / 1e3
    skip = float(os.environ.get("COLOC_SKIP_S", "0"))	# P50/P99 over the phase after this
    with torch.inference_mode():
        if kind == "bert":
            model = Bert().half().to(dev).eval()
            x = torch.randint(0, 30522, (1, 128), device=dev)
        else:
            model = nn.Sequential(*[nn.Linear(1024, 1024) for _ in range(8)]).half().to(dev).eval()
            x = torch.randn(1, 1024, dtype=torch.float16, device=dev)
        for _ in range(30):
            model(x)
        torch.cuda.synchronize()
        gcrec.apply(os.environ.get("COLOC_GC", ""))
        rec = gcrec.GcRec() if os.environ.get("COLOC_GC_FILE") else None
        print("lc ready pid=%d" % os.getpid(), flush=True)
        for line in sys.stdin:
            w = line.split()
            if not w or w[0] != "run":
                continue
            label, secs = w[1], float(w[2])
            opt = [x for x in w[3:] if x.startswith("skip=")]	# this run's own skip
            path = [x for x in w[3:] if not x.startswith("skip=")]
            hint = Hint(path[0]) if path else None
            lat, starts, last = [], [], 0.0
            t0 = time.monotonic()
            tskip = t0 + (float(opt[-1][5:]) if opt else skip)
            nxt = t0
            if rec:
                rec.arm(tskip)
            while time.monotonic() - t0 < secs:
                now = time.monotonic()
                if now < nxt:
                    time.sleep(nxt - now)
                nxt += period
                s = time.monotonic()
                if hint:
                    hint.add(1)
                model(x)
                torch.cuda.synchronize()
                if hint:
                    hint.add(-1)
                last = (time.monotonic() - s) * 1e6
                if s >= tskip:
                    lat.append(last)
                    starts.append(s)
                if nxt < time.monotonic():
                    nxt = time.monotonic()	# late: no burst to catch up
            slow = slow_of(starts, lat)
            lat.sort()
            n = len(lat)
            if not n:	# starved: no request began and ended in the window; the last one's time stands
                lat = [last]
            print("lc %s %s n=%d p50_us=%.0f p99_us=%.0f max_us=%.0f t0=%.3f t1=%.3f" %
                  (kind, label, n, lat[n // 2], lat[int(n * 0.99)], lat[-1], tskip, time.monotonic()), flush=True)
            if os.environ.get("COLOC_LAT_FILE"):	# every request's time, for a P99 over rounds
                with open(os.environ["COLOC_LAT_FILE"], "a") as f:
                    f.write("%s t0=%.3f %s\n" % (label, tskip, " ".join("%.0f" % v for v in lat)))
            if os.environ.get("COLOC_SLOW_FILE"):	# when the tail happened (bench/mps/slow_smi.py)
                with open(os.environ["COLOC_SLOW_FILE"], "a") as f:
                    f.write("%s %s\n" % (label, " ".join("%.4f:%.0f" % x for x in slow)))
            if rec:	# the LC's own collections then (bench/mps/gc_slow.py)
                with open(os.environ["COLOC_GC_FILE"], "a") as f:
                    f.write(rec.line(label) + "\n")
            if hint:
                hint.mm.close()


if __name__ == "__main__":
    if sys.argv[1] == "be":
        be(sys.argv[2])
    else:
        lc(sys.argv[2], float(sys.argv[3]))
