#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_gc.sh - the LC's own garbage collections (bench/lcbe/gcrec.py)
# and bench/mps/gc_slow.py, on the build host, no GPU: gcrec keeps the
# collections of an armed run only, says them as GEN:START:US, and sets the
# collector as COLOC_GC asks (freeze, off; anything else refused);
# gc_slow.py on known records: each generation's count and times, the slow
# requests under a collection, the bursts just after a full one, the two
# periods side by side; no gc.txt said and exit 0; a broken one, or no
# WORKDIR: one Error line, exit 2; static_gpu.sh refuses a bad COLOC_GC
# before it sets anything up.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=bench/mps/gc_slow.py
# --- gcrec.py --------------------------------------------------------------------------
cat >"$T_DIR/gcrec_check.py" <<'PY'
import gc, sys, time
sys.path.insert(0, "bench/lcbe")
import gcrec
r = gcrec.GcRec()
gc.collect(2)                       # before arm: not kept
r.arm(time.monotonic())
gc.collect(2); gc.collect(2)
line = r.line("alone_mps")
f = line.split()
assert f[0] == "alone_mps" and len(f) == 3, line
assert all(x.split(":")[0] == "2" and float(x.split(":")[2]) >= 0 for x in f[1:]), line
gc.collect(2)                       # after line(): disarmed
assert r.line("x") == "x", "disarmed"
r.close()
assert r._cb not in gc.callbacks
try:
    gcrec.apply("bogus")
    sys.exit("bogus accepted")
except ValueError as e:
    assert "COLOC_GC is one of freeze, off" in str(e), e
gcrec.apply("")
assert gc.isenabled()
gcrec.apply("freeze")
assert gc.get_freeze_count() > 0 and gc.isenabled()
gc.unfreeze()
gcrec.apply("off")
assert not gc.isenabled()
print("gcrec ok")
PY
expect_exit 0 python3 "$T_DIR/gcrec_check.py"
expect_out "gcrec: kept only while armed, GEN:START:US, disarmed by line(); COLOC_GC freeze/off/refused" "^gcrec ok$"

# --- gc_slow.py on known records -----------------------------------------------------------
W=$T_DIR/w
mkdir -p "$W"
cat >"$T_DIR/mk.py" <<'PY'
import sys
w = sys.argv[1]
with open(w + "/gc.txt", "w") as g, open(w + "/slow.txt", "w") as s:
    for run in (0, 1):
        b = 1000 + 100 * run
        # alone_mps: a full collection of 30 ms every 1.5 s, a gen-1 of 2 ms between; each full
        # one catches a request, and two more are slow 45 and 65 ms after it began
        full = [b + 1.5 * k for k in range(4)]
        g.write("alone_mps %s\n" % " ".join(
            ["2:%.4f:30000" % t for t in full] + ["1:%.4f:2000" % (t + 0.7) for t in full]))
        s.write("alone_mps %s\n" % " ".join(
            "%.4f:%.0f" % x for t in full for x in ((t + 0.001, 35000), (t + 0.046, 12000), (t + 0.066, 12000))))
        # none: a collection, and slow requests far from it
        g.write("none 1:%.4f:1500\n" % (b + 0.2))
        s.write("none %.4f:20000 %.4f:20000\n" % (b + 3.0, b + 5.0))
PY
python3 "$T_DIR/mk.py" "$W"
expect_exit 0 python3 $G "$W"
expect_out "each generation: count, median, longest" \
	'^   alone_mps +gen 1: 8, median 2\.0 ms, longest 2\.0 ms, gen 2: 8, median 30\.0 ms, longest 30\.0 ms$'
expect_out "alone_mps: the slow under a collection, the bursts just after a full one, the periods" \
	'^ +24 slow, 8 under a collection; 8 bursts, 8 within 50 ms after a full one; full every 1\.50 s, bursts every 1\.50 s$'
expect_out "none: slow requests away from its collections" \
	'^ +4 slow, 0 under a collection; 4 bursts, 0 within 50 ms after a full one; full every -, bursts every 2\.00 s$'
expect_out "none: its one generation" '^   none +gen 1: 2, median 1\.5 ms, longest 1\.5 ms$'
rm "$W/gc.txt"
expect_exit 0 python3 $G "$W"
expect_out "no gc.txt: said" "^the LC's garbage collections: none recorded \(no gc.txt\)$"
printf 'alone_mps 2:x:1\n' >"$W/gc.txt"
expect_exit 2 python3 $G "$W"
expect_stderr_line "a broken gc.txt"
[ -z "$OUT" ] && ok "broken gc.txt: nothing on stdout" || fail "broken gc.txt: nothing on stdout" "$OUT"
expect_exit 2 python3 $G
expect_stderr_line "no WORKDIR"

# --- static_gpu.sh: COLOC_GC checked before anything is set up -------------------------------
expect_exit 2 env COLOC_GC=sometimes SET=g1 OUT="$T_DIR/o0" W="$T_DIR/w0" bash bench/mps/static_gpu.sh
expect_stderr_line "a bad COLOC_GC"
expect_err "says what it takes" "COLOC_GC is freeze or off \(or unset\), not 'sometimes'"
[ -e "$T_DIR/o0" ] && fail "bad COLOC_GC: nothing set up" "$T_DIR/o0 made" || ok "bad COLOC_GC: nothing set up"
summary
