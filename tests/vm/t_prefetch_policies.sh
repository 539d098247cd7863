#!/bin/sh
# Every prefetch policy makes the decision it was designed for on a crafted
# input; parameters; users' own objects; hot swap without a default decision.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"

gt() { [ "$2" -gt "$3" ] && ok "$1" || fail "$1" "$2 is not > $3"; }
lt() { [ "$2" -lt "$3" ] && ok "$1" || fail "$1" "$2 is not < $3"; }
eq() { [ "$2" = "$3" ] && ok "$1" || fail "$1" "'$2' != '$3'"; }
counter() { OUT=$(gpuctl -j prefetch show); json_get ".counters.$1"; }

# --- stride: one stream striding by 32 pages (128 KiB) through 4 blocks ----
model_run stride stride 32 warps 1 blocks 4
d_faults=$(stat_of faults)
gpuctl prefetch load stride >/dev/null
model_run stride stride 32 warps 1 blocks 4
s_faults=$(stat_of faults)
lt "stride: faults $s_faults < half of default $d_faults" $((s_faults * 2)) "$d_faults"
gt "stride: decided on confirmed strides" "$(counter stride_decisions)" 0
# short strides (inside a big page) are left to the driver: no worse than it
gpuctl prefetch unload >/dev/null
model_run stride stride 4 warps 1 blocks 4
d4=$(stat_of faults)
gpuctl prefetch load stride >/dev/null
model_run stride stride 4 warps 1 blocks 4
[ "$(stat_of faults)" -le "$d4" ] && ok "stride 4: no more faults than the default ($(stat_of faults) <= $d4)" ||
	fail "stride 4: no worse than default" "$(stat_of faults) > $d4"
expect_exit 0 gpuctl prefetch set degree 1
model_run stride stride 32 warps 1 blocks 4
gt "stride degree 1: more faults than degree 4" "$(stat_of faults)" "$s_faults"
expect_exit 0 gpuctl -j prefetch show
expect_json_eq "set changed the running policy's degree" .params.degree 1

# --- multilevel: only the small band granted -> regions of at most 16 pages --
gpuctl prefetch load multilevel high 100 mid 100 low 30 small_pages 16 >/dev/null
model_run seq blocks 4 warps 1
gt "multilevel: small regions granted" "$(counter small)" 0
eq "multilevel: no large regions" "$(counter large)" 0
gt "multilevel small: at least one fault per 16 pages" "$(stat_of faults)" $((4 * 512 / 16 - 1))
gt "multilevel small: still prefetches" "$(stat_of pages_prefetched)" 0
gpuctl prefetch set high 90 >/dev/null
model_run seq blocks 4 warps 1
gt "multilevel high 90: large regions granted" "$(counter large)" 0

# --- thrashing: a block the driver saw thrashing gets no prefetch ---------
# Pages 0-63 of blocks 0-3 three times over 2 GPU chunks (evicted and
# re-faulted: thrashing), then a fresh run over pages 256-319 of block 0.
trace=/tmp/thrash.trace
: > $trace
for pass in 1 2 3; do
	for b in 0 1 2 3; do
		for p in $(seq 0 63); do printf '%x r\n' $(((b * 512 + p) * 4096)) >> $trace; done
	done
done
for p in $(seq 256 319); do printf '%x r\n' $((p * 4096)) >> $trace; done
model_run gpu_chunks 2 -- trace file $trace warps 1
d_pref=$(stat_of pages_prefetched)
gt "thrashing: the model flagged thrashing pages" "$(stat_of thrashing_pages)" 0
gpuctl prefetch load thrashing >/dev/null
model_run gpu_chunks 2 -- trace file $trace warps 1
gt "thrashing: blocks flagged from the driver's answer" "$(counter blocks_flagged)" 0
gt "thrashing: decisions suppressed in flagged blocks" "$(counter suppressed)" 0
lt "thrashing: prefetched $(stat_of pages_prefetched) < default $d_pref" "$(stat_of pages_prefetched)" "$d_pref"

