#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/test_probe_driver.sh - gpuctl probe's NVIDIA driver version,
# kernel-patch series and UVM hook lines, on fake /sys and /proc trees
# (GPUCTL_SYSROOT). No root, no driver. The hooks' ABI read from a loaded
# module's BTF is tested in the VM (tests/vm/t_boot.sh, the model module).
# Then: the verdict first, open and proprietary drivers told apart, where
# make -C kernel-patch install is (or the man page, for a packaged gpuctl),
# no advice that does not apply (capabilities this kernel does not need,
# "run as root" to root, devices of a driver that is not loaded).
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
has "no driver: says which driver" "-> install and load NVIDIA's open kernel modules \\(nvidia-open; the hooks have series for 550\\.163\\.01 580\\.142 595\\.45\\.04\\)"

# --- the verdict first ------------------------------------------------------
first=$(printf '%s\n' "$TEXT" | head -6)
want='^verdict \(details below\)
  prefetch policies  (yes|no): .+
  prefetch engine    (yes|no): .+
  sched              (yes|no): .+
  trace/stat         (yes|no): .+
  exporter           (yes|no): .+$'
if python3 -c 'import re,sys; sys.exit(0 if re.fullmatch(sys.argv[1], sys.argv[2]) else 1)' "$want" "$first"; then
	ok "verdict: the first six lines"
else
	fail "verdict: the first six lines" "$first"
fi
expect_json_expr "-j: verdict with the five, each available and why" \
    'list(j["verdict"]) == ["prefetch_policies", "prefetch_engine", "sched", "trace_stat", "exporter"] and all(type(v["available"]) is bool and v["why"] for v in j["verdict"].values())'
expect_json_expr "-j: verdict is the first member" 'list(j)[0] == "verdict"'

# --- open and proprietary ----------------------------------------------------
OPEN='NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.142  Release Build  (dvs-builder@U22)'
PROP='NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.142  Release Build  (dvs-builder@U22)'
probe_with 580.142 "$PROP"
has "proprietary: named" '^  driver kind +proprietary kernel modules$'
has "proprietary: says to switch to the open modules" '-> gpuctl.s hooks are built on NVIDIA.s open kernel modules.*nvidia-open'
has "proprietary: hooks hint loads the open modules first" '-> load NVIDIA.s open kernel modules of 580\.142, then build a patched nvidia-uvm for 580\.142'
has "proprietary: the policies verdict says why" '^  prefetch policies  no: the NVIDIA driver is the proprietary one'
expect_json_expr "proprietary -j: driver_kind" 'j["nvidia"]["driver_kind"] == "proprietary" and j["verdict"]["prefetch_policies"]["available"] is False'
probe_with 580.142 "$OPEN"
has "open: named" '^  driver kind +open kernel modules$'
has "open: policies blocked by the stock module" '^  prefetch policies  no: the stock nvidia-uvm 580\.142 has no hooks \(kernel-patch series 580\.142\)$'
expect_json_expr "open -j: driver_kind" 'j["nvidia"]["driver_kind"] == "open"'
probe_with ""
expect_json_expr "no driver -j: driver_kind null" 'j["nvidia"]["driver_kind"] is None'

# --- where the kernel-patch is ------------------------------------------------
# From the tree, elsewhere: its path; a copy without kernel-patch/ beside it
# (a package, the static binary, the image): the man page it came with.
echo 580.142 > "$R/sys/module/nvidia/version"
(cd / && GPUCTL_SYSROOT=$R "$G" probe) > "$T_DIR/o" 2>&1
grep -qF -- "-> build a patched nvidia-uvm for 580.142 and swap it in: make -C $(pwd)/kernel-patch install (series 580.142; see kernel-patch/README.md)" "$T_DIR/o" &&
	ok "run from elsewhere: make -C TREE/kernel-patch" || fail "run from elsewhere" "$(grep -A1 'UVM hooks' "$T_DIR/o")"
