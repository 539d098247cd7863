#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_pool.sh - bench/mps/static_pool.py (goal 2 across calls, by
# BE / each call's anchor mps_p1t100) on synthetic calls whose figures are
# known: each call's table (the fewest LC requests a phase, pooled P99, kept
# against its own targets, BE and BE/anchor), read from OUT/w/ and from
# w.tgz; the verdict at m12 met, then
# not met once a TSG static setting that meets the target in its call gets a
# BE/anchor above the target's; the anchor itself counts among the static
# settings (m20); the lines within each call and, for a shortfall against
# another call, beside the anchor's spread between the calls; no OUT, an OUT without phases.txt, a call without the anchor:
# one Error line, exit 2, nothing on stdout.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

POOL=bench/mps/static_pool.py
# mkcall DIR TARGETS TS_BE FORM LABEL:GROUP:P99:BE ...: two rounds of 1-s phases; each phase's 100
# request times run P99-99..P99 (pooled over both rounds, the 199th of 200: P99); its BE group makes
# BE steps in its window; FORM w: the work directory as DIR/w, tgz: as DIR/w.tgz
mkcall() {
	python3 - "$@" <<'PY'
import os, sys, tarfile
d, t, form, specs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
w = os.path.join(d, "w")
os.makedirs(w)
logs = {}
with open(os.path.join(d, "phases.txt"), "w") as p, open(os.path.join(w, "lat.txt"), "w") as lat:
    p.write("P 0 alone_mps_cal be=- lc bert alone_mps_cal n=100 p50_us=1 p99_us=1 max_us=1 t0=1.000 t1=4.000\n")
    p.write("T %s p110=0 p200=0\n" % t)
    for r in (1, 2):
        for k, s in enumerate(specs):
            label, group, p99, be = s.split(":")
            t0 = 100 * r + 2 * k
            p.write("P %d %s be=%s lc bert %s n=100 p50_us=%d p99_us=%s max_us=1 t0=%d.000 t1=%d.000\n" % (
                r, label, group, label, int(p99) - 50, p99, t0, t0 + 1))
            lat.write("%s t0=%d.000 %s\n" % (label, t0, " ".join(str(x) for x in range(int(p99) - 99, int(p99) + 1))))
            if group != "-":
                logs.setdefault(group, []).extend(t0 + (i + 0.5) / float(be) for i in range(int(be)))
for g, ts in logs.items():
    with open(os.path.join(w, g + "1.log"), "w") as f:
        f.write("".join("%.4f\n" % x for x in ts))
if form == "tgz":
    with tarfile.open(os.path.join(d, "w.tgz"), "w:gz") as z:
        z.add(w, arcname=".")
    for f in os.listdir(w):
        os.unlink(os.path.join(w, f))
    os.rmdir(w)
PY
}
C1=$T_DIR/c1 C2=$T_DIR/c2 C2B=$T_DIR/c2b
mkcall "$C1" "m12=1200 m20=2000 alone_mps=1000" w alone_mps:-:1000:0 mps_p1t100:p1t100:1400:100 \
	mps_p0t50:p0t50:1150:60 mps_p0t100:p0t100:1500:90 gp99_m12:gt:1100:80 gp99_m20:gt:1900:95
mkcall "$C2" "m12=1300 m20=2100 alone_mps=1080" tgz alone_mps:-:1080:0 mps_p1t100:p1t100:1400:50 \
	ts50_f10:u:1250:35 gp99_m12:gt:1300:45
mkcall "$C2B" "m12=1300 m20=2100 alone_mps=1080" tgz alone_mps:-:1080:0 mps_p1t100:p1t100:1400:50 \
	ts50_f10:u:1250:45 gp99_m12:gt:1300:45
[ -f "$C2/w.tgz" ] && [ ! -e "$C2/w" ] && [ -d "$C1/w" ] && ok "synthetic calls: one unpacked, one in w.tgz" ||
	fail "synthetic calls" "$(ls "$C1" "$C2")"

expect_exit 0 python3 $POOL "$C1" "$C2"
expect_out "call 1's targets and anchor" "^call 1: .*/c1; targets m12 1200 us, m20 2000 us; anchor mps_p1t100 BE 100\.0 steps/s$"
expect_out "call 1 from OUT/w: P99 pooled, kept at both, BE and BE/anchor" '^   mps_p0t50 +2 +100 +1150 +kept +kept +60\.0 +0\.600$'
expect_out "call 1: over the m12 target, within m20" '^   mps_p0t100 +2 +100 +1500 +over +kept +90\.0 +0\.900$'
expect_out "call 1: the alone, no BE" '^   alone_mps +2 +100 +1000 +kept +kept +- +-$'
expect_out "call 2 from w.tgz: the TSG setting against its own call's anchor" '^   ts50_f10 +2 +100 +1250 +kept +kept +35\.0 +0\.700$'
expect_out "call 2: the target at its own call's m12 (1300)" '^   gp99_m12 +2 +100 +1300 +kept +kept +45\.0 +0\.900$'
expect_out "m12: the static settings that meet it, each in its call" '^   static call 2 ts50_f10 +meets it: P99 1250 <= 1300, BE/anchor 0\.700$'
expect_out "m12: one over its call's target is left out" '^   static call 1 mps_p0t50 +meets it'
m12=$(printf '%s\n' "$OUT" | sed -n '/^gp99_m12 at m12 /,/^gp99_m12: goal/p' | grep '^   static' | awk '{print $3 $4}' | paste -sd' ')
[ "$m12" = "2ts50_f10 1mps_p0t50" ] && ok "m12: just those within it (not mps_p0t100, not the anchor)" ||
	fail "m12: just those within it" "$m12"