# --- probabilistic: aggressiveness 0 never grants, 200 grants -------------
gpuctl prefetch load probabilistic aggressiveness 0 >/dev/null
model_run seq blocks 4 warps 1
eq "probabilistic 0: nothing prefetched" "$(stat_of pages_prefetched)" 0
eq "probabilistic 0: nothing granted" "$(counter granted)" 0
gt "probabilistic 0: denials counted" "$(counter denied)" 0
gpuctl prefetch load probabilistic aggressiveness 200 >/dev/null
model_run seq blocks 4 warps 1
gt "probabilistic 200: prefetches" "$(stat_of pages_prefetched)" 1000
gt "probabilistic 200: grants counted" "$(counter granted)" 0

# --- adaptive: the threshold is the policy's; the loop moves it ------------
gpuctl prefetch load adaptive threshold 100 interval_ms 60000 >/dev/null 2>&1 &
loop=$!
i=0; until gpuctl prefetch show 2>/dev/null | grep -q adaptive || [ $i -ge 50 ]; do usleep 100000; i=$((i + 1)); done
model_run seq blocks 4
eq "adaptive threshold 100: nothing is occupied enough" "$(stat_of pages_prefetched)" 0
gpuctl prefetch set threshold 1 >/dev/null
model_run seq blocks 4
gt "adaptive threshold 1: prefetches" "$(stat_of pages_prefetched)" 1000
kill -INT $loop; wait $loop
eq "adaptive: Ctrl-C ends the loop cleanly" $? 0
OUT=$(gpuctl -j prefetch show)
expect_json_eq "adaptive: Ctrl-C unloads the policy" .policy null

gpuctl prefetch load adaptive interval_ms 100 hi_mbps 2 lo_mbps 1 >/tmp/adaptive.out 2>&1 &
loop=$!
i=0; until gpuctl prefetch show 2>/dev/null | grep -q adaptive || [ $i -ge 50 ]; do usleep 100000; i=$((i + 1)); done
# read the threshold while traffic runs (up to 10 s): read after a burst, a
# slow build (ASan, a loaded host) starts show later than the loop's next
# 100 ms window without traffic, and the loop rightly lowers it again
: >"$T_DIR/traffic"
( while [ -e "$T_DIR/traffic" ]; do model_run seq blocks 32 >/dev/null 2>&1; done ) &
traffic=$!
t_end=$(($(date +%s) + 10))
while [ "$(date +%s)" -lt $t_end ]; do
	OUT=$(gpuctl -j prefetch show)
	[ "$(json_get .params.threshold)" = 75 ] && break
	usleep 100000
done
rm -f "$T_DIR/traffic"
wait $traffic	# the run under way ends: idle from here
expect_json_eq "adaptive: heavy transfer raises the threshold" .params.threshold 75
sleep 1
OUT=$(gpuctl -j prefetch show)
expect_json_eq "adaptive: idle lowers it" .params.threshold 30
grep -q "throughput from uvm_model" /tmp/adaptive.out && ok "adaptive names its throughput source" ||
	fail "adaptive names its source" "$(cat /tmp/adaptive.out)"
gpuctl prefetch load always_max >/dev/null
wait $loop
eq "adaptive: the loop ends when another policy replaces it" $? 0
OUT=$(gpuctl -j prefetch show)
expect_json_eq "adaptive: the replacement stays" .policy always_max

expect_exit 0 gpuctl prefetch load adaptive --detach --pid-file /tmp/ad.pid interval_ms 100
[ -s /tmp/ad.pid ] && kill -0 "$(cut -d" " -f1 /tmp/ad.pid)" && ok "adaptive --detach: daemon with pid file" ||
	fail "adaptive --detach" "no live pid in /tmp/ad.pid"
