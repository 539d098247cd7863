#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps.sh - bench/mps/static_gpu.sh and static_sum.py on the build
# host, no GPU: a SET that is none of mps/uid/all is refused before anything
# is set up; a whole SET=mps call against stand-ins (gpuctl, the LC/BE
# workload, nvidia-smi, nvidia-cuda-mps-control) runs every phase of each
# round, its BE clients through `sched exec`, and leaves the summary with the
# pooled P99 and the goals' verdicts; SET=g1; static_sum.py's figures on
# phases whose request times are known (the pooled P99, the paired ratios,
# each verdict).  SET=rot and lvl: test_bench_mps_tsg.sh; SET=goals and
# GPUCTL_REF: test_bench_mps_twins.sh; SETTLE and QUIET: test_bench_mps_settle.sh.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench_mps_fakes.sh

mps_setup

# --- refusals --------------------------------------------------------------------
expect_exit 2 env SET=bogus OUT="$T_DIR/o0" W="$T_DIR/w0" bash $M/static_gpu.sh
expect_stderr_line "static_gpu.sh: an unknown SET"
expect_err "the SETs named" "mps, uid, rot, lvl, all, g1, goals or pick"
[ -e "$T_DIR/o0" ] && fail "unknown SET: nothing set up" "$T_DIR/o0 made" || ok "unknown SET: nothing set up"

# --- a whole SET=mps call against stand-ins ----------------------------------------
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET=mps NBE=1 SKIP=0 MEAS=1 \
	MAXROUNDS=2 OUT="$T_DIR/o" W="$T_DIR/w" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/o/phases.txt
n=$(grep -c '^P [12] ' "$P")
[ "$n" = 16 ] && ok "SET=mps: 8 phases a round, 2 rounds" || fail "phases" "$n: $(cut -c1-60 "$P")"
grep -q '^P 0 alone_mps_warm ' "$P" && grep -q '^P 0 alone_mps_cal ' "$P" &&
	ok "the alone is run once, dropped, then calibrated" || fail "calibration" "$(head -3 "$P")"
grep -q '^T m12=6237 m20=10396 ' "$P" && ok "targets: 1.2x and 2x the calibrated P99" || fail "targets" "$(grep '^T ' "$P")"
grep -q "^sched exec --class be -- .*coloc be .*/gt1.log" "$FAKE_LOG" &&
	grep -q "^sched exec --class be -- .*coloc be .*/go1.log" "$FAKE_LOG" &&
	ok "gpuctl's BE clients started by sched exec" || fail "exec" "$(grep exec "$FAKE_LOG")"
grep -q "^sched run lc-be lc comm:lcbertm mechanism mps mps-dir .*/hand/pipe hint .*lc-p99 6237us$" "$FAKE_LOG" &&
	ok "lc-p99 through MPS at the m12 target, adopting the hand daemon" || fail "run m12" "$(grep 'sched run' "$FAKE_LOG")"
S=$T_DIR/o/summary.txt
grep -q "pooled P99" "$S" && grep -Eq '^gp99_m12 +2 +5100 .* 5198 ' "$S" &&
	ok "summary: the pooled P99 of every request" || fail "summary pooled" "$(head -12 "$S")"
grep -q "^m12: target 6237 us; gp99_m12 P99 5198 (kept)" "$S" && ok "summary: the target judged by the pooled P99" \
	|| fail "summary target" "$(grep -A2 '^m12' "$S")"
grep -q "^   LC P99 1.000x .*pooled 1.000x, BE [0-9.]*% of by hand" "$S" && ok "summary: the one command against MPS by hand" \
	|| fail "summary one command" "$(tail -3 "$S")"
tar tzf "$T_DIR/o/w.tgz" | grep -q '^./lat.txt$' && tar tzf "$T_DIR/o/w.tgz" | grep -q '^./slow.txt$' &&
	ok "w.tgz keeps the request times, and when the slow ones began" || fail "w.tgz" "$(tar tzf "$T_DIR/o/w.tgz" | head)"
grep -Eq '^   alone_mps +2 slow of 400, +[0-2] at a sample, chance [0-9.]+' "$S" &&
	ok "summary: the slow requests against the sampler's times" || fail "summary slow" "$(tail -8 "$S")"
grep -q "^the LC's garbage collections: none recorded (no gc.txt)$" "$S" &&
	ok "summary: the LC's garbage collections (the stand-in records none)" || fail "summary gc" "$(tail -4 "$S")"
grep -Eq '^   gone +SM +1980 \[1980-1980\], power 312, util 87 \([0-9]+ samples\)$' "$S" &&
	ok "summary: the GPU's SM clock over each configuration's phases" || fail "summary clocks" "$(tail -12 "$S")"
left=$(grep -ls "$F/colo[c]" /proc/[0-9]*/cmdline)	# ([c]: not this grep's own)
[ -n "$left" ] && fail "stand-ins left" "$left" || ok "every process the bench started is gone"

