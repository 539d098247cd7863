#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_twins.sh - bench/mps/static_gpu.sh against the stand-ins
# (tests/bench_mps_fakes.sh), no GPU: SET=goals (both MPS goals, five phases
# a round), GPUCTL_REF's twin of each lc-p99 phase paired with it; and the
# clock sampler gone with the bench.  SETTLE and QUIET: test_bench_mps_settle.sh.
# (Split from test_bench_mps.sh: together they took 4.6 min of its 5.)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench_mps_fakes.sh

mps_setup
# --- SET=goals: both MPS goals, five phases a round -----------------------------------
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET=goals NBE=1 SKIP=0 MEAS=1 \
	MAXROUNDS=2 OUT="$T_DIR/q5" W="$T_DIR/q5w" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/q5/phases.txt
[ "$(grep '^P 1 ' "$P" | awk '{print $3}' | paste -sd' ')" = "alone_mps mps_p0t50 mps_p1t100 gp99_m12 gone" ] &&
	[ "$(grep -c '^P 2 ' "$P")" = 5 ] && ok "SET=goals: alone, p0t50, p1t100, gp99_m12, gone a round" ||
	fail "goals phases" "$(grep '^P [12] ' "$P" | awk '{print $2, $3}' | paste -sd' ')"
grep -q "gp99_m20" "$P" && fail "goals: no gp99_m20" "$(grep gp99_m20 "$P")" || ok "SET=goals: no gp99_m20"
grep -q "^m12: target [0-9]* us; gp99_m12 P99" "$T_DIR/q5/summary.txt" && grep -q "^   LC P99 1.000x .* over 2 rounds" "$T_DIR/q5/summary.txt" &&
	ok "SET=goals: both goals judged" || fail "goals summary" "$(tail -12 "$T_DIR/q5/summary.txt")"
# --- GPUCTL_REF: each lc-p99 phase twice, the twin by REF's gpuctl, paired ------------
expect_exit 2 env SET=goals GPUCTL_REF="$T_DIR/no-such-gpuctl" OUT="$T_DIR/r0" W="$T_DIR/r0w" bash $M/static_gpu.sh
expect_stderr_line "GPUCTL_REF not an executable"
[ -e "$T_DIR/r0" ] && fail "GPUCTL_REF refused: nothing set up" "$T_DIR/r0 made" || ok "GPUCTL_REF refused: nothing set up"
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" GPUCTL_REF="$F/gpuctl-ref" COLOC="$F/coloc" WAKE=0.1 SET=goals NBE=1 \
	SKIP=0 MEAS=1 MAXROUNDS=2 OUT="$T_DIR/rr" W="$T_DIR/rrw" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/rr/phases.txt
[ "$(grep '^P 1 ' "$P" | awk '{print $3}' | paste -sd' ')" = "alone_mps mps_p0t50 mps_p1t100 gp99_m12 gp99_m12_ref gone" ] &&
	[ "$(grep -c '^P 2 ' "$P")" = 6 ] && ok "GPUCTL_REF: gp99_m12's twin right after it, each round" ||
	fail "ref phases" "$(grep '^P [12] ' "$P" | awk '{print $2, $3}' | paste -sd' ')"
[ "$(grep -c '^REF sched run lc-be .*lc-p99 [0-9]*us$' "$FAKE_LOG")" = 2 ] &&
	[ "$(grep -c '^sched run lc-be .*lc-p99 [0-9]*us$' "$FAKE_LOG")" = 4 ] &&
	! grep -q '^REF sched run lc-be lc comm:lcbertm mechanism mps mps-dir [^ ]*$' "$FAKE_LOG" &&
	ok "GPUCTL_REF: REF's gpuctl runs the twins' lc-p99 only (2 of 4)" || fail "ref runs" "$(grep 'sched run' "$FAKE_LOG")"
grep -q "^gpuctl-ref stand-in gpuctl version" "$T_DIR/rr/log.txt" && ok "GPUCTL_REF: its version in the log" ||
	fail "ref version" "$(grep gpuctl "$T_DIR/rr/log.txt" | head -3)"
S=$T_DIR/rr/summary.txt
grep -q "^m12: target [0-9]* us; gp99_m12_ref P99 5198 (kept)" "$S" && ok "GPUCTL_REF: the twin judged against the target too" ||
	fail "ref target" "$(grep -A3 '^m12' "$S")"
grep -Eq '^   gp99_m12 +LC P99 1\.000x \[1\.000-1\.000\] over 2 rounds, pooled 1\.000x, BE [0-9.]+x' "$S" &&
	ok "GPUCTL_REF: the tree against REF's, paired by round" || fail "ref pairs" "$(grep -A2 'GPUCTL_REF' "$S")"
left=$(grep -ls "$F/nvidia-sm[i]" /proc/[0-9]*/cmdline)
[ -n "$left" ] && sleep 1 && left=$(grep -ls "$F/nvidia-sm[i]" /proc/[0-9]*/cmdline)
[ -n "$left" ] && fail "clock sampler left" "$left" || ok "the clock sampler ends with the bench"
summary
