#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_rm_sched.sh - gpuctl sched without a GPU and without BPF: usage errors
# (exit 2, one line, JSON), missing capabilities named (capsh) for every
# command that changes state, the RM ABI
# sizes and ioctl numbers, and the RM status table.  GPUCTL=path/to/gpuctl.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if [ ! -x "$GPUCTL" ]; then
    echo "no gpuctl binary at $GPUCTL (build it, or set GPUCTL)" >&2
    exit 1
fi
G=$GPUCTL

# --- usage errors: exit 2, one line, nothing attempted -----------------------
expect_exit 0 "$G" sched && expect_out "sched alone is help (on stderr)" "^$"
expect_exit 0 "$G" sched help && expect_out "help on stdout? no: stderr" '^$'
expect_exit 2 "$G" sched set-timeslice 100 && expect_stderr_line "no target"
expect_exit 2 "$G" sched set-timeslice --tsg 1 && expect_stderr_line "no value"
expect_exit 2 "$G" sched set-timeslice --tsg 1 0 && expect_stderr_line "timeslice 0"
expect_exit 2 "$G" sched set-timeslice --tsg 1 1000000000001 && expect_stderr_line "timeslice too big"
expect_exit 2 "$G" sched set-timeslice --tsg 1 --pid 2 5 && expect_stderr_line "two targets"
expect_exit 2 "$G" sched set-timeslice --tsg x 5 && expect_stderr_line "bad TSG ID"
expect_exit 2 "$G" sched set-interleave --tsg 1 urgent && expect_stderr_line "bad level"
expect_exit 2 "$G" sched preempt --tsg 1 --timeout 5 && expect_stderr_line "timeout without wait"
expect_exit 2 "$G" sched preempt --tsg 1 --wait --timeout 2000000 && expect_stderr_line "timeout too big"
expect_exit 2 "$G" sched run && expect_stderr_line "run without policy"
expect_exit 2 "$G" sched run bogus && expect_stderr_line "unknown policy"
expect_exit 2 "$G" sched run lc-be && expect_stderr_line "lc-be without lc"
expect_exit 2 "$G" sched run lc-be lc name:x && expect_stderr_line "bad MATCH"
expect_exit 2 "$G" sched run lc-be lc comm:abcdefghijklmnopq && expect_stderr_line "comm too long"
expect_exit 2 "$G" sched run lc-be lc cgroup:/nonexistent-cg && expect_stderr_line "no such cgroup"
expect_exit 2 "$G" sched run fixed && expect_stderr_line "fixed without values"
expect_exit 2 "$G" sched run fixed timeslice 5 interleave top && expect_stderr_line "fixed bad level"
expect_exit 2 "$G" -j sched set-timeslice --tsg 1 0
expect_json "usage error under -j" && expect_json_expr "usage error object" '"error" in j'

# --- capabilities: named, before anything is attempted ------------------------
if command -v capsh >/dev/null && [ "$(id -u)" = 0 ]; then
    expect_exit 1 capsh --drop=cap_sys_ptrace -- -c "$G sched set-timeslice --tsg 1 100"
    expect_stderr_line "no CAP_SYS_PTRACE"
    case $ERR in *"missing: CAP_SYS_PTRACE"*) ok "CAP_SYS_PTRACE named" ;; *) fail "CAP_SYS_PTRACE named" "$ERR" ;; esac
    expect_exit 1 capsh --drop=cap_sys_admin,cap_bpf,cap_perfmon -- -c "$G sched list"
    expect_stderr_line "no BPF caps"
    case $ERR in *"CAP_SYS_ADMIN"*) ok "CAP_SYS_ADMIN named" ;; *) fail "CAP_SYS_ADMIN named" "$ERR" ;; esac
    expect_exit 1 capsh --drop=cap_sys_admin,cap_sys_ptrace -- -c "$G -j sched preempt --tsg 1"
    expect_json "caps error under -j"
    # every command that changes state checks first, and names what is missing
    for c in watch stop unload "run fixed timeslice 5" "set-interleave --tsg 1 low"; do
        expect_exit 1 capsh --drop=cap_sys_admin,cap_bpf,cap_perfmon,cap_sys_ptrace -- -c "$G sched $c"
        expect_stderr_line "no caps: $c"
        case $ERR in *"'sched ${c%% *}' needs CAP_"*"missing: CAP_"*) ok "$c: capability named" ;;
        *) fail "$c: capability named" "$ERR" ;; esac
    done
    # status changes nothing: with nothing pinned it answers without caps (gpuctl(8), EXIT STATUS)
    mkdir -p "$T_DIR/nobpf"
    expect_exit 0 env GPUCTL_BPFFS="$T_DIR/nobpf" capsh --drop=cap_sys_admin,cap_bpf,cap_perfmon,cap_sys_ptrace -- -c "$G sched status"
    expect_out "no caps, nothing pinned: status says so" "^watcher not running"
    expect_exit 1 capsh --drop=cap_sys_admin,cap_bpf,cap_perfmon -- -c "$G trace tsg --device /dev/null"
    expect_stderr_line "trace tsg without BPF caps"
    case $ERR in *"CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN"*"missing: CAP_BPF, CAP_PERFMON"*) ok "trace tsg: caps named" ;;
    *) fail "trace tsg: caps named" "$ERR" ;; esac
