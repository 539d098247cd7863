#!/bin/sh
# The per-process prefetch engine (gpuctl prefetch load ENGINE -p/--) end to
# end on the model's real-ABI devices (/dev/nvidia-uvm-tools for the fault
# stream, UVM_MIGRATE on the target's /dev/nvidia-uvm): each policy makes the
# migrations it was designed to make on a crafted uvmsim stream and the
# model faults less; start, detach, show, unload, a second engine, the
# target's exit, kill -9 of the engine; migrate/advise; every bad input with
# its exit code and one error line.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
B=0x7e0000000000
GPU=GPU-6d6f6465-6c67-5055-8000-000000000001	# the model's GPU
OTHER=GPU-00112233-4455-6677-8899-aabbccddeeff
NOBODY=65534
as_nobody() { tests/tools/bpfpoke user $NOBODY "$@"; }
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"
# A kernel that runs a while: the accesses in slices, 20 ms apart.
SLOW="wait_ms 300 slice 32 gap_ms 20"
MAX="--max-bytes 256M"	# no NVML in the VM: the cap has to be given

jnum() { printf '%s\n' "$OUT" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -1; }

expect_exit 0 $G -j prefetch probe
expect_json_eq "probe: the engine is available" .engine.available true
expect_json_eq "probe: per process: engine" .per_process engine

# --- baseline: none watches and counts --------------------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load none $MAX -- uvmsim run seq blocks 16 $SLOW
STATS=$(uvmsim stats)
base=$(stat_of fault_entries)
expect_json_eq "none: no migrate call" .ioctls 0
v=$(jnum faults); [ "${v:-9}" -le 1 ] && ok "none: wants no fault, the driver records none ($v)" || fail "none faults" "$OUT"
[ -z "$(json_get .driver_gpu_faults)" ] && [ -z "$(json_get .driver_bytes_htod)" ] &&
	ok "none: no driver counter enabled (each is a callback in the process's fault path)" ||
	fail "none: driver counters" "$OUT"
[ "$base" -gt 100 ] && ok "baseline: the sweep faults ($base)" || fail "baseline" "$STATS"

# --- populate: the first fault moves the whole allocation -------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate $MAX -- uvmsim run seq blocks 16 $SLOW
STATS=$(uvmsim stats)
expect_json_eq "populate: one allocation" .allocations 1
v=$(jnum driver_gpu_faults); [ -n "$v" ] && ok "populate: the driver's fault counter on (driver_gpu_faults $v)" ||
	fail "populate: driver_gpu_faults" "$OUT"
expect_json_eq "populate: no call refused" .errors 0
f=$(stat_of fault_entries)
[ "$(stat_of pages_migrated_user)" -ge 8192 ] && ok "populate: the 16 swept blocks moved by UVM_MIGRATE" ||
	fail "populate: user migration" "$STATS"
[ "$f" -lt $((base / 4)) ] && ok "populate: faults $f < a quarter of $base" || fail "populate faults" "$f vs $base"

# --- stream: sequential blocks, ahead by a growing distance -----------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load stream $MAX -- uvmsim run seq blocks 32 $SLOW
STATS=$(uvmsim stats)
expect_json_eq "stream: one stream" .streams 1
expect_json_eq "stream: no call refused" .errors 0
[ "$(jnum requests)" -ge 2 ] && ok "stream: migrated ahead ($(jnum requests) requests)" || fail "stream requests" "$OUT"
[ "$(stat_of pages_migrated_user)" -gt 0 ] && ok "stream: pages moved by UVM_MIGRATE" || fail "stream moved" "$STATS"
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 32 >/dev/null
sbase=$(uvmsim stats | awk '$1 == "fault_entries" { print $2 }')
[ "$(stat_of fault_entries)" -lt $((sbase / 2)) ] && ok "stream: faults $(stat_of fault_entries) < half of $sbase" ||
	fail "stream faults" "$(stat_of fault_entries) vs $sbase"

uvmsim reset va_blocks 1024 >/dev/null
expect_exit 0 $G -j prefetch load stream $MAX confidence 3 -- uvmsim run random blocks 1024 count 64 wait_ms 300 slice 4 gap_ms 20
expect_json_eq "stream on random accesses (confidence 3): nothing migrated" .requests 0

# --- stride: every third block ----------------------------------------------
uvmsim reset va_blocks 64 >/dev/null
uvmsim run stride blocks 64 stride 1536 >/dev/null
dbase=$(uvmsim stats | awk '$1 == "fault_entries" { print $2 }')
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load stride $MAX -- uvmsim run stride blocks 64 stride 1536 wait_ms 300 slice 2 gap_ms 20
STATS=$(uvmsim stats)
expect_json_eq "stride: the stride is 3 blocks" .stride 3
expect_json_eq "stride: no call refused" .errors 0
[ "$(stat_of pages_migrated_user)" -gt 0 ] && ok "stride: blocks moved ahead" || fail "stride moved" "$STATS $OUT"
[ "$(stat_of fault_entries)" -lt "$dbase" ] && ok "stride: faults $(stat_of fault_entries) < $dbase" ||
	fail "stride faults" "$(stat_of fault_entries) vs $dbase"

