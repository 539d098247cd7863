#!/bin/bash
# bench/mps/static_gpu.sh - issue 39's latency target against the static set,
# gpuctl's one command against MPS set by hand, and the BE of another uid,
# on one GPU (stock driver, root), in one call.
# LC = BERT-base fp16, batch 1, a request every 5 ms (bench/lcbe/coloc.py);
# BE = NBE CNN trainers a group.  Every process starts once; a phase wakes
# its LC and its BE group (SIGCONT) and stops the other groups (SIGSTOP).
#
# Groups: u = BE of uid 65534 outside MPS, started after `sched watch` and
# before any `sched run` (the TSG path, where MPS cannot serve); pPtT = BE
# clients of an MPS daemon set up by hand, CUDA_MPS_CLIENT_PRIORITY=P,
# CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=T; gt = BE clients `gpuctl sched exec
# --class be` started under `sched run lc-be ... mechanism mps lc-p99`
# (adopting the same daemon: what lc-p99 gives clients at their start), go =
# the same under `sched run lc-be ... mechanism mps` (the one command).  LC:
# lcp outside MPS (bracketed in a hint file when a policy reads one), lcm a
# client of the same daemon.
# SET picks the phases (each call repeats the alones its ratios need):
#   SET=mps (default)  alone_mps; MPS by hand mps_p{0,1}t{50,100}; gp99_m12,
#                      gp99_m20 (lc-p99 through MPS, lcm + gt); gone (lcm + go)
#   SET=uid            alone_plain; be_alone (u); none; ts200_f30; p99_p110,
#                      p99_m20p (lc-p99 at 1.1x / 2x alone_plain's P99, TSG path)
#   SET=rot            uid's without p99_m20p, and be-rotate (one BE process on
#                      the runlist at a time): ts50_rot50 (floor 10), ts50_rot50_f0
#   SET=lvl            uid's without p99_m20p, and the interleave levels (LC
#                      high, BE low) without lc-be's short BE timeslice: ts1024_lvl
#                      (every TSG 1024 us), ts500_lvl (BE 500 us); session 13:
#                      at lc-be's timeslices (BE 200 us) BE kept 37 %; the
#                      levels alone were never measured as a static setting
#   SET=all            both, and ts50_f10 ts50_f30 ts200_f10, p99_m12/m20 (TSG
#                      path), mps_p{0,1}t25: session 9's set
#   SET=g1             alone_mps; mps_p1t100; gone: the one-command goal alone,
#                      three phases a round, so MAXROUNDS=12 fits one call
#   SET=goals          g1's and gp99_m12 beside mps_p0t50 (the static setting
#                      the target met by most BE in sessions 9-10, what lc-p99
#                      gives BE clients at their start): both MPS goals, five
#                      phases a round (MAXROUNDS=7)
#   SET=pick PICK="LABEL ..."  only the named phases a round (the labels
#                      above: mps_pXtY for X in 0 1, Y in 25 50 100; gp99_m12,
#                      gp99_m20, gone; ts50_f10 ts50_f30 ts200_f10 ts200_f30,
#                      p99_m12, p99_m20; be_alone, none, p99_p110, p99_m20p,
#                      ts50_rot50(_f0), ts1024_lvl, ts500_lvl; alone_plain,
#                      alone_mps), only the processes and groups they use, and
#                      what they are judged against:
#                      - alone_mps and MPS by hand mps_p1t100 (the anchor:
#                        static_pool.py divides each call's BE by it, so that
#                        calls can be set side by side) with any phase of goal
#                        2's: the MPS ones, lc-p99 at the MPS targets (gp99_*,
#                        p99_m12/m20), gone, and the TSG static set
#                        ts{50,200}_f{10,30}.  As in SET=all, the TSG set's LC
#                        is the one outside MPS (lcp), held to the targets from
#                        LC alone *under* MPS: what a static TSG setting gives
#                        a user who asks MPS's latency, not 1.2x its own alone;
#                      - alone_plain with goal 3's (be_alone, none, p99_p110,
#                        p99_m20p, the rot and lvl ones), the LC outside MPS;
#                      - an LC whose alone is not in the call runs that alone
#                        once first all the same (*_warm, dropped).
#                      Rounds turn by one phase (ROT=1).  An unknown label:
#                      one Error line, exit 2, nothing set up.  Calls that
#                      together hold the static set: bench/mps/README.md.
# GPUCTL_REF=PATH (another gpuctl, e.g. main's before a change to lc-p99)
# adds a twin of every lc-p99 phase (p99_*, gp99_*) run by it, LABEL_ref,
# beside the tree's in every round; the summary pairs them (the A/B of a
# change to the target's loop, one call).  REFTWIN=ERE (default ^g?p99_)
# names the phases that get such a twin instead, e.g. '^ts50_f30$' for a
# change to lc-be's timeslices (a phase whose LC starves waits 30 s past it).
# SETTLE=S (default 0) adds a twin LABEL_s of every lc-p99 phase (and of
# its _ref) whose run starts S s before the usual skip and measured seconds,
# the LC's requests counted only after them: the target's settled state
# beside the first seconds of a run (the issue's phase, judged as before).
# The GPU's SM clock is sampled beside (clocks.py, every 500 ms): the summary
# gives each configuration's median (is a quiet GPU's LC slower, clocked down?),
# and slow_smi.py the LC's slow requests against the samples' times (are
# they the sampler's doing?) and their bursts.  The host's counters are
# sampled every 100 ms (host_sample.py), and stall_host.py names those that
# move at the bursts (what stalls the LC every ~1.5 s on some machines?).
# The LC records its own Python garbage collections (gcrec.py), and
# gc_slow.py sets them beside the slow requests and their bursts.
# COLOC_GC=freeze|off sets the LC's collector after its warm-up (gc.freeze:
# the model's objects are never scanned again; off: no automatic collection),
# for the A/B of that cause (the default leaves it as Python has it).
# QUIET=1 adds to every round a twin LABEL_q of each alone, run with the
# sampler stopped (SIGSTOP to its nvidia-smi); the summary pairs it with its
# alone.
# First each alone once, dropped (*_warm), then over 3x MEAS (round 0, *_cal:
# the targets come from them); every round then holds the alones again, its
# order rotated.  Rounds run while a whole one still fits in
# DEADLINE s from the start.  WAKE=S (default 1.5): the seconds between
# waking a phase's groups (and starting its run) and the LC's first request
# (the stand-in tests shorten it).
# Out ($OUT, few files): phases.txt, summary.txt (static_sum.py), log.txt,
# w.tgz (the trainers' step logs, each policy's status and run output).
set -u
catalog() {	# every phase a round can hold but the alones: LABEL|LC|BE GROUP|sched run ARGS
	local g
	echo "be_alone|-|u|
none|lcp|u|
ts200_f30|lcp|u|$LCB be-timeslice 200 be-floor 30
p99_p110|lcp|u|$LCB hint $H be-off channels lc-p99 ${TP110}us
ts50_rot50|lcp|u|$LCB be-timeslice 50 be-rotate 50 be-off channels
ts50_rot50_f0|lcp|u|$LCB be-timeslice 50 be-rotate 50 be-off channels be-floor 0
ts1024_lvl|lcp|u|$LCB lc-interleave high be-interleave low lc-timeslice 1024 be-timeslice 1024
ts500_lvl|lcp|u|$LCB lc-interleave high be-interleave low lc-timeslice 1024 be-timeslice 500
p99_m20p|lcp|u|$LCB hint $H be-off channels lc-p99 ${TP200}us
ts50_f10|lcp|u|$LCB be-timeslice 50 be-floor 10
ts50_f30|lcp|u|$LCB be-timeslice 50 be-floor 30
ts200_f10|lcp|u|$LCB be-timeslice 200 be-floor 10
p99_m12|lcp|u|$LCB hint $H be-off channels lc-p99 ${TM12}us
p99_m20|lcp|u|$LCB hint $H be-off channels lc-p99 ${TM20}us"
	for g in p0t25 p0t50 p0t100 p1t25 p1t50 p1t100; do echo "mps_$g|lcm|$g|"; done
	echo "gp99_m12|lcm|gt|$LCM hint $H lc-p99 ${TM12}us
gp99_m20|lcm|gt|$LCM hint $H lc-p99 ${TM20}us
gone|lcm|go|$LCM"
}
pick() {	# SET=pick: PICK's labels checked; PL, the LCs, groups and calibrated alones they need
	local l lc g known need_m="" need_p="" picks
	known=" alone_plain alone_mps $(TM12=0 TM20=0 TP110=0 TP200=0 LCB="" LCM="" H="" catalog | cut -d'|' -f1 | tr '\n' ' ')"
	read -ra picks -d '' <<<"$PICK"
	[ ${#picks[@]} -gt 0 ] || { echo "Error: SET=pick needs PICK, the phases' labels:${known% }" >&2; return 2; }
	PL=""
	for l in "${picks[@]}"; do
		case $known in *" $l "*) ;; *)
			echo "Error: PICK: no phase '${l//[^[:print:]]/?}'; the labels:${known% }" >&2; return 2 ;; esac
		case $l in alone_mps | mps_* | gp99_* | gone | p99_m12 | p99_m20 | ts50_f[13]0 | ts200_f[13]0) need_m=1 ;;
		*) need_p=1 ;; esac	# alone_plain, be_alone, none, p99_p110, p99_m20p, rot, lvl
		PL="$PL $l"
	done
	[ -n "$need_m" ] && PL="$PL mps_p1t100"	# the anchor
	MPSG="" UG="" XG="" LCS="" ALC=""
	[ -n "$need_p" ] && ALC=lcp
	[ -n "$need_m" ] && ALC="$ALC lcm"
	while IFS='|' read -r l lc g _; do	# catalog's order
		case " $PL " in *" $l "*) ;; *) continue ;; esac
		case $lc in lcp | lcm) LCS="$LCS $lc" ;; esac
		case $g in u) UG=u ;; p*) MPSG="$MPSG $g" ;; gt | go) XG="$XG $g" ;; esac
	done < <(TM12=0 TM20=0 TP110=0 TP200=0 LCB="" LCM="" H="" catalog)
	LCS=$(for lc in $ALC $LCS; do echo "$lc"; done | sort -ru | paste -sd' ')	# lcp before lcm
	XG=$(for g in $XG; do echo "$g"; done | sort -ru | paste -sd' ')	# gt before go
	ROT=${ROT:-1}
}
SET=${SET:-mps} PICK=${PICK:-}
[ -n "$PICK" ] && [ "$SET" != pick ] && { echo "Error: PICK is for SET=pick, not SET=$SET" >&2; exit 2; }
case $SET in	# before anything is set up
mps) MPSG="p0t50 p0t100 p1t50 p1t100" UG="" XG="gt go" LCS=lcm ;;
uid|rot|lvl) MPSG="" UG=u XG="" LCS=lcp ;;
all) MPSG="p0t25 p0t50 p0t100 p1t25 p1t50 p1t100" UG=u XG="gt go" LCS="lcp lcm" ;;
g1) MPSG="p1t100" UG="" XG="go" LCS=lcm ROT=1 ;;
goals) MPSG="p0t50 p1t100" UG="" XG="gt go" LCS=lcm ROT=1 M20=no ;;
pick) pick || exit 2 ;;
*) echo "Error: SET is mps, uid, rot, lvl, all, g1, goals or pick, not '$SET'" >&2; exit 2 ;;
esac
SETTLE=${SETTLE:-0} QUIET=${QUIET:-0}
case $QUIET in 0 | 1) ;; *) echo "Error: QUIET is 0 or 1, not '$QUIET'" >&2; exit 2 ;; esac
case $SETTLE in *[!0-9]* | '') echo "Error: SETTLE is whole seconds, not '$SETTLE'" >&2; exit 2 ;; esac
WAKE=${WAKE:-1.5}
case $WAKE in *[!0-9.]* | '' | *.*.* | .) echo "Error: WAKE is seconds (e.g. 1.5), not '$WAKE'" >&2; exit 2 ;; esac
case ${COLOC_GC:-} in '' | freeze | off) ;; *)
	echo "Error: COLOC_GC is freeze or off (or unset), not '${COLOC_GC//[^[:print:]]/?}'" >&2; exit 2 ;; esac
