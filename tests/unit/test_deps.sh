#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/test_deps.sh - the set-up: README names every package
# tests/deps.sh installs, no kernel package is among them, and the VM kernel
# cache (tests/vm/kernel-cache) is complete, points into itself and belongs
# to no dpkg package.  The cache checks are skipped when there is no cache.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

pkgs=$(sed -n '/^BACKPORTS=(/,/)/p; /^PACKAGES=(/,/)/p' tests/deps.sh |
	sed 's/^[A-Z]*=(//; s/)$//; s/#.*//' | tr -s ' \t' '\n\n' | sed '/^$/d')
[ "$(printf '%s\n' "$pkgs" | wc -l)" -gt 10 ] && ok "deps.sh package lists read" ||
	fail "deps.sh package lists read" "got: $pkgs"
missing=
for p in $pkgs; do
	grep -qF "\`$p\`" README.md || missing="$missing $p"
done
[ -z "$missing" ] && ok "README names every package deps.sh installs" ||
	fail "README names every package deps.sh installs" "missing:$missing"
if printf '%s\n' "$pkgs" | grep -qE '^linux-(image|headers)'; then
	fail "deps.sh installs no kernel package" "$(printf '%s\n' "$pkgs" | grep -E '^linux-')"
else
	ok "deps.sh installs no kernel package"
fi
expect_exit 0 tests/deps.sh --help
expect_exit 0 tests/vm/kernel-cache --help

if ! tests/vm/kernel-cache --check; then
	echo "skip VM kernel cache checks (no cache; run 'make deps')"
	summary
fi
expect_exit 0 tests/vm/kernel-cache --print
eval "$OUT"
[ -s "$VM_KERNEL" ] && ok "cached kernel image $VM_KERNEL" || fail "cached kernel image" "$VM_KERNEL"
[ -s "$KDIR/vmlinux" ] && ok "cached headers have vmlinux (module BTF)" || fail "headers vmlinux" "$KDIR"
grep -qx "include $SYSSRC/Makefile" "$KDIR/Makefile" && ok "headers Makefile includes the cached common one" ||
	fail "headers Makefile" "$(cat "$KDIR/Makefile")"
case $VM_KERNEL in
/boot/*) fail "kernel outside /boot" "$VM_KERNEL" ;;
*) ok "kernel outside /boot" ;;
esac
if dpkg -S "$VM_KERNEL" >/dev/null 2>&1; then
	fail "no dpkg package owns the cached kernel" "$(dpkg -S "$VM_KERNEL")"
else
	ok "no dpkg package owns the cached kernel"
fi
t0=$(date +%s%N)
tests/vm/kernel-cache >/dev/null 2>&1
t=$((($(date +%s%N) - t0) / 1000000))
[ "$t" -lt 5000 ] && ok "kernel-cache with the kernel cached: ${t} ms" ||
	fail "kernel-cache with the kernel cached is quick" "${t} ms"
summary
