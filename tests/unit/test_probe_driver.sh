#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/test_probe_driver.sh - gpuctl probe's NVIDIA driver version,
# kernel-patch series and UVM hook lines, on fake /sys and /proc trees
# (GPUCTL_SYSROOT). No root, no driver. The hooks' ABI read from a loaded
# module's BTF is tested in the VM (tests/vm/t_boot.sh, the model module).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
R=$T_DIR/root
mkdir -p "$R/sys/module/nvidia" "$R/proc/driver/nvidia"

# probe_with TEXT-OF-/sys/module/nvidia/version [TEXT-OF-/proc/...]
probe_with() {
    rm -f "$R/sys/module/nvidia/version" "$R/proc/driver/nvidia/version"
    [ -n "$1" ] && echo "$1" > "$R/sys/module/nvidia/version"
    [ -n "${2:-}" ] && echo "$2" > "$R/proc/driver/nvidia/version"
    GPUCTL_SYSROOT=$R expect_exit 0 "$G" probe
    TEXT=$OUT
    GPUCTL_SYSROOT=$R expect_exit 0 "$G" -j probe && expect_json "probe -j"
}
has() {	# has NAME REGEX: a line of the text output matches
    if printf '%s\n' "$TEXT" | grep -qE -- "$2"; then ok "$1"; else fail "$1" "$(printf '%s\n' "$TEXT" | grep -A1 -E 'driver version|series|UVM hooks')"; fi
}

probe_with 580.142
has "580.142: version from sysfs" '^  driver version +580\.142$'
has "580.142: its own series" '^  kernel-patch series +580\.142$'
has "580.142: no hooks here" '^  UVM hooks +no$'
has "580.142: hint names make -C kernel-patch install" '-> build a patched nvidia-uvm for 580\.142 and swap it in: make -C kernel-patch install \(series 580\.142; see'
expect_json_expr "580.142 -j: driver version, series, no hooks, gpuctl's ABI" \
    'j["nvidia"]["driver_version"] == "580.142" and j["nvidia"]["uvm_hooks"]["series"] == "580.142" and j["nvidia"]["uvm_hooks"]["abi"] is None and j["nvidia"]["uvm_hooks"]["module"] is None and j["nvidia"]["uvm_hooks"]["gpuctl_abi"] == 1 and "make -C kernel-patch install" in j["nvidia"]["uvm_hooks"]["hint"]'

probe_with 580.159.04
has "580.159.04: same-branch series" '^  kernel-patch series +580\.142 \(same branch\)$'
has "580.159.04: hint says it is tried" 'series 580\.142, same branch, used if it applies without fuzz'

probe_with "" 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  595.45.04  Release Build  (dvs-builder@U22)  Thu Mar  5 2026'
has "595.45.04: version from procfs" '^  driver version +595\.45\.04$'
has "595.45.04: its series" '^  kernel-patch series +595\.45\.04$'

probe_with 570.86.15
has "570: no series" '^  kernel-patch series +none$'
has "570: says which drivers have one" '-> NVIDIA 570\.86\.15 has no kernel-patch series \(550\.163\.01 580\.142 595\.45\.04\): policies need one of those drivers'
expect_json_expr "570 -j: series null" 'j["nvidia"]["uvm_hooks"]["series"] is None'

probe_with "garbage"
has "unreadable version: none" '^  driver version +none$'
has "no driver: hint to load it" '-> load the NVIDIA driver, then: make -C kernel-patch install'

summary
