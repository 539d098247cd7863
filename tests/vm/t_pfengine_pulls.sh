#!/bin/sh
# populate's default (eager 1) moves every allocation when made; the model's
# CPU writes a scratch buffer beside each allocation (uvmsim ... cpu_blocks
# 1: a CPU fault on the GPU's pages, which come back).  The engine records
# CPU faults only while an allocation it moved waits for one and hands the
# first as a PULL (populate counts the writes: cpu_pulls).  eager 0 moves
# nothing when made (and the CPU pulls nothing back); none records no CPU
# fault.  The closing report: text on stderr, -j with the command's exit
# status.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
MAX="--max-bytes 256M"	# no NVML in the VM
RUN="uvmsim run alloc blocks 16 alloc 2 cpu_blocks 1 touch_ms 150 life_ms 60 wait_ms 5000 gap_ms 30 hold_ms 300"

jnum() { printf '%s\n' "$OUT" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -1; }
ge() {	# ge NAME KEY MIN
	v=$(jnum "$2")
	[ -n "$v" ] && [ "$v" -ge "$3" ] && ok "$1 ($2 $v)" || fail "$1" "$2 is '$v', want >= $3: $OUT"
}
le() {	# le NAME KEY MAX
	v=$(jnum "$2")
	[ -n "$v" ] && [ "$v" -le "$3" ] && ok "$1 ($2 $v)" || fail "$1" "$2 is '$v', want <= $3: $OUT"
}
eq() {	# eq NAME KEY V
	v=$(jnum "$2")
	[ "$v" = "$3" ] && ok "$1 ($2 $v)" || fail "$1" "$2 is '$v', want $3: $OUT"
}

# --- the default: 8 GPU allocations of 4 MiB, 8 CPU scratch buffers of 2 MiB -----
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate $MAX -- $RUN
STATS=$(uvmsim stats)
TO_CPU_DEF=$(stat_of pages_migrated_to_cpu)
ge "default: every allocation moved when made, scratch buffers too" eager_moved 14
ge "default: the CPU's writes after a move seen (PULL)" cpu_pulls 5
ge "default: CPU fault recording turned on for a moved allocation" cpu_faults_on 1
expect_json_eq "default: the command's exit status in the document" .exit_status 0
expect_json_eq "default: no call refused" .errors 0
printf '%s' "$OUT" | grep -Eq '"(eager_skipped|eager_probes|cpu_sizes|gpu_sizes)"' &&
	fail "default: no eager 2 counters" "$(printf '%s' "$OUT" | head -c 300)" || ok "default: no eager 2 counters"

# --- eager 0: nothing moved when made, nothing pulled back -----------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate eager 0 $MAX -- $RUN
STATS=$(uvmsim stats)
TO_CPU_ZERO=$(stat_of pages_migrated_to_cpu)
eq "eager 0: nothing moved when made" eager_moved 0
eq "eager 0: no CPU write after a move when made" cpu_pulls 0
[ "${TO_CPU_DEF:-0}" -gt "${TO_CPU_ZERO:-0}" ] &&
	ok "eager 0: the CPU pulled less back than under the default ($TO_CPU_ZERO < $TO_CPU_DEF pages)" ||
	fail "eager 0 pulls" "to the CPU: eager 0 $TO_CPU_ZERO, default $TO_CPU_DEF"
expect_exit 2 $G prefetch load populate eager 2 $MAX -- true
expect_err "eager 2 refused: out of its range" '^Error: .*eager'

# --- trail 1: what the CPU finished writing moves back while it writes the rest --
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate trail 1 lag_mb 2 ahead_mb 0 $MAX -- uvmsim run alloc blocks 2 alloc 2 \
	cpu_blocks 8 cpu_gap_ms 150 touch_ms 150 life_ms 100 wait_ms 5000 hold_ms 300
ge "trail: the finished blocks moved back while the CPU wrote on" trail_moves 3
ge "trail: at least 3 blocks of them" trail_bytes 6291456
eq "trail: the CPU never came back to them" trail_stops 0
ge "trail: watched again where nothing was finished yet (PFE_DST_WATCH)" pull_events 5
expect_json_eq "trail: no call refused" .errors 0