# --- populate on fresh allocations (first touches) ---------------------------
uvmsim reset va_blocks 64 >/dev/null
# hold_ms: the target lives on while a loaded engine drains its queue (calls
# on the ranges of a process that has exited are refused, and counted)
expect_exit 0 $G -j prefetch load populate $MAX -- uvmsim run alloc blocks 16 wait_ms 300 slice 32 gap_ms 20 hold_ms 500
STATS=$(uvmsim stats)
[ "$(jnum allocations)" -ge 2 ] && ok "populate: each fresh allocation found ($(jnum allocations))" ||
	fail "populate allocations" "$OUT"
# the model touches an allocation all at once, right after mapping it: the
# engine comes too late to save those faults, but must move each allocation
[ "$(stat_of user_migrations)" -ge 2 ] && ok "populate: UVM_MIGRATE per fresh allocation" ||
	fail "populate first touches" "$STATS; $OUT"
expect_json_eq "populate: allocations: no call refused" .errors 0

# --- the cap: no call moves more than allowed ---------------------------------
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch load populate --max-bytes 4M -- uvmsim run seq blocks 16 $SLOW
STATS=$(uvmsim stats)
[ "$(jnum capped)" -ge 1 ] && ok "cap: requests cut ($(jnum capped))" || fail "cap" "$OUT"
[ "$(jnum migrated_bytes)" -le $(( $(jnum ioctls) * 4194304 )) ] && ok "cap: no call above 4 MiB" ||
	fail "cap per call" "$OUT"

# --- detach, show, a second engine, unload -----------------------------------
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 1 pages 1 hold_ms 60000 >/dev/null 2>&1 &
P=$!
sleep 0.5
expect_exit 0 $G prefetch load stream -p $P --detach $MAX distance 4
[ -s "$GPUCTL_RUN_DIR/prefetch/$P.pid" ] && ok "detach: the pid file" || fail "detach" "no pid file"
EP=$(cut -d" " -f1 "$GPUCTL_RUN_DIR/prefetch/$P.pid" 2>/dev/null)
kill -0 "$EP" 2>/dev/null && ok "detach: the engine runs ($EP)" || fail "detach" "no engine"
sleep 1.2
expect_exit 0 $G -j prefetch show
expect_json_eq "show: the engine's target" ".engines[0].pid" "$P"
expect_json_eq "show: its policy" ".engines[0].policy" stream
expect_json_eq "show: its engine pid" ".engines[0].engine_pid" "$EP"
expect_exit 0 $G prefetch show
expect_out "show: a line per engine" "^engine on pid $P: .*policy stream"
expect_out "show: bytes in human units beside the count" "^engine on pid $P: .* migrated_bytes [0-9]+ \\([0-9.]+ (B|KiB|MiB|GiB)\\)"
expect_exit 1 $G prefetch load populate -p $P --detach $MAX
expect_stderr_line "a second engine on the same process"
expect_err "second engine: names the first" "already runs as pid $EP"
expect_exit 1 $G prefetch load populate -p $P $MAX
expect_stderr_line "a second (foreground) engine"
expect_exit 0 $G prefetch unload -p $P
kill -0 "$EP" 2>/dev/null && fail "unload" "engine $EP still runs" || ok "unload: the engine ended"
[ ! -e "$GPUCTL_RUN_DIR/prefetch/$P.pid" ] && [ ! -e "$GPUCTL_RUN_DIR/prefetch/$P.stats" ] &&
	ok "unload: its files gone" || fail "unload files" "$(ls "$GPUCTL_RUN_DIR/prefetch")"
kill -0 $P 2>/dev/null && ok "unload: the target runs on" || fail "unload" "the target died"
expect_exit 0 $G prefetch unload -p $P
expect_err "unload again: nothing to do" "no prefetch engine on process $P"

# --- kill -9 of the engine leaves the target unharmed ------------------------
expect_exit 0 $G prefetch load populate -p $P --detach $MAX
EP=$(cut -d" " -f1 "$GPUCTL_RUN_DIR/prefetch/$P.pid" 2>/dev/null)
kill -9 "$EP"
sleep 0.3
kill -0 $P 2>/dev/null && ok "kill -9 engine: the target runs on" || fail "kill -9" "the target died"
expect_exit 0 $G -j prefetch show
printf '%s' "$OUT" | grep -q "\"engine_pid\":$EP" && fail "kill -9: show" "still lists $EP" ||
	ok "kill -9: show no longer lists the engine"
expect_exit 0 $G -j prefetch load none -p $P --duration 1 $MAX
ok "kill -9: a new engine takes the stale pid file"

# --- the target's exit ends the engine ---------------------------------------
expect_exit 0 $G prefetch load stride -p $P --detach $MAX
EP=$(cut -d" " -f1 "$GPUCTL_RUN_DIR/prefetch/$P.pid" 2>/dev/null)
kill $P
wait $P 2>/dev/null
for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$EP" 2>/dev/null || break; sleep 0.2; done
kill -0 "$EP" 2>/dev/null && fail "target exit" "engine $EP still runs" || ok "target exit: the engine ended"
[ ! -e "$GPUCTL_RUN_DIR/prefetch/$P.pid" ] && ok "target exit: the engine removed its pid file" ||
	fail "target exit" "pid file left"