kill -TERM "$(cut -d" " -f1 /tmp/ad.pid)"
i=0; while [ -e /tmp/ad.pid ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
OUT=$(gpuctl -j prefetch show)
expect_json_eq "adaptive daemon: SIGTERM unloads" .policy null

# --- parameters: bad values change nothing ------------------------------
gpuctl prefetch load stride degree 8 >/dev/null
before=$(gpuctl -j prefetch show)
for args in "degree 0" "degree 65" "degree x" "degree 8x" "degree -1" "threshold 5" "nosuch 1" "degree"; do
	# shellcheck disable=SC2086
	expect_exit 2 gpuctl prefetch set $args
	expect_stderr_line "set $args"
done
case $(gpuctl prefetch set threshold 5 2>&1) in
*"not a parameter of stride"*adaptive*) ok "a parameter of another policy is named as such" ;;
*) fail "parameter of another policy" "$(gpuctl prefetch set threshold 5 2>&1)" ;;
esac
expect_exit 2 gpuctl prefetch load stride degree 99
[ "$(gpuctl -j prefetch show)" = "$before" ] && ok "bad parameters changed nothing" ||
	fail "bad parameters changed nothing" "$(gpuctl -j prefetch show)"
gpuctl prefetch unload >/dev/null
expect_exit 1 gpuctl prefetch set degree 2
expect_stderr_line "set with nothing loaded"

# --- a user's own object ------------------------------------------------
cp tests/policies/user_half.elf /tmp/user_half.bpf.o
expect_exit 0 gpuctl prefetch load file /tmp/user_half.bpf.o
model_run seq blocks 2 warps 1
eq "user policy: two faults per block (one per half)" "$(stat_of faults)" 4
expect_exit 0 gpuctl -j prefetch show
expect_json_eq "user policy shown by name" .policy user_half
expect_json_eq "user policy's source is its path" .source /tmp/user_half.bpf.o
expect_exit 1 gpuctl prefetch set degree 1
expect_stderr_line "set on a user policy"
expect_exit 0 gpuctl prefetch unload
before=$(gpuctl -j prefetch show)
userbad() {	# userbad NAME FILE REGEX
	expect_exit 1 gpuctl prefetch load file "$2"
	expect_stderr_line "$1"
	case $ERR in *$3*) ok "$1: names the problem" ;; *) fail "$1: names the problem" "$ERR" ;; esac
	[ "$(gpuctl -j prefetch show)" = "$before" ] && ok "$1: nothing changed" || fail "$1: nothing changed" ""
}
echo "not elf" > /tmp/text.bpf.o
cp tests/policies/wrong_type.elf /tmp/wrong.bpf.o
cp tests/policies/proprietary.elf /tmp/prop.bpf.o
cp tests/policies/no_struct_ops.elf /tmp/nost.bpf.o
userbad "not an ELF file" /tmp/text.bpf.o "not an ELF file"
userbad "an ELF file for another machine" /bin/busybox "not BPF"
userbad "another struct_ops type" /tmp/wrong.bpf.o "uvm_fault_policy_ops, not struct uvm_gpu_ext"
userbad "a non-GPL license" /tmp/prop.bpf.o "GPL-compatible"
userbad "no struct_ops map" /tmp/nost.bpf.o "no struct_ops map"
userbad "no such file" /tmp/nonexistent.bpf.o "No such file"

# --- hot swap: no fault takes the default path in between --------------
gpuctl prefetch load always_max >/dev/null
( i=0 all=0 native=0
  while [ $i -lt 30 ]; do
	model_run random blocks 64 count 4000 seed $((i + 1))
	all=$((all + $(stat_of decisions))) native=$((native + $(stat_of decisions_native)))
	i=$((i + 1))
  done
  echo "decisions $all" > /tmp/swap.stats; echo "decisions_native $native" >> /tmp/swap.stats ) &
traffic=$!
swaps=0
while kill -0 $traffic 2>/dev/null; do
	for p in none stride always_max multilevel; do
		gpuctl prefetch load $p >/dev/null && swaps=$((swaps + 1))
	done
done
wait $traffic
STATS=$(cat /tmp/swap.stats)
gt "hot swap: $swaps swaps during the traffic" "$swaps" 3
gt "hot swap: decisions taken meanwhile" "$(stat_of decisions)" 1000
eq "hot swap: no decision fell back to the driver" "$(stat_of decisions_native)" 0

summary
