#!/bin/bash
# tests/deps.sh — what gpuctl needs to build, test and demo on Debian bookworm.
#
# Usage: tests/deps.sh [--update]
#
# 1. apt packages (installed normally, root): libbpf-dev, bpftool, libelf-dev
#    from bookworm-backports; clang, qemu, busybox-static, ... from bookworm
#    (list below).  Adds /etc/apt/sources.list.d/gpuctl.sources
#    (bookworm-backports main contrib; bookworm and trixie contrib, where the
#    NVIDIA driver source for the kernel-patch check lives) when missing.
# 2. the test VM's kernel and headers: tests/vm/kernel-cache unpacks them
#    into $GPUCTL_VM_CACHE (default /var/cache/gpuctl/vm).  No kernel package
#    is installed on the host: nothing in /boot, no new boot entry.
#
# Without --update (make test, make demo) it is quick when all is there: it
# checks dpkg's database and the cache, and calls apt only for what is
# missing.  With --update (make deps) it runs 'apt-get update' first and
# moves the packages and the VM kernel to the newest ones.
# Exit 0 when everything is in place.
set -euo pipefail
PROG=tests/deps.sh
SELF=$(readlink -f "$0")
cd "$(dirname "$SELF")/.."

UPDATE=0
case ${1:-} in
--update) UPDATE=1 ;;
'') ;;
-h|--help) sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$SELF"; exit 0 ;;
*) echo "$PROG: unknown option '$1'" >&2; exit 2 ;;
esac

# libelf1 and libdw1 go with libelf-dev: bookworm's libdw1 wants bookworm's libelf1.
BACKPORTS=(libbpf-dev bpftool libelf-dev libelf1 libdw1)
# gcc-12 (build-essential), dwarves (pahole), libelf1, libssl3 and zlib1g
# are also what the cached kernel headers' build tools need.
PACKAGES=(build-essential pkg-config clang libclang-rt-dev llvm dwarves libssl3
	zlib1g-dev libzstd-dev libcap-dev libcap2-bin libreadline-dev
	python3 python3-docutils qemu-system-x86 busybox-static cpio kmod
	valgrind patch xz-utils git
	libmicrohttpd-dev prometheus debhelper lintian fakeroot umoci python3-kubernetes python3-yaml)
SOURCES=/etc/apt/sources.list.d/gpuctl.sources

# missing: the packages not installed (backports ones: not from backports)
missing() {
	local p have
	have=$(dpkg-query -W -f '${Package} ${db:Status-Abbrev} ${Version}\n' \
		"${BACKPORTS[@]}" "${PACKAGES[@]}" 2>/dev/null || true)
	for p in "${BACKPORTS[@]}"; do
		grep -qE "^$p ii .*~bpo" <<<"$have" || echo "$p"
	done
	for p in "${PACKAGES[@]}"; do
		grep -qE "^$p ii " <<<"$have" || echo "$p"
	done
}

need_root() {
	[ "$(id -u)" = 0 ] && return 0
	echo "$PROG: $1: run as root ('make deps'), or install them yourself" >&2
	exit 1
}

if [ ! -f "$SOURCES" ]; then
	need_root "apt needs $SOURCES"
	echo "$PROG: adding $SOURCES (bookworm-backports; bookworm, trixie contrib)"
	cat >"$SOURCES" <<'SRC'
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
SRC
	UPDATE=1
fi

export DEBIAN_FRONTEND=noninteractive
todo=$(missing)
if [ "$UPDATE" = 1 ] || [ -n "$todo" ]; then
	[ -n "$todo" ] && need_root "missing packages: $(echo $todo)"
	need_root "apt-get update"
	t0=$SECONDS
	apt-get update -q
	apt-get install -y -q --no-install-recommends -t bookworm-backports "${BACKPORTS[@]}"
	apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
	todo=$(missing)
	[ -z "$todo" ] || { echo "$PROG: still missing after apt-get: $(echo $todo)" >&2; exit 1; }
	echo "$PROG: packages installed in $((SECONDS - t0)) s"
fi

# apt's lists are fresh when --update ran apt-get update above
tests/vm/kernel-cache
echo "$PROG: packages and VM kernel in place ($SECONDS s)"
