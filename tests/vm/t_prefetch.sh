#!/bin/sh
# prefetch, end to end on the model: load/show/unload, the decisions of none
# and always_max, hot swap, and every bad input of the foundation issue.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

PIN=/sys/fs/bpf/gpuctl/prefetch

# --- the driver's decisions change ------------------------------------
model_run seq blocks 16
base=$STATS
base_faults=$(stat_of faults)
base_prefetched=$(stat_of pages_prefetched)
[ "$(stat_of decisions_native)" -gt 0 ] && ok "default: native decisions" ||
	fail "default: native decisions" "$STATS"

expect_exit 0 gpuctl prefetch load always_max
expect_out "load prints what was attached" "^prefetch: always_max attached"
model_run seq blocks 16
am_faults=$(stat_of faults)
am_prefetched=$(stat_of pages_prefetched)
# 16 blocks, 16 concurrent warps: only the first round of each block faults.
if [ "$am_faults" -le 256 ] && [ "$((am_faults * 4))" -lt "$base_faults" ]; then
	ok "always_max: faults $am_faults vs default $base_faults"
else
	fail "always_max faults far fewer" "always_max $am_faults vs default $base_faults"
fi
[ "$((am_faults + am_prefetched))" -eq $((16 * 512)) ] &&
	ok "always_max: prefetched the rest of every block ($am_prefetched pages)" ||
	fail "always_max: max region" "faults $am_faults + prefetched $am_prefetched != 8192"
[ "$(stat_of decisions_native)" -eq 0 ] && [ "$(stat_of act_bypass)" -gt 0 ] &&
	ok "always_max: every decision went to the policy" ||
	fail "always_max: decisions" "$STATS"

expect_exit 0 gpuctl -j prefetch show
expect_json "prefetch show"
expect_json_eq "show: policy" .policy always_max
expect_json_eq "show: bypass decisions counted" .counters.bypass 16
expect_json_eq "show: pages requested counted" .counters.pages_requested 8192
expect_exit 0 gpuctl prefetch show
expect_out "show text names the policy" "^prefetch: always_max \(built-in\)"

# load while loaded: an atomic swap, not an error
expect_exit 0 gpuctl prefetch load none
expect_out "second load replaces" "^prefetch: none replaced always_max"
model_run seq blocks 16
[ "$(stat_of pages_prefetched)" -eq 0 ] && [ "$(stat_of faults)" -eq 8192 ] &&
	ok "none: nothing prefetched, every page faults" ||
	fail "none: nothing prefetched" "$STATS"
expect_exit 0 gpuctl prefetch load none
expect_out "loading the same policy again is fine" "^prefetch: none replaced none"

expect_exit 0 gpuctl -j prefetch unload
expect_json "unload"
expect_json_eq "unload names the policy" .unloaded none
[ ! -e $PIN/link ] && [ -z "$(ls $PIN)" ] && ok "unload leaves no pins" ||
	fail "unload leaves no pins" "$(ls -R $PIN)"
model_run seq blocks 16
[ "$STATS" = "$base" ] && ok "after unload the model's numbers equal those before load" ||
	fail "after unload equals before" "before: $base / after: $STATS"

expect_exit 0 gpuctl prefetch unload
expect_out "unload with nothing loaded succeeds" "^prefetch: no policy loaded"
expect_exit 0 gpuctl -j prefetch show
expect_json_eq "show with nothing loaded" .policy null

# --- bad input: one error line, documented code, nothing changed ------
gpuctl prefetch load always_max >/dev/null
before=$(gpuctl -j prefetch show)
bad() {	# bad CODE NAME CMD...
	code=$1 name=$2
	shift 2
	expect_exit "$code" "$@"
	expect_stderr_line "$name"
	now=$(gpuctl -j prefetch show)
	[ "$now" = "$before" ] && ok "$name: nothing changed" ||
		fail "$name: nothing changed" "$now"
}
bad 2 "unknown policy" gpuctl prefetch load nosuch
bad 2 "unknown command" gpuctl prefetch frob
bad 2 "ambiguous command" gpuctl prefetch s
bad 2 "unknown object" gpuctl frobnicate list
bad 2 "load without policy" gpuctl prefetch load
bad 2 "parameter of a policy without any" gpuctl prefetch load none degree 3
bad 2 "extra argument to show" gpuctl prefetch show extra
bad 2 "extra argument to unload" gpuctl prefetch unload extra
bad 2 "set without value" gpuctl prefetch set threshold
bad 2 "set on a policy without it" gpuctl prefetch set threshold 10
bad 1 "load without capabilities" tests/tools/bpfpoke nocap gpuctl prefetch load none
case $ERR in
*CAP_BPF*CAP_PERFMON*) ok "missing capabilities are named" ;;
*) fail "missing capabilities are named" "$ERR" ;;
esac
expect_exit 2 gpuctl -j prefetch load nosuch
expect_json "error under -j"
case $(json_get .error) in *nosuch*) ok "error under -j has the message" ;; *) fail "error under -j has the message" "$OUT" ;; esac
case $(json_get .code) in USAGE) ok "error under -j has its code (USAGE)" ;; *) fail "error under -j has its code" "$OUT" ;; esac

# --- a stale pin (detached link) and a foreign pin ---------------------
tests/tools/bpfpoke detach $PIN/link
expect_exit 0 gpuctl prefetch show
expect_out "stale pin is reported" "stale pin"
expect_exit 0 gpuctl prefetch load always_max
expect_out "load over a stale pin attaches afresh" "^prefetch: always_max attached"
model_run seq blocks 16
[ "$(stat_of faults)" = "$am_faults" ] && ok "policy active after stale pin" ||
	fail "policy active after stale pin" "$STATS"
gpuctl prefetch unload >/dev/null
mkdir -p $PIN && tests/tools/bpfpoke pin-map $PIN/link
expect_exit 1 gpuctl prefetch load none
expect_stderr_line "foreign pin"
case $ERR in *"not a BPF link but a BPF map"*) ok "foreign pin is named" ;; *) fail "foreign pin is named" "$ERR" ;; esac
expect_exit 1 gpuctl prefetch unload
model_run seq blocks 16
[ "$STATS" = "$base" ] && ok "foreign pin: nothing attached" || fail "foreign pin: nothing attached" "$STATS"
rm -f $PIN/link

# --- bpffs not mounted --------------------------------------------------
umount /sys/fs/bpf
expect_exit 1 gpuctl prefetch load none
expect_stderr_line "bpffs missing"
case $ERR in *"mount -t bpf"*) ok "bpffs: says how to mount" ;; *) fail "bpffs: says how" "$ERR" ;; esac
mount -t bpf bpf /sys/fs/bpf

summary
