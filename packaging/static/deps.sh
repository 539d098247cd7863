#!/bin/bash
# packaging/static/deps.sh - the static libraries a static gpuctl needs that
# Debian does not ship usable for static linking, built into build/static/:
#
#   libmicrohttpd.a  Debian's libmicrohttpd-dev links it with GnuTLS, whose
#                    static chain (p11-kit) Debian does not ship: built here
#                    from Debian's own source package (bookworm, 0.9.75),
#                    without HTTPS (the exporter serves plain HTTP).
#   libelf.a         bookworm-backports' 0.192 archive lacks its eu_search_tree
#                    helpers (ENVIRONMENT.md): bookworm's 0.188 instead (libbpf
#                    1.4 needs nothing newer).
#
# Downloads go through apt with a private list directory (nothing in /etc or
# /var/lib/apt changes).  Idempotent: what is built is kept.  Then `make
# gpuctl-static`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/build/static
PREFIX=$S/prefix
MHD_VER=0.9.75
ELF_VER=0.188-2.1
mkdir -p "$S/apt/lists/partial" "$PREFIX/lib" "$PREFIX/include"

APT=(-o Dir::Etc::SourceList="$S/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$S/apt/lists" -o Debug::NoLocking=1)
apt_private() {
	printf '%s\n' "deb http://deb.debian.org/debian bookworm main" \
		"deb-src http://deb.debian.org/debian bookworm main" >"$S/apt/sources.list"
	[ -e "$S/apt/.updated" ] || { apt-get "${APT[@]}" update -qq && touch "$S/apt/.updated"; }
}

if [ ! -e "$PREFIX/lib/libmicrohttpd.a" ]; then
	apt_private
	cd "$S"
	[ -e libmicrohttpd_$MHD_VER.orig.tar.xz ] || apt-get "${APT[@]}" source --download-only -qq libmicrohttpd=$MHD_VER-6
	rm -rf "libmicrohttpd-$MHD_VER"
	dpkg-source -x --no-check libmicrohttpd_$MHD_VER-6.dsc >/dev/null
	cd "libmicrohttpd-$MHD_VER"
	./configure -q --prefix="$PREFIX" --enable-static --disable-shared --disable-https \
		--disable-doc --disable-examples --disable-curl --disable-tools \
		--disable-dauth --disable-bauth --disable-postprocessor \
		CFLAGS="-O2 -fPIC" >/dev/null
	make -s -j"$(nproc)" -C src/microhttpd >/dev/null
	make -s -C src/microhttpd install >/dev/null
	make -s -C src/include install >/dev/null 2>&1 || cp src/include/microhttpd.h "$PREFIX/include/"
fi

if [ ! -e "$PREFIX/lib/libelf.a" ]; then
	apt_private
	cd "$S"
	apt-get "${APT[@]}" download -qq libelf-dev=$ELF_VER
	rm -rf elf && dpkg-deb -x libelf-dev_${ELF_VER}_amd64.deb elf
	cp elf/usr/lib/x86_64-linux-gnu/libelf.a "$PREFIX/lib/"
fi
echo "static libraries in $PREFIX/lib: $(cd "$PREFIX/lib" && ls *.a | tr '\n' ' ')"
