#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_pfengine_cli.sh - the per-process prefetch engine's command line on
# the host (no GPU, no /dev/nvidia-uvm-tools): every bad command line is
# exit 2 with one error line and touches nothing; what needs the driver is
# exit 1 with one error line; list/probe/unload answer; the struct_ops
# commands keep their words.  The VM test t_pfengine.sh runs the engine.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL
export GPUCTL_RUN_DIR=$T_DIR/run
mkdir -m 755 "$GPUCTL_RUN_DIR"

bad() {	# bad WHY ARGS...: exit 2, one error line containing WHY
    local why=$1; shift
    expect_exit 2 "$G" prefetch "$@" && expect_stderr_line "$*" &&
        case $ERR in *"$why"*) ok "'$*' says: $why" ;;
        *) fail "'$*' says: $why" "$ERR" ;; esac
}

# users' objects, good and bad (built here as the VM test builds them)
make -s $(for f in tests/policies/engine_*.bpf.c tests/policies/wrong_type.bpf.c; do echo "${f%.bpf.c}.elf"; done) ||
    fail "build of the test objects" "make"
bad "runs in the per-process engine" load stream
bad "runs in the per-process engine" load populate distance 2
bad "not both" load stream -p 1 -- true
bad "invalid pid" load stream -p abc
bad "invalid pid" load stream -p 0
bad "--gpu GPU-12" load stream -p 1 --gpu GPU-12
bad "no parameter 'nosuch'" load stream -p 1 nosuch 1
bad "invalid distance" load stream -p 1 distance 0
bad "needs a value" load stream -p 1 distance
bad "needs the driver's struct_ops hooks" load multilevel -p 1
bad "it speaks engine ABI version 99" load file tests/policies/engine_bad_abi.elf -p 1
bad "no SEC(\"syscall\") program" load file tests/policies/engine_bad_section.elf -p 1
bad "is a struct_ops policy" load file tests/policies/wrong_type.elf -p 1
bad "give -p PID or -- CMD" load file tests/policies/engine_example.elf
bad "no parameter 'nosuch'" load file tests/policies/engine_example.elf -p 1 nosuch 1
bad "'load file' needs a PATH" load file -p 1
bad "takes one KEY VALUE" set -p 1 distance
bad "invalid pid 'abc'" set -p abc distance 3
bad "unknown engine policy" load nosuch -p 1
bad "--detach takes -p PID" load stream --detach -- true
bad "are the engine's" load always_max --gpu GPU-4a1b2c3d-0011-2233-4455-66778899aabb
bad "are the engine's" load none --async
bad "system-wide" load stride -p 1 --backend struct_ops
bad "give -p PID or -- CMD" load stream --backend engine
bad "invalid --backend 'gpu'" load stream -p 1 --backend gpu
bad "at least 4KiB" load stream -p 1 --max-bytes 0
bad "at least 4KiB" load stream -p 1 --max-bytes 1
bad "at least 4KiB" load stream -p 1 --max-bytes 4095
bad "at least 4KiB" migrate -p 1 0x1000 4096 --max-bytes 1
bad "invalid --max-bytes" load stream -p 1 --max-bytes 1X
bad "'--' needs a command" load stream --
bad "option '-p' needs a value" unload -p
bad "invalid pid" unload -p x
bad "unexpected argument" unload -p 1 2
bad "needs -p PID" migrate 0x1000 4096
bad "needs ADDR and LENGTH" migrate -p 1 0x1000
bad "multiples of 4096" migrate -p 1 0x1001 4096
bad "multiples of 4096" migrate -p 1 0x1000 100
bad "nor 'cpu'" migrate -p 1 0x1000 4096 --to nowhere
bad "unknown option '--fast'" migrate -p 1 0x1000 4096 --fast
bad "unknown hint" advise -p 1 0x1000 4096 prefer-gpu
bad "needs a HINT" advise -p 1 0x1000 4096
bad "unexpected argument" advise -p 1 0x1000 4096 read-duplication cpu
bad "takes no arguments" probe now
bad "invalid --backend 'gpu'" list --backend gpu