GPUCTL_REF=${GPUCTL_REF:-} REFTWIN=${REFTWIN:-^g?p99_}
awk -v re="$REFTWIN" 'BEGIN { if ("" ~ re) exit 0 }' 2>/dev/null ||
	{ echo "Error: REFTWIN is not an extended regular expression: '$REFTWIN'" >&2; exit 2; }
[ -z "$GPUCTL_REF" ] || [ -x "$GPUCTL_REF" ] ||
	{ echo "Error: GPUCTL_REF is not an executable: '$GPUCTL_REF'" >&2; exit 2; }
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
OUT=${OUT:-/tmp/static-out}; mkdir -p "$OUT"
W=${W:-/tmp/static-w}; rm -rf "$W"; mkdir -p "$W"; chmod 755 "$W"
GPUCTL=${GPUCTL:-gpuctl}
NBE=${NBE:-3} SKIP=${SKIP:-5} MEAS=${MEAS:-5} DEADLINE=${DEADLINE:-575} MAXROUNDS=${MAXROUNDS:-5}
PHASE=$((SKIP + MEAS)) HP=$W/hand/pipe HL=$W/hand/log H=$W/lc.hint
T_START=$SECONDS; : >"$OUT/phases.txt"
. "$D/common.sh"
finish() {
	bench_end "$HP"
	cp "$HL/control.log" "$W/hand_control.log" 2>/dev/null
	tar -C "$W" -czf "$OUT/w.tgz" --exclude=hand --exclude='*.in' . 2>/dev/null
}
trap finish EXIT
trap '' PIPE	# an LC that died: its phases say so, the others go on
exec > >(tee "$OUT/log.txt") 2>&1
log "machine"; nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
echo "gpuctl $("$GPUCTL" version 2>&1 | head -1)"
[ -n "$GPUCTL_REF" ] && echo "gpuctl-ref $("$GPUCTL_REF" version 2>&1 | head -1)"
grep -q " /sys/fs/bpf bpf " /proc/mounts || mount -t bpf bpf /sys/fs/bpf
G sched unload >/dev/null 2>&1
G sched watch || exit 1
python3 "$D/clocks.py" >"$W/clocks.txt" 2>/dev/null & CLK=$! ALL="$ALL $!"
python3 "$D/host_sample.py" >"$W/host.txt" 2>/dev/null & ALL="$ALL $!"	# stall_host.py's
export COLOC_SKIP_S=$SKIP COLOC_LAT_FILE=$W/lat.txt	# every request's time (static_sum.py pools them)
export COLOC_SLOW_FILE=$W/slow.txt	# when the slow ones began (slow_smi.py: the sampler's doing?)
export COLOC_GC_FILE=$W/gc.txt	# the LC's own garbage collections (gc_slow.py: its doing?)
C=${COLOC:-python3 $R/bench/lcbe/coloc.py}
waitready() { for i in $(seq 1500); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "not ready: $1"; }