# --- ahead_mb: what lies ahead of the CPU's write front comes to it in one call ----
# the CPU writes 8 blocks of a 16 MiB allocation moved when made, one after another:
# without ahead_mb each of them is a CPU fault on the GPU's pages; with ahead_mb 6
# each PULL brings the next 2 blocks (6 MiB less the faulted one) in one move
uvmsim reset va_blocks 64 >/dev/null
AHEAD_RUN="uvmsim run alloc blocks 2 alloc 2 cpu_blocks 8 cpu_gap_ms 150 touch_ms 150 life_ms 100 wait_ms 5000 hold_ms 300"
expect_exit 0 $G -j prefetch load populate ahead_mb 0 $MAX -- $AHEAD_RUN
STATS=$(uvmsim stats)
FAULTS_OFF=$(stat_of cpu_faults)
eq "ahead_mb 0: nothing brought ahead" ahead_moves 0
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate ahead_mb 6 $MAX -- $AHEAD_RUN
STATS=$(uvmsim stats)
FAULTS_ON=$(stat_of cpu_faults)
ge "ahead_mb 6: moves to the CPU ahead of its write front" ahead_moves 2
ge "ahead_mb 6: 2 blocks at least each time" ahead_bytes 8388608
eq "ahead_mb 6: the CPU never came back" ahead_stops 0
expect_json_eq "ahead_mb 6: no call refused" .errors 0
[ -n "$FAULTS_OFF" ] && [ -n "$FAULTS_ON" ] && [ "$FAULTS_ON" -lt "$FAULTS_OFF" ] &&
	ok "ahead_mb 6: fewer CPU faults on the GPU's pages ($FAULTS_ON < $FAULTS_OFF)" ||
	fail "ahead faults" "with ahead_mb 6: '$FAULTS_ON', without: '$FAULTS_OFF'"
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate $MAX -- $AHEAD_RUN
ge "the default (ahead_mb 256): the rest of the allocation to the CPU at its first write" ahead_moves 1
eq "the default: one move was all of it" ahead_stops 0
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate ahead_mb 6 trail 1 lag_mb 2 $MAX -- $AHEAD_RUN
ge "ahead_mb 6 with trail 1: both follow the front (ahead)" ahead_moves 2
ge "ahead_mb 6 with trail 1: both follow the front (trail)" trail_moves 1
expect_json_eq "ahead_mb 6 with trail 1: no call refused" .errors 0

# --- none: no CPU fault recorded, none handed on ---------------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load none $MAX -- $RUN
eq "none: CPU fault recording never on" cpu_faults_on 0
eq "none: no PULL" pull_events 0

