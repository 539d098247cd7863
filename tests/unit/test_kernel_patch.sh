#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/test_kernel_patch.sh - the kernel-patch series.
#
# Always (seconds, no root): series/ is exactly what 'make -C kernel-patch
# series' generates from the plain sources; each patch is well formed (one
# subject, Signed-off-by, diffstat); the patches apply in order to an empty
# tree for their new files; btf-parity parses.
# The build of each version (KERNEL_PATCH_CHECK=1, minutes each) is
# tests/unit/test_kernel_patch_BRANCH.sh, one script per line of
# versions/list (checked here), each under a third of its time limit.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

KP=kernel-patch

gen=$T_DIR/series
if $KP/scripts/mkseries "$gen" > "$T_DIR/mk.log" 2>&1; then
    ok "mkseries runs"
else
    fail "mkseries runs" "$(tail -n 3 "$T_DIR/mk.log")"
fi
if diff -r $KP/series "$gen" > "$T_DIR/diff" 2>&1; then
    ok "series/ is up to date (make -C kernel-patch series)"
else
    fail "series/ is up to date" "regenerate with 'make -C kernel-patch series': $(head -n 5 "$T_DIR/diff")"
fi
gen2=$T_DIR/series2
$KP/scripts/mkseries "$gen2" > /dev/null 2>&1
if diff -r "$gen" "$gen2" > /dev/null 2>&1; then
    ok "series generation is deterministic"
else
    fail "series generation is deterministic" "two runs differ"
fi

versions=$(awk '!/^#/ && NF { print $1 }' $KP/versions/list)
[ "$(echo $versions)" = "550.163.01 580.142 595.45.04" ] &&
    ok "series for 550.163.01 580.142 595.45.04" || fail "series for 550, 580, 595" "versions/list: $versions"
[ "$(cd $KP/series && echo */)" = "$(printf '%s/ ' $versions | sed 's/ $//')" ] &&
    ok "series/ holds exactly the listed versions" || fail "series/ holds exactly the listed versions" "$(ls $KP/series)"

for v in $versions; do
S=$KP/series/$v
n=0
for p in $S/000[1-9]-*.patch; do
    n=$((n + 1))
    name=$v/$(basename "$p")
    if [ "$(grep -c '^Subject: \[PATCH [0-9]/3\] nvidia-uvm: ' "$p")" = 1 ] &&
       grep -q '^Signed-off-by: ' "$p" && grep -q ' files\? changed' "$p"; then
        ok "$name is well formed"
    else
        fail "$name is well formed" "subject, Signed-off-by or diffstat missing"
    fi
    if grep -q 'a/kernel-open/' "$p" && ! grep -E '^(\+\+\+|---) [ab]/' "$p" | grep -qv ' [ab]/kernel-open/'; then
        ok "$name touches kernel-open/ only"
    else
        fail "$name touches kernel-open/ only" "paths outside kernel-open/"
    fi
done
[ "$n" = 3 ] && ok "$v: three patches" || fail "$v: three patches" "found $n"
if grep -q '@SHORTLOG@\|@DIFFSTAT@\|@VERSION' $S/0000-cover-letter.patch; then
    fail "$v: cover letter filled in" "placeholders left"
else
    ok "$v: cover letter filled in"
fi
grep -q "^This is the series for open-gpu-kernel-modules $v\. " $S/0000-cover-letter.patch &&
    grep -q "^ - Source: " $S/0000-cover-letter.patch &&
    ok "$v: cover letter names its version and what differs" ||
    fail "$v: cover letter names its version and what differs" "no version notes"

# The new files of the series are the plain sources, byte for byte.
for f in uvm_bpf_ext.h uvm_bpf_ext.c; do
    awk -v f="kernel-open/nvidia-uvm/$f" '
        /^diff --git / { on = ($3 == "a/" f) ; next }
        on && /^@@/ { body = 1; next }
        on && body && /^\+/ { print substr($0, 2); next }
        on && body { on = 0 }' $S/0001-*.patch > "$T_DIR/$f"
    if cmp -s "$T_DIR/$f" $KP/nvidia-uvm/$f; then
        ok "$v: 0001 carries nvidia-uvm/$f unchanged"
    else
        fail "$v: 0001 carries nvidia-uvm/$f unchanged" "differs"
    fi
done

# Static guarantees of the hook sites, read from the series itself.
if grep -q '^+    action = uvm_bpf_prefetch_attached() ?' $S/0001-*.patch &&
   grep -q 'rcu_access_pointer(uvm_bpf_prefetch_ops) != NULL' $KP/nvidia-uvm/uvm_bpf_ext.h; then
    ok "$v: prefetch site tests one RCU pointer first"
else
    fail "$v: prefetch site tests one RCU pointer first" "hook site changed"