else
    echo "# capsh missing or not root: capability checks skipped"
fi

# --- RM ABI: struct sizes and ioctl numbers (the real driver's) --------------
cat >"$T_DIR/abi.c" <<'C'
#include <stdio.h>
#include "cmd/drv/rm.h"
int main(void)
{
	printf("%zu %zu %zu %zu %zu %zu\n", sizeof(struct nvos00_params),
	       sizeof(struct nvos21_params), sizeof(struct nvos64_params),
	       sizeof(struct nvos54_params), sizeof(struct nv_ioctl_xfer),
	       sizeof(struct a06c_preempt));
	printf("%#lx %#lx %#lx %#lx %#lx\n", (unsigned long)NV_IOC_FREE,
	       (unsigned long)NV_IOC_CONTROL, (unsigned long)NV_IOC_ALLOC21,
	       (unsigned long)NV_IOC_ALLOC64, (unsigned long)NV_IOC_XFER);
	printf("%s|%s|%s\n", rm_status_name(0x23), rm_status_msg(0x23), rm_status_name(0x12345));
	printf("%s %s %d %d\n", rm_status_name(0x56), rm_level_name(2), rm_level_parse("medium"),
	       rm_level_parse("x"));
	return 0;
}
C
if cc -std=gnu11 -Wall -Werror -I. -o "$T_DIR/abi" "$T_DIR/abi.c" cmd/drv/rm.c 2>"$T_DIR/cc.err"; then
    OUT=$("$T_DIR/abi")
    l1=$(sed -n 1p <<<"$OUT"); l2=$(sed -n 2p <<<"$OUT"); l3=$(sed -n 3p <<<"$OUT"); l4=$(sed -n 4p <<<"$OUT")
    [ "$l1" = "16 32 48 32 16 8" ] && ok "NVOS00/21/64/54, xfer, preempt sizes" || fail "sizes" "$l1"
    [ "$l2" = "0xc0104629 0xc020462a 0xc020462b 0xc030462b 0xc01046d3" ] && ok "ioctl numbers" || fail "ioctl numbers" "$l2"
    case $l3 in "NV_ERR_INVALID_CLIENT|"*"open file"*"|NV_STATUS_0x12345") ok "status names and messages" ;; *) fail "status" "$l3" ;; esac
    [ "$l4" = "NV_ERR_NOT_SUPPORTED high 1 -1" ] && ok "status 0x56, levels" || fail "levels" "$l4"
else
    fail "ABI test compiles" "$(head -c 300 "$T_DIR/cc.err")"
fi

# --- man page and completion ---------------------------------------------------
if command -v rst2man >/dev/null; then
    rst2man --halt=warning man/gpuctl-sched.8.rst >/dev/null 2>"$T_DIR/man.err" &&
        ok "gpuctl-sched.8 builds" || fail "man page" "$(cat "$T_DIR/man.err")"
fi
out=$(PATH="$(dirname "$G"):$PATH" bash -c 'source bash-completion/gpuctl; COMP_WORDS=(gpuctl sched set-t); COMP_CWORD=2; _gpuctl; echo "${COMPREPLY[@]}"')
[ "$out" = "set-timeslice" ] && ok "completion: sched commands" || fail "completion" "$out"
summary