# --- the watcher: a policy that wants no ALLOC/FREE is not woken per mapping call --
AW=/sys/fs/bpf/gpuctl/allocwatch
# flags_of POLICY: aw_target.flags (u32 word 2, after uvm_rdev and in_calls) of the engine's process while it runs
flags_of() {
	uvmsim reset va_blocks 64 >/dev/null
	$G prefetch load $1 $MAX -- uvmsim run seq blocks 4 wait_ms 200 hold_ms 4000 >/dev/null 2>&1 &
	GP=$!
	n=0
	until grep -qs '^alloc_watcher 1' "$GPUCTL_RUN_DIR"/prefetch/*stats* || [ $n -ge 300 ]; do
		sleep 0.05; n=$((n + 1))
	done
	SIMP=$(ls "$GPUCTL_RUN_DIR"/prefetch/ | sed -n 's/^\([0-9]*\)\.pid$/\1/p' | head -1)
	FL=$(tests/tools/bpfpoke word $AW/targets "$SIMP" 2 2>&1)
	wait $GP
}
flags_of none
[ "$FL" = 1 ] && ok "watcher: none's process posts without a wake-up (AW_T_NO_WAKE)" || fail "none flags" "'$FL'"
flags_of populate
[ "$FL" = 0 ] && ok "watcher: populate's is woken at once (ALLOC latency)" || fail "populate flags" "'$FL'"

# --- the closing report: stderr in text, the command's status (killed: 128+15) --
# ends_killed J: runs gpuctl [J] prefetch load populate -- uvmsim ..., kills
# uvmsim with SIGTERM once the engine is attached; RC, stdout in o, stderr in e
ends_killed() {
	uvmsim reset va_blocks 64 >/dev/null
	T0=$(cut -d' ' -f1 /proc/uptime)	# before gpuctl starts: its parts are inside [T0, now]
	# shellcheck disable=SC2086
	$G $1 prefetch load populate $MAX -- uvmsim run seq blocks 4 wait_ms 200 hold_ms 10000 \
		>"$T_DIR/o" 2>"$T_DIR/e" &
	GP=$!
	n=0
	until grep -qs '^alloc_watcher 1' "$GPUCTL_RUN_DIR"/prefetch/*stats* || [ $n -ge 300 ]; do
		sleep 0.05; n=$((n + 1))
	done
	sleep 0.5
	# the engine's pid file is named by its target: uvmsim
	SIMP=$(ls "$GPUCTL_RUN_DIR"/prefetch/ | sed -n 's/^\([0-9]*\)\.pid$/\1/p' | head -1)
	kill -TERM "$SIMP"
	wait $GP
	RC=$?
	WALL=$(awk -v a="$T0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.3f", b - a }')
}
ends_killed ""
[ $RC -eq 143 ] && ok "text: gpuctl exits with the command's status (143)" || fail "text rc" "$RC"
[ ! -s "$T_DIR/o" ] && ok "text: nothing of the engine on stdout" || fail "text stdout" "$(head -c 300 "$T_DIR/o")"
grep -q '^prefetch engine: policy populate on pid' "$T_DIR/e" && grep -q '^  exit_status  *143$' "$T_DIR/e" &&
	ok "text: the report on stderr, with the exit status" || fail "text stderr" "$(head -c 600 "$T_DIR/e")"
grep -Eq '^  migrated_bytes +[0-9]+  # [0-9.]+ (B|KiB|MiB|GiB)$' "$T_DIR/e" &&
	grep -Eq '^  cpu_us +[0-9]+  # [0-9.]+ (ns|us|ms|s)$' "$T_DIR/e" && grep -Eq '^  seen +[0-9]+$' "$T_DIR/e" &&
	ok "text: bytes and times in human units beside the counts, counts alone" ||
	fail "text human units" "$(head -c 900 "$T_DIR/e")"
grep -Eq '^  attach_us +[1-9][0-9]*  # ' "$T_DIR/e" && grep -Eq '^  drain_us +[0-9]+  # ' "$T_DIR/e" &&
	grep -Eq '^  close_us +[0-9]+  # ' "$T_DIR/e" &&
	ok "text: where the wall time went: attach, drain (the end of seconds), close" ||
	fail "text attach/drain/close" "$(head -c 1500 "$T_DIR/e")"
ends_killed -j
OUT=$(cat "$T_DIR/o")
[ $RC -eq 143 ] && ok "-j: gpuctl exits with the command's status" || fail "-j rc" "$RC"
expect_json "-j: stdout is one JSON document"
expect_json_eq "-j: exit_status in it" .exit_status 143
expect_json_eq "-j: beside the counters" .policy populate
# attach_us + seconds + close_us: parts of gpuctl's own run, never more than its wall
jf() { printf '%s\n' "$OUT" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" | head -1; }
PARTS=$(awk -v a="$(jf attach_us)" -v s="$(jf seconds)" -v c="$(jf close_us)" \
	'BEGIN { printf "%.3f", a / 1e6 + s + c / 1e6 }')
[ -n "$(jf attach_us)" ] && [ -n "$(jf drain_us)" ] && [ -n "$(jf close_us)" ] &&
	awk -v p="$PARTS" -v w="$WALL" 'BEGIN { exit !(p > 0.5 && p <= w + 0.05) }' &&
	ok "-j: attach_us + seconds + close_us ($PARTS s) within the wall the caller saw ($WALL s)" ||
	fail "-j attach/seconds/close" "parts $PARTS, wall $WALL: $(head -c 600 "$T_DIR/o")"
summary