# --- migrate and advise: one call on another process -------------------------
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 1 pages 1 hold_ms 60000 >/dev/null 2>&1 &
P=$!
sleep 0.5
uvmsim reset va_blocks 64 >/dev/null
expect_exit 0 $G -j prefetch migrate -p $P $B 4M --max-bytes 16M
expect_json_eq "migrate: bytes" .bytes 4194304
expect_json_eq "migrate: to the process's GPU" .to "$GPU"
STATS=$(uvmsim stats)
[ "$(stat_of pages_migrated_user)" = 1024 ] && ok "migrate: 1024 pages moved" || fail "migrate" "$STATS"
expect_exit 0 $G prefetch migrate -p $P $B 8M --max-bytes 2M
expect_err "migrate: says it cut the request (human units)" "capped: 2.0 MiB of the 8.0 MiB asked for"
expect_exit 0 $G prefetch migrate -p $P $B 4M --to cpu
expect_out "migrate: the amount and the time in human units" "^migrated 4\\.0 MiB of process $P at 0x[0-9a-f]+ to cpu in [0-9.]+ (ns|us|ms|s)$"
STATS=$(uvmsim stats)
[ "$(stat_of pages_migrated_to_cpu)" -ge 1024 ] && ok "migrate --to cpu" || fail "migrate to cpu" "$STATS"
expect_exit 0 $G prefetch advise -p $P $B 2M preferred-location $GPU
expect_exit 0 $G prefetch advise -p $P $B 2M read-duplication
STATS=$(uvmsim stats)
[ "$(stat_of pages_preferred_gpu)" = 512 ] && [ "$(stat_of pages_read_dup)" = 512 ] &&
	ok "advise: preferred location and read duplication set" || fail "advise" "$STATS"
expect_exit 0 $G prefetch advise -p $P $B 2M unset-preferred-location
expect_exit 0 $G prefetch advise -p $P $B 2M accessed-by
STATS=$(uvmsim stats)
[ "$(stat_of pages_preferred_gpu)" = 0 ] && [ "$(stat_of pages_accessed_by)" = 512 ] &&
	ok "advise: unset, accessed-by" || fail "advise 2" "$STATS"

# --- bad inputs: exit 1, one error line ------------------------------------------
bad1() {	# bad1 WHAT TEXT CMD...
	what=$1 text=$2
	shift 2
	expect_exit 1 "$@" && expect_stderr_line "$what" && expect_err "$what: says so" "$text"
}
bad1 "migrate: not managed memory" "is not managed memory of process $P" \
	$G prefetch migrate -p $P 0x10000000 4096 --max-bytes 1M
bad1 "migrate: past the mapping" "is not managed memory" \
	$G prefetch migrate -p $P $B 256M --max-bytes 1M
bad1 "migrate: a GPU the process does not use" "does not use GPU $OTHER" \
	$G prefetch migrate -p $P $B 4096 --to $OTHER --max-bytes 1M
bad1 "advise: a GPU the process does not use" "does not use GPU $OTHER" \
	$G prefetch advise -p $P $B 2M accessed-by $OTHER
bad1 "engine: a GPU the process does not use" "does not use GPU $OTHER" \
	$G prefetch load stream -p $P --gpu $OTHER $MAX
bad1 "engine: free memory unknown, no --max-bytes" "give --max-bytes" \
	$G prefetch load stream -p $P
bad1 "migrate: free memory unknown, no --max-bytes" "give --max-bytes" \
	$G prefetch migrate -p $P $B 4096
bad1 "engine: no such process" "no process with pid 4194000" \
	$G prefetch load stream -p 4194000 $MAX
sleep 30 &
S=$!
bad1 "engine: a process without a UVM context" "has no GPU context" \
	$G prefetch load stream -p $S $MAX
bad1 "migrate: a process without a UVM context" "has no GPU context" \
	$G prefetch migrate -p $S $B 4096 --max-bytes 1M
kill $S
bad1 "engine: without CAP_SYS_PTRACE" "CAP_SYS_PTRACE" \
	as_nobody $G prefetch load stream -p $P $MAX
bad1 "migrate: without CAP_SYS_PTRACE" "CAP_SYS_PTRACE" \
	as_nobody $G prefetch migrate -p $P $B 4096 --max-bytes 1M
bad1 "-- CMD that never uses the GPU" "exited before it used the GPU" \
	$G prefetch load stream $MAX -- true
expect_exit 2 $G prefetch load stream -p $P --gpu nonsense $MAX
expect_stderr_line "a malformed UUID"
[ -z "$(ls -A "$GPUCTL_RUN_DIR/prefetch")" ] && ok "the refused engines left no file" ||
	fail "refused engines" "$(ls -A "$GPUCTL_RUN_DIR/prefetch")"
kill $P
wait $P 2>/dev/null
kill -0 $P 2>/dev/null && fail "target" "still there" || ok "the target exited normally"

echo 0 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
summary
