#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_reftwin.sh - bench/mps/static_gpu.sh's REFTWIN on the build
# host, no GPU, against the stand-ins of tests/bench_mps_fakes.sh: a REFTWIN
# that is no regular expression is refused with one Error line before
# anything is set up; REFTWIN='^ts50_f30$' gives that static TSG setting its
# twin LABEL_ref run by GPUCTL_REF (and only it: the lc-p99 phase gets none),
# the summary pairs the two by round, and the twin does not count as one of
# goal 2's static set.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench_mps_fakes.sh

mps_setup
chmod 755 "$T_DIR" "$F"	# uid 65534 runs the BE stand-in
# --- refused: not a regular expression -------------------------------------------------
expect_exit 2 env SET=pick PICK=ts50_f30 GPUCTL_REF="$F/gpuctl-ref" REFTWIN='ts50[' OUT="$T_DIR/k0" W="$T_DIR/k0w" \
	bash $M/static_gpu.sh
expect_stderr_line "REFTWIN not a regular expression"
expect_err "REFTWIN refused: names it" "REFTWIN is not an extended regular expression: 'ts50\['"
[ -e "$T_DIR/k0" ] || [ -e "$T_DIR/k0w" ] && fail "REFTWIN refused: nothing set up" "$(ls -d "$T_DIR"/k0*)" ||
	ok "REFTWIN refused: nothing set up"
# --- a static TSG setting's twin ------------------------------------------------------
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" GPUCTL_REF="$F/gpuctl-ref" REFTWIN='^ts50_f30$' COLOC="$F/coloc" \
	WAKE=0.1 SET=pick PICK="ts50_f30 gp99_m12" NBE=1 SKIP=0 MEAS=1 MAXROUNDS=2 OUT="$T_DIR/tw" W="$T_DIR/tww" \
	timeout 200 bash $M/static_gpu.sh
P=$T_DIR/tw/phases.txt
[ "$(grep '^P 1 ' "$P" | awk '{print $3}' | paste -sd' ')" = "alone_mps ts50_f30 ts50_f30_ref mps_p1t100 gp99_m12" ] &&
	[ "$(grep -c '^P 2 ' "$P")" = 5 ] && ok "REFTWIN: ts50_f30's twin right after it, each round; gp99_m12 without one" ||
	fail "reftwin phases" "$(grep '^P [12] ' "$P" | awk '{print $2, $3}' | paste -sd' ')"
[ "$(grep -c '^REF sched run lc-be lc comm:lcbert be-timeslice 50 be-floor 30$' "$FAKE_LOG")" = 2 ] &&
	! grep -q '^REF sched run .*lc-p99' "$FAKE_LOG" &&
	[ "$(grep -c '^sched run lc-be lc comm:lcbert be-timeslice 50 be-floor 30$' "$FAKE_LOG")" = 4 ] &&
	ok "REFTWIN: REF's gpuctl runs the twin's lc-be only (2 of 4), no lc-p99" || fail "reftwin runs" "$(grep 'sched run' "$FAKE_LOG")"
S=$T_DIR/tw/summary.txt
grep -Eq '^   ts50_f30 +LC P99 1\.000x \[1\.000-1\.000\] over 2 rounds, pooled 1\.000x, BE ' "$S" &&
	ok "REFTWIN: the tree's ts50_f30 against REF's, paired by round" || fail "reftwin pairs" "$(tail -20 "$S")"
grep -q 'static ts50_f30_ref' "$S" && fail "the twin is not a static setting" "$(grep 'static ts50_f30_ref' "$S")" ||
	ok "REFTWIN: the twin is not judged as one of goal 2's static set"
grep -q 'static ts50_f30 ' "$S" && ok "REFTWIN: the tree's ts50_f30 still is" || fail "static ts50_f30" "$(grep -A6 '^m12' "$S")"
summary
