#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_mps_tsg.sh - bench/mps/static_gpu.sh's TSG-path sets on the build
# host, no GPU, against stand-ins (tests/bench_mps_fakes.sh): SET=rot and
# SET=lvl each run one round of another uid's BE (setpriv) beside the
# TSG-path target, with the phases, the `sched run lc-be` words, no MPS
# daemon or client, and goal 3's verdict; the clock sampler (nvidia-smi)
# ends with the bench.  (Split from test_bench_mps.sh to keep each file well
# inside its time limit.)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/bench_mps_fakes.sh

mps_setup

# --- SET=rot and SET=lvl: another uid's BE (setpriv), beside the TSG-path target ----
chmod 755 "$T_DIR" "$F"	# uid 65534 runs the BE stand-in
tsg_set() {	# tsg_set SET PHASES RUN LABEL: one round against stand-ins; its phases, RUN, no MPS, LABEL judged
	: >"$FAKE_LOG"
	expect_exit 0 env PATH="$F:$PATH" GPUCTL="$F/gpuctl" COLOC="$F/coloc" WAKE=0.1 SET="$1" NBE=1 SKIP=0 MEAS=1 \
		MAXROUNDS=1 OUT="$T_DIR/$1" W="$T_DIR/$1w" timeout 200 bash $M/static_gpu.sh
	P=$T_DIR/$1/phases.txt
	[ "$(grep '^P 1 ' "$P" | awk '{print $3}' | paste -sd' ')" = "alone_plain be_alone none ts200_f30 p99_p110 $2" ] &&
		ok "SET=$1: uid's phases but p99_m20p, and $2" || fail "$1 phases" "$(grep '^P 1 ' "$P" | cut -c1-40)"
	grep -q "^sched run lc-be lc comm:lcbert $3\$" "$FAKE_LOG" &&
		ok "SET=$1: sched run lc-be ... $3" || fail "$1 run" "$(grep 'sched run' "$FAKE_LOG")"
	grep -q "mps\|MPS" "$FAKE_LOG" && fail "$1: no MPS" "$(grep -i mps "$FAKE_LOG")" || ok "SET=$1: no MPS daemon or client"
	grep -Eq "^   $4 +LC P99 1\.000x .* BE [0-9.]+% of alone" "$T_DIR/$1/summary.txt" &&
		ok "SET=$1: $4 judged against goal 3" || fail "$1 summary" "$(tail -8 "$T_DIR/$1/summary.txt")"
}
tsg_set rot "ts50_rot50 ts50_rot50_f0" "be-timeslice 50 be-rotate 50 be-off channels be-floor 0" ts50_rot50
tsg_set lvl "ts1024_lvl ts500_lvl" "lc-interleave high be-interleave low lc-timeslice 1024 be-timeslice 500" ts1024_lvl

left=$(grep -ls "$F/nvidia-sm[i]" /proc/[0-9]*/cmdline)
[ -n "$left" ] && sleep 1 && left=$(grep -ls "$F/nvidia-sm[i]" /proc/[0-9]*/cmdline)
[ -n "$left" ] && fail "clock sampler left" "$left" || ok "the clock sampler ends with the bench"

summary