# what needs the driver: exit 1, one line
if [ ! -e /dev/nvidia-uvm-tools ]; then
    expect_exit 1 "$G" prefetch load stream -p $$ && expect_stderr_line "engine without uvm-tools"
    case $ERR in *nvidia-uvm-tools*) ok "engine: names the missing device" ;;
    *) fail "engine: names the missing device" "$ERR" ;; esac
    expect_exit 1 "$G" prefetch migrate -p $$ 0x1000 4096 && expect_stderr_line "migrate without uvm-tools"
    expect_exit 1 "$G" prefetch advise -p $$ 0x1000 4096 read-duplication && expect_stderr_line "advise without uvm-tools"
    expect_exit 1 "$G" -j prefetch load stream -p $$
    expect_json "engine error under -j"
    expect_json_expr "engine error under -j is one error object" '"nvidia-uvm-tools" in j["error"]'
    expect_exit 0 "$G" prefetch probe
    expect_out "probe: engine unavailable, and why" '^engine: unavailable: .*nvidia-uvm-tools'
fi
[ -z "$(ls -A "$GPUCTL_RUN_DIR")" ] && ok "nothing left in the run dir" ||
    fail "nothing left in the run dir" "$(ls -A "$GPUCTL_RUN_DIR")"

# answers
expect_exit 1 "$G" prefetch load file tests/policies/engine_bad_verifier.elf -p 1
expect_stderr_line "verifier refusal"
case $ERR in *"the verifier refused it: R1 unbounded memory access"*"-d shows"*) ok "verifier refusal: its reason, one line" ;;
*) fail "verifier refusal" "$ERR" ;; esac
expect_exit 1 "$G" -d prefetch load file tests/policies/engine_bad_verifier.elf -p 1
case $ERR in *"processed "*"insns"*) ok "-d: the verifier's log" ;; *) fail "-d log" "$ERR" ;; esac
expect_exit 0 "$G" -j prefetch list --backend engine
expect_json "list --backend engine"
expect_json_expr "engine policies: none stream stride populate thrashing adaptive" \
    '[p["name"] for p in j] == ["none", "stream", "stride", "populate", "thrashing", "adaptive"]'
expect_json_expr "each parameter's default within its range" \
    'all(q["min"] <= q["default"] <= q["max"] for p in j for q in p["params"])'
expect_exit 0 "$G" -j prefetch probe
expect_json "probe -j"
expect_json_expr "probe -j: both back-ends with a reason" \
    'all(isinstance(j[k]["available"], bool) and j[k]["why"] for k in ("struct_ops", "engine"))'
expect_exit 0 "$G" prefetch unload -p 4194303
case $ERR in *"no prefetch engine on process 4194303"*) ok "unload -p with no engine: says so" ;;
*) fail "unload -p with no engine: says so" "$ERR" ;; esac
expect_exit 0 "$G" -j prefetch unload -p 4194303
expect_json_expr "unload -p with no engine under -j: null" 'j is None'
# a stale pid file (an engine killed with -9) is not an engine
mkdir -p -m 755 "$GPUCTL_RUN_DIR/prefetch"
echo 4194000 > "$GPUCTL_RUN_DIR/prefetch/777.pid"
expect_exit 0 "$G" prefetch unload -p 777
case $ERR in *"no prefetch engine"*) ok "stale pid file: no engine" ;;
*) fail "stale pid file: no engine" "$ERR" ;; esac
# an unsafe run dir is refused
chmod 777 "$GPUCTL_RUN_DIR/prefetch"
expect_exit 1 "$G" prefetch unload -p 777 && expect_stderr_line "unsafe run dir"
chmod 755 "$GPUCTL_RUN_DIR/prefetch"

summary