mkdir -p "$T_DIR/pkg/sbin"
cp "$G" "$T_DIR/pkg/sbin/gpuctl"
GPUCTL_SYSROOT=$R "$T_DIR/pkg/sbin/gpuctl" probe > "$T_DIR/o" 2>&1
grep -qE -- "-> build a patched nvidia-uvm for 580\\.142 and swap it in: make -C kernel-patch install in gpuctl [0-9.]+'s source tree \\(series 580\\.142; see gpuctl-probe\\(8\\), DRIVER HOOKS\\)$" "$T_DIR/o" &&
	ok "packaged: the man page that came with it" || fail "packaged: the man page" "$(grep -A1 'UVM hooks' "$T_DIR/o")"
grep -q '^DRIVER HOOKS' man/gpuctl-probe.8.rst && ok "gpuctl-probe(8) has DRIVER HOOKS" ||
	fail "gpuctl-probe(8) has DRIVER HOOKS" "no such section"

# --- no advice that does not apply ---------------------------------------------
GPUCTL_SYSROOT=$R expect_exit 0 "$G" probe
TEXT=$OUT
if [ "$(id -u)" = 0 ]; then
	printf '%s\n' "$TEXT" | grep -q 'run as root' && fail "root: never told to run as root" "$(grep -B1 'run as root' <<<"$TEXT")" ||
		ok "root: never told to run as root"
fi
kmaj=$(uname -r | cut -d. -f1); kmin=$(uname -r | cut -d. -f2)
if [ "$kmaj" -gt 5 ] || { [ "$kmaj" = 5 ] && [ "$kmin" -ge 11 ]; }; then
	printf '%s\n' "$TEXT" | grep -A1 '^  CAP_SYS_RESOURCE' | grep -q -- '->' &&
		fail "CAP_SYS_RESOURCE: no advice on $(uname -r)" "$TEXT" || ok "CAP_SYS_RESOURCE: no advice on $(uname -r)"
	printf '%s\n' "$TEXT" | grep -A2 '^capabilities' >/dev/null
	printf '%s\n' "$TEXT" | grep -E -- '-> .*grant.*CAP_SYS_RESOURCE' && fail "CAP_SYS_RESOURCE never to grant on $(uname -r)" "$TEXT" ||
		ok "CAP_SYS_RESOURCE never to grant on $(uname -r)"
fi
if [ ! -e /dev/nvidiactl ] && [ ! -d /sys/module/nvidia ]; then
	has "no driver: rm (TSG events) is no" '^    rm \(TSG events\) +no: RM device /dev/nvidiactl missing'
	printf '%s\n' "$TEXT" | grep -A1 -E '^  /dev/nvidia' | grep -q -- '->' &&
		fail "no driver: no nvidia-modprobe advice for its devices" "$TEXT" ||
		ok "no driver: no nvidia-modprobe advice for its devices"
	n=$(printf '%s\n' "$TEXT" | grep -c "kernel-patch/ series")
	[ "$n" = 0 ] && ok "no driver: no per-type 'load a patched driver' lines" || fail "no driver: per-type hints" "$n lines"
fi
GPUCTL_RM_DEVICE=/nonexistent GPUCTL_SYSROOT=$R expect_exit 0 "$G" probe
TEXT=$OUT
has "RM device missing: rm (TSG events) is no" '^    rm \(TSG events\) +no: RM device /nonexistent missing'
has "RM device missing: sched verdict says it" '^  sched              no: RM device /nonexistent missing'
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 711 "$T_DIR" "$T_DIR/pkg" "$T_DIR/pkg/sbin"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$T_DIR/pkg/sbin/gpuctl" probe > "$T_DIR/o" 2>&1
	grep -qE -- '-> run as root or grant CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYS_PTRACE \(' "$T_DIR/o" &&
		ok "nobody: one line names the capabilities to grant" || fail "nobody: capabilities" "$(grep -A8 '^capabilities' "$T_DIR/o")"
	grep -q '^  exporter           no: needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) and CAP_SYS_PTRACE$' "$T_DIR/o" &&
		ok "nobody: exporter verdict names the capabilities" || fail "nobody: exporter verdict" "$(head -6 "$T_DIR/o")"
fi

summary
