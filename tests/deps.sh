#!/bin/bash
# tests/deps.sh — what gpuctl needs to build, test and demo on Debian bookworm.
#
# Usage: tests/deps.sh [--update | --sources]
#
# 1. apt packages (installed normally, root): libbpf-dev, bpftool, libelf-dev
#    from bookworm-backports; clang, qemu, busybox-static, ... from bookworm
#    (list below).  Adds /etc/apt/sources.list.d/gpuctl.sources
#    (bookworm-backports main contrib) when missing, and replaces one an
#    older set-up wrote with trixie contrib in it (unpinned, it let apt take
#    trixie's NVIDIA driver on a bookworm host); it says so first.  Nothing
#    from trixie goes through the host's apt: the NVIDIA source the
#    kernel-patch check needs is fetched through a private list
#    (kernel-patch/scripts/fetch-nvidia-source).
# 2. the test VM's kernel and headers: tests/vm/kernel-cache unpacks them
#    into $GPUCTL_VM_CACHE (default /var/cache/gpuctl/vm).  No kernel package
#    is installed on the host: nothing in /boot, no new boot entry.
#
# Without --update (make test, make demo) it is quick when all is there: it
# checks dpkg's database and the cache, and calls apt only for what is
# missing.  With --update (make deps) it runs 'apt-get update' first and
# moves the packages and the VM kernel to the newest ones.
# With --sources it only puts the apt source in place (APT_ETC=dir reads
# and writes DIR/sources.list.d instead of /etc/apt's, for tests).
# Exit 0 when everything is in place.
set -euo pipefail
PROG=tests/deps.sh
SELF=$(readlink -f "$0")
cd "$(dirname "$SELF")/.."

UPDATE=0
SOURCES_ONLY=0
case ${1:-} in
--update) UPDATE=1 ;;
--sources) SOURCES_ONLY=1 ;;
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
	libmicrohttpd-dev prometheus debhelper lintian fakeroot umoci python3-kubernetes python3-yaml
	chromium)
SOURCES=${APT_ETC:-/etc/apt}/sources.list.d/gpuctl.sources

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

# the host's apt gets bookworm-backports only (its packages are pinned
# below the release by Debian: only what is asked for with -t comes from it)
sources_text() {
	cat <<'SRC'
# gpuctl (tests/deps.sh): bookworm-backports for libbpf, bpftool, libelf.
# Nothing else: the NVIDIA source is fetched through a private list.
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
}
put_sources() {
	local why
	if [ ! -e "$SOURCES" ] && [ ! -L "$SOURCES" ]; then
		why="adding $SOURCES"
	elif grep -qiE '^[[:space:]]*(Suites:.*[[:space:]]trixie|deb .*[[:space:]]trixie)' "$SOURCES" 2>/dev/null; then
		why="replacing $SOURCES: an older set-up's, it adds trixie contrib unpinned (apt could take trixie's NVIDIA driver over bookworm's)"
	else
		return 0
	fi
	need_root "$why"
	echo "$PROG: $why; it becomes:"
	sources_text | sed 's/^/    /'
	sources_text >"$SOURCES.new"
	mv -f "$SOURCES.new" "$SOURCES"
	UPDATE=1
}
put_sources
[ "$SOURCES_ONLY" = 0 ] || exit 0

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