# --- SET=g1: the one-command goal alone, rotated each round -------------------------
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET=g1 NBE=1 SKIP=0 MEAS=1 \
	MAXROUNDS=3 OUT="$T_DIR/g" W="$T_DIR/gw" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/g/phases.txt
[ "$(grep -c '^P [123] ' "$P")" = 9 ] && ok "SET=g1: 3 phases a round, 3 rounds" || fail "g1 phases" "$(cut -c1-40 "$P")"
[ "$(sed -n 's/^P \([123]\) \([a-z0-9_]*\) .*/\1\2/p' "$P" | grep -c '^[123]alone_mps$')" = 3 ] &&
	[ "$(grep '^P [123] ' "$P" | awk '{print $3}' | paste -sd' ')" = \
		"alone_mps mps_p1t100 gone mps_p1t100 gone alone_mps gone alone_mps mps_p1t100" ] &&
	ok "SET=g1: the order turns each round" || fail "g1 order" "$(grep '^P [123] ' "$P" | awk '{print $3}' | paste -sd' ')"
grep -q "lc-p99" "$FAKE_LOG" && fail "g1: no lc-p99 run" "$(grep lc-p99 "$FAKE_LOG")" || ok "SET=g1: no lc-p99 phase"
grep -q "^   LC P99 1.000x .* over 3 rounds, pooled 1.000x" "$T_DIR/g/summary.txt" &&
	ok "SET=g1: the one command against MPS by hand, 3 rounds" || fail "g1 summary" "$(tail -5 "$T_DIR/g/summary.txt")"
# --- static_sum.py on known phases --------------------------------------------------
# two rounds; windows of 1 s: be_alone at 10R, none at 10R+2, p99_p110 at 10R+4 (the BE
# makes 100, 80 and 20 steps in them); request times 901..1000 alone, 1001..1100 with no
# policy, 1201..1300 under lc-p99 (pooled P99 over 200: the 199th, 1000 / 1100 / 1300)
Q=$T_DIR/q; mkdir -p "$Q"
python3 - "$Q" <<'EOF'
import sys
q = sys.argv[1]
with open(q + "/phases.txt", "w") as p, open(q + "/lat.txt", "w") as lat, open(q + "/u1.log", "w") as be:
    p.write("T p110=1100 p200=2000 alone_plain=1000\n")
    for r in (1, 2):
        b = 10 * r
        p.write("P %d alone_plain be=- lc bert alone_plain n=100 p50_us=950 p99_us=999 max_us=1 t0=%d.5 t1=%d.9\n" % (r, b + 6, b + 6))
        p.write("P %d be_alone be=u lc - t0=%d.000 t1=%d.000\n" % (r, b, b + 1))
        p.write("P %d none be=u lc bert none n=100 p50_us=1050 p99_us=1099 max_us=1 t0=%d.000 t1=%d.000\n" % (r, b + 2, b + 3))
        p.write("P %d p99_p110 be=u lc bert p99_p110 n=100 p50_us=1250 p99_us=1299 max_us=1 t0=%d.000 t1=%d.000\n" % (r, b + 4, b + 5))
        lat.write("alone_plain t0=%d.5 %s\n" % (b + 6, " ".join(str(x) for x in range(901, 1001))))
        lat.write("none t0=%d.000 %s\n" % (b + 2, " ".join(str(x) for x in range(1001, 1101))))
        lat.write("p99_p110 t0=%d.000 %s\n" % (b + 4, " ".join(str(x) for x in range(1201, 1301))))
        for start, n in ((b, 100), (b + 2, 80), (b + 4, 20)):
            for i in range(n):
                be.write("%.4f\n" % (start + (i + 0.5) / n))
EOF
expect_exit 0 python3 $M/static_sum.py "$Q/phases.txt" "$Q"
expect_out "static_sum: the pooled P99 over both rounds (the 199th of 200), BE's steps/s" \
	'^none +2 +1050 +1099 \[1099-1099\] +1100 +80\.0 \[80\.0-80\.0\]$'
expect_out "static_sum: the target judged by the pooled P99" '^p110: target 1100 us; p99_p110 P99 1300 \(NOT KEPT\), BE 20\.0 steps/s$'
expect_out "static_sum: the static settings that meet it" '^   static none +meets it: P99 1100, BE 80\.0$'
expect_out "static_sum: another uid, met: pooled 1.100x, BE 80 % of alone" \
	'^   none +LC P99 1\.100x \[1\.100-1\.100\] over 2 rounds, pooled 1\.100x, BE 80\.0% of alone: goal MET$'
expect_out "static_sum: another uid, not met above 1.10x" '^   p99_p110 .* pooled 1\.300x, BE 20\.0% of alone: goal not met$'
summary
