#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_settle.sh - bench/mps/static_gpu.sh against the stand-ins
# (tests/bench_mps_fakes.sh), no GPU: SETTLE's settled twins of each lc-p99
# phase (and of GPUCTL_REF's), judged against their start and REF's, and a
# SETTLE or WAKE that is no number of seconds refused before anything is set
# up; QUIET's twins of the alones, with the GPU's sampler stopped, paired;
# the clock sampler gone with the bench.  (Split from
# test_bench_mps_twins.sh, to keep each file well inside its time limit.)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench_mps_fakes.sh

mps_setup
# --- SETTLE: each lc-p99 phase's settled twin (LABEL_s, LABEL_ref_s) -----------------
expect_exit 2 env SET=goals SETTLE=5s OUT="$T_DIR/s0" W="$T_DIR/s0w" bash $M/static_gpu.sh
expect_stderr_line "SETTLE not whole seconds"
expect_exit 2 env SET=goals WAKE=1,5 OUT="$T_DIR/k0" W="$T_DIR/k0w" bash $M/static_gpu.sh
expect_stderr_line "WAKE not seconds"
[ -e "$T_DIR/s0" ] && fail "SETTLE refused: nothing set up" "$T_DIR/s0 made" || ok "SETTLE refused: nothing set up"
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" GPUCTL_REF="$F/gpuctl-ref" COLOC="$F/coloc" WAKE=0.1 SET=goals NBE=1 \
	SKIP=0 MEAS=1 SETTLE=2 MAXROUNDS=1 OUT="$T_DIR/st" W="$T_DIR/stw" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/st/phases.txt
[ "$(grep '^P 1 ' "$P" | awk '{print $3}' | paste -sd' ')" = \
	"alone_mps mps_p0t50 mps_p1t100 gp99_m12 gp99_m12_s gp99_m12_ref gp99_m12_ref_s gone" ] &&
	ok "SETTLE: each lc-p99 phase and its REF twin, each followed by its settled twin" ||
	fail "settle phases" "$(grep '^P 1 ' "$P" | awk '{print $3}' | paste -sd' ')"
[ "$(grep -c '^REF sched run lc-be .*lc-p99 [0-9]*us$' "$FAKE_LOG")" = 2 ] &&
	ok "SETTLE: REF's gpuctl runs gp99_m12_ref and gp99_m12_ref_s" || fail "settle ref" "$(grep 'sched run' "$FAKE_LOG")"
grep -q '^coloc run gp99_m12_s 3 .*/lc.hint skip=2$' "$FAKE_LOG" && grep -q '^coloc run gp99_m12_ref_s 3 .*/lc.hint skip=2$' "$FAKE_LOG" &&
	grep -q '^coloc run gp99_m12 1 [^ ]*/lc.hint$' "$FAKE_LOG" &&
	ok "SETTLE: a settled phase runs 2 s longer and its LC counts after them" || fail "settle lc" "$(grep '^coloc' "$FAKE_LOG")"
S=$T_DIR/st/summary.txt
grep -Eq '^   gp99_m12_s +LC P99 1\.000x \[1\.000-1\.000\] over 1 rounds, BE [0-9.]+x' "$S" &&
	grep -Eq '^   gp99_m12_ref_s +LC P99 1\.000x' "$S" &&
	grep -Eq '^   gp99_m12_s +LC P99 1\.000x \[1\.000-1\.000\] over 1 rounds, pooled 1\.000x' "$S" &&
	grep -q "^m12: target [0-9]* us; gp99_m12_s P99 5198 (kept)" "$S" &&
	ok "SETTLE: the settled twins judged, against their start and against REF's" || fail "settle summary" "$(tail -25 "$S")"
# --- QUIET: each alone's twin with the GPU's sampler stopped, paired ------------------
expect_exit 2 env SET=g1 QUIET=yes OUT="$T_DIR/qq0" W="$T_DIR/qq0w" bash $M/static_gpu.sh
expect_stderr_line "QUIET not 0 or 1"
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET=g1 QUIET=1 NBE=1 SKIP=0 MEAS=1 \
	MAXROUNDS=1 OUT="$T_DIR/qq" W="$T_DIR/qqw" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/qq/phases.txt S=$T_DIR/qq/summary.txt
[ "$(grep -c '^P 1 alone_mps_q ' "$P")" = 1 ] && [ "$(grep -c '^P 1 ' "$P")" = 4 ] &&
	ok "QUIET: the alone's twin in each round" || fail "quiet phases" "$(grep '^P ' "$P" | awk '{print $2, $3}' | paste -sd' ')"
grep -Eq '^   alone_mps_q +LC P99 1\.000x \[1\.000-1\.000\] over 1 rounds, pooled 1\.000x$' "$S" &&
	ok "QUIET: the twin paired with its alone" || fail "quiet summary" "$(tail -12 "$S")"
grep -Eq '^   alone_mps +SM ' "$S" && ! grep -Eq '^   alone_mps_q +SM ' "$S" &&
	ok "QUIET: no sample of the GPU during the twin, samples during the alone" || fail "quiet clocks" "$(grep ' SM ' "$S")"
left=$(grep -ls "$F/nvidia-sm[i]" /proc/[0-9]*/cmdline)
[ -n "$left" ] && sleep 1 && left=$(grep -ls "$F/nvidia-sm[i]" /proc/[0-9]*/cmdline)
[ -n "$left" ] && fail "clock sampler left" "$left" || ok "the clock sampler ends with the bench"
summary
