#!/bin/sh
# Installs what gpuctl needs to build and test on Debian bookworm (root).
set -eu
src=/etc/apt/sources.list.d/gpuctl.sources
if [ ! -f "$src" ]; then
	cat > "$src" <<'SRC'
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
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q -t bookworm-backports \
	linux-image-amd64 linux-headers-amd64 libbpf-dev bpftool libelf-dev
apt-get install -y -q build-essential pkg-config clang llvm dwarves \
	zlib1g-dev libzstd-dev libcap-dev libcap2-bin libreadline-dev \
	python3 python3-docutils qemu-system-x86 busybox-static cpio kmod valgrind
