#!/bin/sh
# issue 32 on the model: what a replaced file, a FIFO, an ordinary user and a
# second run directory can do to root's engine and policy loads.
#  - load file FIFO (prefetch, evict, replay: the struct_ops loader) ends at
#    once with one Error line; another user's object is refused there too;
#  - a non-root `prefetch unload -p PID` says it may not (exit 1) while
#    root's engine runs, and the engine runs on;
#  - `prefetch load ENGINE -- CMD`: CMD's status when it fails before it uses
#    the GPU;
#  - one engine per process whatever its run directory: a second one from
#    another $GPUCTL_RUN_DIR is refused, and that run directory's sweep
#    leaves the first engine's pins alone.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/model.sh"
G=$GPUCTL
PINS=/sys/fs/bpf/gpuctl/engine
NOBODY=65534
as_nobody() { tests/tools/bpfpoke user $NOBODY "$@"; }
echo 1 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR" "$T_DIR/run2"
chmod 711 "$T_DIR"
MAX="--max-bytes 256M"	# no NVML in the VM

# --- the struct_ops loader: a FIFO, another user's object ------------------------
mkfifo "$T_DIR/fifo"
for obj in prefetch evict replay; do
	expect_exit 1 timeout 30 $G $obj load file "$T_DIR/fifo"
	expect_stderr_line "$obj load file FIFO"
	expect_err "$obj load file FIFO: says why" "not a regular file \(a FIFO\)"
done
mkdir -m 1777 "$T_DIR/pub"
as_nobody sh -c "cat tests/policies/user_half.elf >$T_DIR/pub/planted.o; chmod 644 $T_DIR/pub/planted.o"
expect_exit 1 $G prefetch load file "$T_DIR/pub/planted.o"
expect_stderr_line "struct_ops: another user's object"
expect_err "struct_ops: another user's object: says why" "owned by uid $NOBODY"
cp tests/policies/user_half.elf "$T_DIR/pub/mine.o"
expect_exit 0 $G prefetch load file "$T_DIR/pub/mine.o"
expect_exit 0 $G prefetch unload

# --- -- CMD that fails before it uses the GPU ---------------------------------------
expect_exit 3 $G prefetch load stream $MAX -- sh -c 'exit 3'
expect_err "-- CMD: its status, and why" "exited before it used the GPU"

# --- one engine per process, whatever the run directory -----------------------------
uvmsim reset va_blocks 64 >/dev/null
uvmsim run seq blocks 1 pages 1 hold_ms 60000 >/dev/null 2>&1 &
P=$!
sleep 0.5
expect_exit 0 $G prefetch load stream -p $P --detach $MAX
[ -e "$PINS/$P/params" ] && ok "engine A pinned" || fail "engine A" "$(ls $PINS 2>&1)"
expect_exit 1 env GPUCTL_RUN_DIR="$T_DIR/run2" $G prefetch load populate -p $P --detach $MAX
expect_stderr_line "a second engine from another run directory"
expect_err "a second engine: says why" "engine on process $P already runs as pid [0-9]+ .one engine per process"
expect_exit 0 env GPUCTL_RUN_DIR="$T_DIR/run2" $G prefetch show
[ -e "$PINS/$P/params" ] && ok "another run directory's sweep leaves engine A's pins" ||
	fail "engine A's pins" "removed by run2's sweep"

# --- a user's unload of root's engine ------------------------------------------------
expect_exit 1 as_nobody $G prefetch unload -p $P
expect_stderr_line "non-root unload"
expect_err "non-root unload: says why" "needs root"
[ -e "$PINS/$P/params" ] && $G prefetch show | grep -q "^engine on pid $P:" &&
	ok "non-root unload: the engine runs on" || fail "non-root unload" "the engine is gone"
expect_exit 0 $G prefetch unload -p $P
[ ! -e "$PINS/$P" ] && ok "unload: the pins gone" || fail "unload pins" "$(ls $PINS/$P)"
ls /run/gpuctl-engines/ 2>/dev/null | grep -q "^$P-" && fail "unload: the claim" "$(ls /run/gpuctl-engines)" ||
	ok "unload: its claim gone"
expect_exit 0 env GPUCTL_RUN_DIR="$T_DIR/run2" $G prefetch load populate -p $P --detach $MAX
expect_exit 0 env GPUCTL_RUN_DIR="$T_DIR/run2" $G prefetch unload -p $P
kill $P
wait $P 2>/dev/null

echo 0 >/sys/module/${MODEL_NAME:-uvm_model}/parameters/tools_device
summary
