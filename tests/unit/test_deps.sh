#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/test_deps.sh - the set-up: README names every package
# tests/deps.sh installs, no kernel package is among them, and the VM kernel
# cache (tests/vm/kernel-cache) is complete, points into itself and belongs
# to no dpkg package.  The cache checks are skipped when there is no cache.
# issue 32 item 13: the host's apt never gets trixie: deps.sh's apt source
# (tried in a temporary APT_ETC) names bookworm-backports only, replaces an
# older one with trixie in it and says so first, leaves others alone;
# fetch-nvidia-source (with apt-get and apt-cache stand-ins) reaches trixie
# only through its private source list.
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

# --- the apt source (issue 32 item 13)
AE=$T_DIR/etc-apt
mkdir -p "$AE/sources.list.d"
SRCF=$AE/sources.list.d/gpuctl.sources
no_trixie() {	# NAME
	if [ -f "$SRCF" ] && ! grep -qi trixie "$SRCF" && grep -q '^Suites: bookworm-backports$' "$SRCF"; then
		ok "$1: bookworm-backports only, no trixie"
	else
		fail "$1: bookworm-backports only, no trixie" "$(cat "$SRCF" 2>&1)"
	fi
}
if [ "$(id -u)" = 0 ]; then
	APT_ETC=$AE expect_exit 0 tests/deps.sh --sources
	case $OUT in *"adding $SRCF"*Suites:\ bookworm-backports*) ok "missing source: says what it adds, first" ;;
	*) fail "missing source: says what it adds" "$OUT" ;; esac
	no_trixie "missing source"
	cat >"$SRCF" <<'OLD'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm trixie
Components: contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
OLD
	APT_ETC=$AE expect_exit 0 tests/deps.sh --sources
	case $OUT in *"replacing $SRCF"*trixie*Suites:\ bookworm-backports*) ok "older unpinned source: says it replaces it and why" ;;
	*) fail "older unpinned source: says it replaces it" "$OUT" ;; esac
	no_trixie "older unpinned source replaced"
	sum=$(sha256sum <"$SRCF")
	APT_ETC=$AE expect_exit 0 tests/deps.sh --sources
	[ -z "$OUT" ] && [ "$(sha256sum <"$SRCF")" = "$sum" ] && ok "current source: left as it is, nothing said" ||
		fail "current source: left as it is" "$OUT"
	printf 'Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm-backports\nComponents: main\n' >"$SRCF"
	sum=$(sha256sum <"$SRCF")
	APT_ETC=$AE expect_exit 0 tests/deps.sh --sources
	[ "$(sha256sum <"$SRCF")" = "$sum" ] && ok "an edited source without trixie: left alone" ||
		fail "an edited source: left alone" "$(cat "$SRCF")"
else
	echo "skip the apt source checks (need root)"
fi

# fetch-nvidia-source: apt through its private list only
SB=$T_DIR/stub
mkdir -p "$SB" "$T_DIR/nvsrc"
cat >"$SB/apt-cache" <<'STUB'
#!/bin/sh
echo "apt-cache $*" >>"$APT_LOG"
case " $* " in *" madison "*)
	echo " nvidia-open-kernel-source | 550.163.01-2 | http://deb.debian.org/debian trixie/contrib amd64 Packages" ;;
esac
STUB
cat >"$SB/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$APT_LOG"
for a; do case $a in nvidia-open-kernel-source=*)
	: >"nvidia-open-kernel-source_${a#*=}_amd64.deb" ;;
esac; done
STUB
chmod +x "$SB/apt-cache" "$SB/apt-get"
export APT_LOG=$T_DIR/apt.log
: >"$APT_LOG"
PATH=$SB:$PATH NV_SRC_DIR=$T_DIR/nvsrc expect_exit 0 kernel-patch/scripts/fetch-nvidia-source
[ "$OUT" = "$T_DIR/nvsrc/nvidia-open-kernel-source_550.163.01-2_amd64.deb" ] &&
	ok "fetch-nvidia-source: prints the downloaded .deb" || fail "fetch-nvidia-source: prints the .deb" "$OUT"
bad=$(grep -v -e "Dir::Etc::SourceList=$T_DIR/nvsrc/apt/sources.list .*Dir::Etc::SourceParts=/dev/null .*Dir::State::Lists=$T_DIR/nvsrc/apt/lists" "$APT_LOG")
[ -s "$APT_LOG" ] && [ -z "$bad" ] && ok "fetch-nvidia-source: every apt call uses the private source list" ||
	fail "fetch-nvidia-source: every apt call uses the private source list" "${bad:-no apt call}"
grep -q '^deb .* trixie contrib$' "$T_DIR/nvsrc/apt/sources.list" 2>/dev/null &&
	ok "fetch-nvidia-source: its private list has trixie contrib" ||
	fail "fetch-nvidia-source: private list" "$(cat "$T_DIR/nvsrc/apt/sources.list" 2>&1)"

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
