#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_pick.sh - bench/mps/static_gpu.sh SET=pick on the build host,
# no GPU, against the stand-ins of tests/bench_mps_fakes.sh: a label that is
# no phase (or a twin, or a glob), an empty PICK and PICK under another SET
# are refused with one Error line before anything is set up; a pick of goal
# 2's phases (a TSG static setting, an MPS one, lc-p99 through MPS) runs just
# those, LC alone under MPS calibrated (the targets), the LC outside MPS only
# warmed, the anchor mps_p1t100 added, only the BE groups they use started,
# the order turning by one a round; static_pool.py reads the call (w.tgz);
# a pick of goal 3's phases sets up no MPS and holds alone_plain, and
# static_pool.py refuses it (no anchor); a pick of an alone only runs it.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench_mps_fakes.sh

mps_setup
chmod 755 "$T_DIR" "$F"	# uid 65534 runs the BE stand-in
# --- refusals, then two calls ---------------------------------------------------------
for bad in "mps_p0t25 bogus|no phase 'bogus'" "mps_p0t25 *|no phase '\*'" "gone_ref|no phase 'gone_ref'" " |needs PICK"; do
	expect_exit 2 env SET=pick PICK="${bad%%|*}" OUT="$T_DIR/k0" W="$T_DIR/k0w" bash $M/static_gpu.sh
	expect_stderr_line "SET=pick PICK='${bad%%|*}'"
	expect_err "SET=pick PICK='${bad%%|*}': says why" "${bad#*|}"
done
expect_exit 2 env SET=goals PICK=gone OUT="$T_DIR/k0" W="$T_DIR/k0w" bash $M/static_gpu.sh
expect_stderr_line "PICK without SET=pick"
[ -e "$T_DIR/k0" ] || [ -e "$T_DIR/k0w" ] && fail "PICK refused: nothing set up" "$(ls -d "$T_DIR"/k0*)" ||
	ok "PICK refused: nothing set up"
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET=pick PICK="gp99_m20 ts50_f10 mps_p0t25" \
	NBE=1 SKIP=0 MEAS=1 MAXROUNDS=2 OUT="$T_DIR/pk" W="$T_DIR/pkw" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/pk/phases.txt
on() { grep "^P $1 " "$P" | awk '{print $3}' | paste -sd' '; }
[ "$(on 0)" = "alone_plain_warm alone_mps_warm alone_mps_cal" ] &&
	ok "SET=pick: the LC outside MPS warmed, LC alone under MPS calibrated (its targets)" || fail "pick round 0" "$(on 0)"
[ "$(on 1)" = "alone_mps ts50_f10 mps_p0t25 mps_p1t100 gp99_m20" ] &&
	ok "SET=pick: the named phases, alone_mps and the anchor mps_p1t100" || fail "pick round 1" "$(on 1)"
[ "$(on 2)" = "ts50_f10 mps_p0t25 mps_p1t100 gp99_m20 alone_mps" ] && ok "SET=pick: the order turns by one" ||
	fail "pick round 2" "$(on 2)"
grp=$(sed -n 's/^groups: //p' "$T_DIR/pk/log.txt" | grep -o '[a-z0-9]*=' | paste -sd' ')
[ "$grp" = "u= p0t25= p1t100= gt=" ] && ok "SET=pick: only the BE groups the phases use start" || fail "pick groups" "$grp"
grep -q "^mps-control -d$" "$FAKE_LOG" && grep -q "^sched exec --class be -- .*coloc be .*/gt1.log" "$FAKE_LOG" &&
	! grep -q "/go1.log" "$FAKE_LOG" && ok "SET=pick: the daemon and lc-p99's clients, not gone's" ||
	fail "pick processes" "$(grep 'mps-control\|exec' "$FAKE_LOG")"
grep -q "^sched run lc-be lc comm:lcbert be-timeslice 50 be-floor 10$" "$FAKE_LOG" &&
	grep -q "^sched run lc-be lc comm:lcbertm mechanism mps mps-dir .*/hand/pipe hint .*lc-p99 10396us$" "$FAKE_LOG" &&
	ok "SET=pick: ts50_f10 and gp99_m20 run as in SET=all" || fail "pick runs" "$(grep 'sched run' "$FAKE_LOG")"
grep -q "^T m12=6237 m20=10396 p110=0 p200=0 alone_mps=5198 alone_plain=0$" "$P" &&
	ok "SET=pick: the MPS targets only" || fail "pick targets" "$(grep '^T ' "$P")"
grep -q "^m20: target 10396 us; gp99_m20 P99 5198 (kept)" "$T_DIR/pk/summary.txt" &&
	grep -q "^   static ts50_f10 .*meets it: P99 5198" "$T_DIR/pk/summary.txt" &&
	ok "SET=pick: the TSG static setting judged against the MPS target" || fail "pick summary" "$(grep -A4 '^m20' "$T_DIR/pk/summary.txt")"
expect_exit 0 python3 $M/static_pool.py "$T_DIR/pk"
expect_out "static_pool on a SET=pick call: the anchor, 1.000 of itself" '^   mps_p1t100 +2 +200 +5198 +kept +kept +[0-9.]+ +1\.000$'
expect_out "static_pool on a SET=pick call: goal 2 judged" '^gp99_m20: goal (MET|not met): kept in 1 of 1 calls'
: >"$FAKE_LOG"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET=pick PICK="p99_p110 be_alone" \
	NBE=1 SKIP=0 MEAS=1 MAXROUNDS=1 OUT="$T_DIR/pu" W="$T_DIR/puw" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/pu/phases.txt
[ "$(on 0) / $(on 1)" = "alone_plain_warm alone_plain_cal / alone_plain be_alone p99_p110" ] &&
	ok "SET=pick, goal 3's phases: alone_plain, no anchor" || fail "pick uid phases" "$(on 0) / $(on 1)"
grep -qi "mps" "$FAKE_LOG" && fail "pick uid: no MPS" "$(grep -i mps "$FAKE_LOG")" || ok "SET=pick, goal 3's phases: no MPS daemon or client"
expect_exit 2 python3 $M/static_pool.py "$T_DIR/pk" "$T_DIR/pu"
expect_stderr_line "static_pool: a call without the anchor"
expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET=pick PICK="alone_plain" \
	NBE=1 SKIP=0 MEAS=1 MAXROUNDS=2 OUT="$T_DIR/pa" W="$T_DIR/paw" timeout 200 bash $M/static_gpu.sh
P=$T_DIR/pa/phases.txt
[ "$(on 1) / $(on 2)" = "alone_plain / alone_plain" ] && ok "SET=pick, an alone only: that phase a round, no empty one" ||
	fail "pick alone only" "$(on 1) / $(on 2)"
summary