fi
if grep -q '^+    UVM_PERF_FAULT_REPLAY_POLICY_EBPF,' $S/0002-*.patch &&
   grep -q 'BUILD_BUG_ON(UVM_PERF_FAULT_REPLAY_POLICY_EBPF != UVM_PERF_FAULT_REPLAY_POLICY_EBPF_VALUE)' $S/0002-*.patch; then
    ok "$v: replay policy EBPF is 4 at build time"
else
    fail "$v: replay policy EBPF is 4 at build time" "enum or BUILD_BUG_ON missing"
fi
if grep -q '^+int uvm_pmm_bpf_chunk_move(uvm_gpu_chunk_t \*chunk, struct list_head \*used_list, bool to_head)' $S/0003-*.patch; then
    ok "$v: driver provides uvm_pmm_bpf_chunk_move"
else
    fail "$v: driver provides uvm_pmm_bpf_chunk_move" "not in 0003"
fi

# scripts/zero-cost on the post-image of the hunks (added and context lines
# per file): passes as generated, fails when one guard is dropped.
zc=$T_DIR/zc-$v/nvidia-uvm
mkdir -p "$zc"
awk -v d="$zc" '
    /^diff --git / { f = ""; next }
    /^\+\+\+ b\/kernel-open\/nvidia-uvm\// { f = d "/" substr($2, 26); next }
    /^(---|\+\+\+) / { next }
    f != "" && /^[ +]/ { print substr($0, 2) >> f }' $S/000[1-3]-*.patch
if $KP/scripts/zero-cost "$zc/.." > "$T_DIR/zc.log" 2>&1; then
    ok "$v: zero-cost passes on the hook sites"
else
    fail "$v: zero-cost passes on the hook sites" "$(head -n 3 "$T_DIR/zc.log")"
fi
sed -i 's/if (uvm_bpf_evict_attached())$/if (true)/' "$zc/uvm_pmm_gpu.c"
if ! $KP/scripts/zero-cost "$zc/.." > "$T_DIR/zc.log" 2>&1 && grep -q 'pmm_bpf_evict_hook not behind' "$T_DIR/zc.log"; then
    ok "$v: zero-cost fails on an unguarded eviction hook"
else
    fail "$v: zero-cost fails on an unguarded eviction hook" "$(head -n 3 "$T_DIR/zc.log")"
fi
done

# The ABI version: in the header as an enum (BTF), and compared by btf-parity.
if grep -q '^	UVM_BPF_EXT_ABI_VERSION = 1,$' $KP/nvidia-uvm/uvm_bpf_ext.h &&
   grep -q '^const enum uvm_bpf_ext_abi uvm_bpf_ext_abi_version = UVM_BPF_EXT_ABI_VERSION;' $KP/nvidia-uvm/uvm_bpf_ext.c &&
   grep -q 'ENUMS=.*uvm_bpf_ext_abi' $KP/btf-parity; then
    ok "ABI version 1 is an enum in BTF, compared by btf-parity"
else
    fail "ABI version 1 is an enum in BTF, compared by btf-parity" "missing"
fi

# gpuctl probe's copies: the version list and the ABI version it speaks.
c_versions=$(sed -n 's/^const char \*const kpatch_versions\[\] = { \(.*\), NULL };$/\1/p' cmd/drv/nvdrv.c | tr -d '",')
[ "$c_versions" = "$(echo $versions)" ] && ok "cmd/drv/nvdrv.c lists the versions of versions/list" ||
    fail "cmd/drv/nvdrv.c lists the versions of versions/list" "'$c_versions'"
grep -q '^#define UVM_HOOKS_ABI 1$' cmd/drv/nvdrv.h && ok "gpuctl speaks ABI 1 (UVM_HOOKS_ABI)" ||
    fail "gpuctl speaks ABI 1 (UVM_HOOKS_ABI)" "UVM_HOOKS_ABI in cmd/drv/nvdrv.h differs from uvm_bpf_ext.h"

if bash -n $KP/btf-parity && $KP/btf-parity 2>/dev/null; [ $? = 2 ]; then
    ok "btf-parity usage"
else
    fail "btf-parity usage" "expected exit 2 without arguments"
fi

for v in $versions; do
    t=tests/unit/test_kernel_patch_${v%%.*}.sh
    grep -q "^tests/kernel_patch_check.sh $v\$" "$t" 2>/dev/null &&
        ok "$v: $t builds it" || fail "$v: $t builds it" "want a line 'tests/kernel_patch_check.sh $v' in $t"
done
for t in tests/unit/test_kernel_patch_[0-9]*.sh; do
    v=$(sed -n 's#^tests/kernel_patch_check.sh \(.*\)$#\1#p' "$t")
    grep -qx "$v" <<< "$versions" && ok "$t: $v is listed" || fail "$t: a listed version" "'$v' not in versions/list"
done

summary
