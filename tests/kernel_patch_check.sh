#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/kernel_patch_check.sh VERSION: the build half of the kernel-patch
# test for one driver version, run by tests/unit/test_kernel_patch_BRANCH.sh.
# With KERNEL_PATCH_CHECK=1 (CI; about 5 min a version on 2 cores, needs the
# NVIDIA source (Debian's package for 550, /work/shared/nvidia or GitHub for
# the others) and the VM kernel headers of tests/vm/kernel-cache):
# 'make -C kernel-patch check V=VERSION': the series applies to a fresh tree
# with --fuzz=0, nvidia.ko and nvidia-uvm.ko build unpatched then patched,
# no new warnings, every hook behind one pointer test, BTF parity with
# tests/model/uvm_model.ko.  Without it: a skip line and no test.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
v=${1:?usage: tests/kernel_patch_check.sh VERSION}
if [ -z "${KERNEL_PATCH_CHECK:-}" ]; then
    printf 'skip make -C kernel-patch check V=%s (set KERNEL_PATCH_CHECK=1; minutes)\n' "$v"
elif make -s -C kernel-patch check V="$v" > "$T_DIR/check.log" 2>&1; then
    ok "make -C kernel-patch check V=$v"
    grep -E '^(ok|warnings|note|time):' "$T_DIR/check.log" | sed 's/^/     /'
else
    fail "make -C kernel-patch check V=$v" "$(grep -E '^FAIL' "$T_DIR/check.log" | head -n 5)"
    tail -n 30 "$T_DIR/check.log"
fi
summary