declare -A GRP
GROUPS_ALL="$UG $MPSG $XG"
for i in $(seq "$NBE"); do	# another uid's BE, after watch, before any run
	[ -n "$UG" ] || break
	: >"$W/u$i.log"; chown 65534:65534 "$W/u$i.log"
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp PROC_COMM=beuid \
		$C be "$W/u$i.log" >"$W/u$i.out" 2>&1 & ALL="$ALL $!"
done
mkdir -p "$HP" "$HL"
case " $LCS " in *" lcm "*)	# the daemon set up by hand, where an LC is its client
	CUDA_MPS_PIPE_DIRECTORY=$HP CUDA_MPS_LOG_DIRECTORY=$HL nvidia-cuda-mps-control -d ;; esac
mkfifo "$W/lcp.in" "$W/lcm.in"
case " $LCS " in *" lcp "*)
	PROC_COMM=lcbert $C lc bert 5 <"$W/lcp.in" >"$W/lcp.out" 2>&1 & ALL="$ALL $!" ;; esac
case " $LCS " in *" lcm "*)
	PROC_COMM=lcbertm CUDA_MPS_PIPE_DIRECTORY=$HP $C lc bert 5 <"$W/lcm.in" >"$W/lcm.out" 2>&1 &
	ALL="$ALL $!" ;; esac