expect_out "m12: each call's figures against the best static" '^   gp99_m12 call 1: P99 1100 <= 1200 \(kept\), BE/anchor 0\.800 \(>= the best static.s 0\.700\)$'
expect_out "m12: MET (0.800 and 0.900 >= 0.700)" \
	'^gp99_m12: goal MET: kept in 2 of 2 calls, BE/anchor 0\.800/0\.900 against the best static ts50_f10 \(call 2\) 0\.700$'
expect_out "m20: the anchor (1.000 of itself) is a static setting too: not met at 0.950" \
	'^gp99_m20: goal not met: kept in 1 of 1 calls, BE/anchor 0\.950 against the best static mps_p1t100 \(call [12]\) 1\.000$'
expect_out "m12 within call 1: BE against the best static meeting it there (mps_p0t50 60)" \
	'^   within call 1: BE 80\.0 steps/s, the best static there mps_p0t50 60\.0: 1\.333x \(>=\)$'
expect_out "m12 within call 2: its own call's best (ts50_f10 35)" \
	'^   within call 2: BE 45\.0 steps/s, the best static there ts50_f10 35\.0: 1\.286x \(>=\)$'
expect_out "m20 within call 1: the anchor meets it and gives more" \
	'^   within call 1: BE 95\.0 steps/s, the best static there mps_p1t100 100\.0: 0\.950x \(<\)$'
printf '%s\n' "$OUT" | grep -q '^   across calls' && fail "met: no across line" "$OUT" || ok "met, or short in its own call only: no across line"

expect_exit 0 python3 $POOL "$C1" "$C2B"
expect_out "within each call it gives at least the best static there" \
	'^   within call 2: BE 45\.0 steps/s, the best static there ts50_f10 45\.0: 1\.000x \(>=\)$'
expect_out "across calls: 11.1 % short (1 - 0.800 / 0.900), the anchors differ 50 %: not resolved" \
	'^   across calls 1 and 2: BE/anchor 11\.1 % under ts50_f10.s; the anchor.s own BE differs by 50\.0 % between them: not resolved \(within the anchor.s spread\)$'

expect_out "a static setting's BE/anchor raised above the target's (0.900 > 0.800): not met" \
	'^gp99_m12: goal not met: kept in 2 of 2 calls, BE/anchor 0\.800/0\.900 against the best static ts50_f10 \(call 2\) 0\.900$'
expect_out "the call where the target falls short says so" '^   gp99_m12 call 1: .*BE/anchor 0\.800 \(< the best static.s 0\.900\)$'
# short of its own call's best static: resolved within that call, no across line
C5=$T_DIR/c5
mkcall "$C5" "m12=1300 m20=2100 alone_mps=1080" w alone_mps:-:1080:0 mps_p1t100:p1t100:1400:50 \
	ts50_f10:u:1250:45 gp99_m12:gt:1300:40
expect_exit 0 python3 $POOL "$C1" "$C5"
expect_out "short of its own call's best: said within that call" \
	'^   within call 2: BE 40\.0 steps/s, the best static there ts50_f10 45\.0: 0\.889x \(<\)$'
printf '%s\n' "$OUT" | grep -q '^   across calls' && fail "short within a call: no across line" "$OUT" ||
	ok "short within its own call: no across line (the anchor cancels there)"

# --- refusals ------------------------------------------------------------------------
C3=$T_DIR/c3 C4=$T_DIR/c4
mkdir -p "$C3"
mkcall "$C4" "m12=1300 m20=2100 alone_mps=1080" w alone_mps:-:1080:0 mps_p0t50:p0t50:1250:35 gp99_m12:gt:1300:45
refused() {	# refused NAME WHY ARGS...: exit 2, one Error line saying WHY, nothing on stdout
	local name=$1 why=$2
	shift 2
	expect_exit 2 python3 $POOL "$@"
	expect_stderr_line "$name"
	expect_err "$name: says why" "$why"
	[ -z "$OUT" ] && ok "$name: nothing on stdout" || fail "$name: nothing on stdout" "$OUT"
}
refused "no OUT" "usage: static_pool.py OUT1"
refused "an OUT that is no directory" "not a directory" "$C1" "$T_DIR/none"
refused "an OUT without phases.txt" "c3: no phases.txt" "$C1" "$C3"
refused "a call without the anchor" "c4: no BE of mps_p1t100" "$C1" "$C4"
summary