for g in $MPSG; do
	p=${g#p}; p=${p%%t*}; t=${g#*t}
	for i in $(seq "$NBE"); do
		PROC_COMM=be$g CUDA_MPS_PIPE_DIRECTORY=$HP CUDA_MPS_CLIENT_PRIORITY=$p \
			CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$t $C be "$W/$g$i.log" >"$W/$g$i.out" 2>&1 &
		ALL="$ALL $!"
	done
done
for g in $XG; do	# BE clients gpuctl starts, each group under its own run (adopting the daemon)
	args="lc-be lc comm:lcbertm mechanism mps mps-dir $HP"
	[ "$g" = gt ] && args="$args hint $H lc-p99 1000ms"	# the knob at a client's start
	# shellcheck disable=SC2086
	"$GPUCTL" sched run $args >"$W/run_start_$g.out" 2>"$W/run_start_$g.err" & run=$!
	for k in $(seq 200); do grep -q active "$W/run_start_$g.err" && break; sleep 0.05; done
	for i in $(seq "$NBE"); do
		PROC_COMM=be$g "$GPUCTL" sched exec --class be -- $C be "$W/$g$i.log" >"$W/$g$i.out" 2>&1 &
		ALL="$ALL $!"
	done
	sleep 1	# the clients have read their environment
	G -j sched status >"$W/status_start_$g.json" 2>&1
	kill -INT $run; wait $run
done
exec 7<>"$W/lcp.in" 8<>"$W/lcm.in"	# read-write: no wait for an LC this SET does not start
for f in $LCS $(for g in $GROUPS_ALL; do for i in $(seq "$NBE"); do echo $g$i; done; done); do
	waitready "$W/$f.out"; done
for g in $XG; do	# what MPS gave them, as gpuctl reads it
	for i in $(seq "$NBE"); do
		p=$(sed -n 's/^be ready pid=//p' "$W/$g$i.out")
		echo "$g$i pid $p: $(tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep '^CUDA_MPS_\(CLIENT\|ACTIVE\)' | tr '\n' ' ')"
	done
done
for g in $GROUPS_ALL; do
	GRP[$g]=$(for i in $(seq "$NBE"); do sed -n 's/^be ready pid=//p' "$W/$g$i.out"; done | tr '\n' ' ')
	# shellcheck disable=SC2086
	kill -STOP ${GRP[$g]}
done
echo "groups: $(for g in $GROUPS_ALL; do printf '%s=%s; ' "$g" "${GRP[$g]}"; done)"
nvidia-smi --query-gpu=memory.used --format=csv,noheader
G sched list | head -40
log "all started"

only() {	# only GROUP: that BE group runs, the others stop ("" none)
	local grp
	for grp in $GROUPS_ALL; do
		# shellcheck disable=SC2086
		if [ "$grp" = "$1" ]; then kill -CONT ${GRP[$grp]}; else kill -STOP ${GRP[$grp]}; fi
	done
}
phase() {	# phase ROUND LABEL LC(lcp|lcm|-) GROUP [sched run ARGS...]; PH: another length
	local r=$1 label=$2 lc=$3 g=$4 run="" fd n t0 t1 hintarg="" t_ph ph=${PH:-$PHASE} bin sk=$SKIP
	shift 4
	case $label in *_s) ph=$((ph + SETTLE)) sk=$((SKIP + SETTLE)) hintarg=" skip=$sk" ;; esac
	only "$g"
	if [ $# -gt 0 ]; then
		bin=$GPUCTL; case $label in *_ref | *_ref_s) bin=$GPUCTL_REF ;; esac
		"$bin" sched run "$@" >"$W/run_${label}_$r.out" 2>"$W/run_${label}_$r.err" & run=$!
		for k in $(seq 200); do grep -q active "$W/run_${label}_$r.err" && break; sleep 0.05; done
		case " $* " in *" hint "*) hintarg=" $H$hintarg" ;; esac
	fi
	case $label in *_q) pkill -STOP -P "$CLK" ;; esac	# nvidia-smi, clocks.py's child
	sleep "$WAKE"
	if [ "$lc" = - ]; then
		t0=$(mono); sleep "$PHASE"; t1=$(mono)
		echo "P $r $label be=$g lc - t0=$(python3 -c "print('%.3f' % ($t0 + $SKIP))") t1=$t1" >>"$OUT/phases.txt"
	else
		fd=7; [ "$lc" = lcm ] && fd=8; t_ph=$(mono)
		n=$(grep -c "^lc [a-z]* $label " "$W/$lc.out")
		if ! echo "run $label $ph$hintarg" >&$fd; then
			echo "P $r $label be=${g:--} lc dead" | tee -a "$OUT/phases.txt"
			return
		fi
		for k in $(seq $(((ph + 30) * 10))); do
			[ "$(grep -c "^lc [a-z]* $label " "$W/$lc.out")" -gt "$n" ] && break; sleep 0.1; done
		if [ "$(grep -c "^lc [a-z]* $label " "$W/$lc.out")" -gt "$n" ]; then
			echo "P $r $label be=${g:--} $(grep "^lc [a-z]* $label " "$W/$lc.out" | tail -1)"
		else	# starved past the phase: its answer comes late and is not counted
			echo "P $r $label be=${g:--} lc starved n=0 p50_us=$((ph * 1000000)) p99_us=$((ph * 1000000)) t0=$(python3 -c "print('%.3f' % ($t_ph + $sk))") t1=$(mono)"
		fi | tee -a "$OUT/phases.txt"
	fi
	case $label in *_q) pkill -CONT -P "$CLK" ;; esac
	if [ -n "$run" ]; then
		G sched status >"$W/status_${label}_$r.txt" 2>&1
		kill -INT $run; wait $run
		grep -E "^(policy|warning)" "$W/run_${label}_$r.out" | sed 's/^/   run: /'
	fi
}
LCB="lc-be lc comm:lcbert"
r=0 per=0
LCM="lc-be lc comm:lcbertm mechanism mps mps-dir $HP"
alone_of() { case $1 in lcp) echo "alone_plain|lcp||" ;; lcm) echo "alone_mps|lcm||" ;; esac; }
WARMS=$(for lc in $LCS; do alone_of "$lc"; done)	# each LC's alone, run once first and dropped
ALONES=$(for lc in ${ALC-$LCS}; do alone_of "$lc"; done)	# calibrated, in every round (round 1: first)
labels() {	# the labels of a round but the alones, for SET
	local g
	case $SET in uid|rot|lvl|all) echo be_alone none ts200_f30 p99_p110 ;; esac
	case $SET in
	rot) echo ts50_rot50 ts50_rot50_f0 ;;
	lvl) echo ts1024_lvl ts500_lvl ;;
	uid) echo p99_m20p ;;
	all) echo ts50_f10 ts50_f30 ts200_f10 p99_m12 p99_m20 ;;
	pick) echo "$PL"; return ;;	# the anchor among them
	esac
	for g in $MPSG; do echo "mps_$g"; done
	case " $XG " in *" gt "*) echo gp99_m12 ;; esac
	case " $XG :${M20:-}" in *" gt "*:) echo gp99_m20 ;; esac
	case " $XG " in *" go "*) echo gone ;; esac
}
plan() {	# the phases of a round but the alones, for SET (targets known), in catalog's order
	catalog | awk -F'|' -v want=" $(labels | tr '\n' ' ') " 'index(want, " " $1 " ")'
}
quiet() {	# QUIET=1: each alone's twin LABEL_q, run with the GPU's sampler stopped
	[ "$QUIET" = 1 ] && awk -F'|' 'NF { $1 = $1 "_q"; print }' OFS='|'
}
twins() {	# with GPUCTL_REF each REFTWIN phase's twin LABEL_ref, with SETTLE each lc-p99 one's LABEL_s
	awk -F'|' -v ref="$GPUCTL_REF" -v settle="$SETTLE" -v re="$REFTWIN" '
		function out(l) { print; if (settle > 0 && $1 ~ /^g?p99_/) { l = $1; $1 = l "_s"; print; $1 = l } }
		{ out() } ref != "" && $1 ~ re { $1 = $1 "_ref"; out() }' OFS='|'
}
p99_of() { sed -n "s/^P 0 $1 .*p99_us=\([0-9]*\).*/\1/p" "$OUT/phases.txt"; }
while [ $r -lt "$MAXROUNDS" ]; do
	r=$((r + 1)); t_round=$SECONDS
	log "round $r"
	if [ $r = 1 ]; then
		# the targets' base: each alone over 3x MEAS (one phase's P99 moved 5.7-14 ms)
		# (after one of the usual length, dropped: the first after the start ran 1.45x the rest)
		while IFS='|' read -r label lc g args; do
			phase 0 "${label}_warm" "$lc" "$g"
			case $'\n'"$ALONES" in *$'\n'"$label|"*)
				PH=$((SKIP + 3 * MEAS)) phase 0 "${label}_cal" "$lc" "$g" ;; esac; done <<<"$WARMS"
		ap=$(p99_of alone_plain_cal); am=$(p99_of alone_mps_cal); ap=${ap:-0} am=${am:-0}
		TM12=$((am * 12 / 10)) TM20=$((am * 2)) TP110=$((ap * 11 / 10)) TP200=$((ap * 2))
		echo "targets: LC alone under MPS P99 $am us -> 1.2x $TM12, 2x $TM20; outside MPS $ap us -> 1.1x $TP110, 2x $TP200"
		echo "T m12=$TM12 m20=$TM20 p110=$TP110 p200=$TP200 alone_mps=$am alone_plain=$ap" >>"$OUT/phases.txt"
	fi
	list=$(printf '%s\n%s\n%s\n' "$ALONES" "$(quiet <<<"$ALONES")" "$(plan | twins)" |
		awk -v k=$(((r - 1) * ${ROT:-3})) 'NF {a[++n]=$0} END {for (i = 0; i < n; i++) print a[(i + k) % n + 1]}')
	while IFS='|' read -r label lc g args; do
		# shellcheck disable=SC2086
		phase "$r" "$label" "$lc" "$g" $args
	done <<<"$list"
	per=$((SECONDS - t_round))
	[ $((SECONDS - T_START + per + 20)) -gt "$DEADLINE" ] && break
done
only ""
log "summary ($r rounds, the last took ${per}s)"
python3 "$D/static_sum.py" "$OUT/phases.txt" "$W" | tee "$OUT/summary.txt"
echo; python3 "$D/slow_smi.py" "$W" | tee -a "$OUT/summary.txt"
echo; python3 "$D/stall_host.py" "$W" | tee -a "$OUT/summary.txt"
echo; python3 "$D/gc_slow.py" "$W" | tee -a "$OUT/summary.txt"
log end
