#!/bin/bash
# packaging/deb.sh - the Debian package (debian/, debhelper) built from a
# copy of the tree (dpkg-buildpackage cleans what it builds in), then
# checked with lintian.  The .deb lands in build/.  Exit status: the build's,
# then lintian's (errors or warnings fail; the tags it prints say why).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/gpuctl-$VERSION"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 tar -c --no-recursion) |
	tar -C "$W/gpuctl-$VERSION" -x
(cd "$W/gpuctl-$VERSION" && dpkg-buildpackage -us -uc -b >"$W/build.log" 2>&1) ||
	{ tail -30 "$W/build.log"; echo "deb.sh: dpkg-buildpackage failed" >&2; exit 1; }
mkdir -p "$ROOT/build"
cp "$W"/gpuctl_"$VERSION"_amd64.deb "$ROOT/build/"
echo "build/gpuctl_${VERSION}_amd64.deb"
lintian --fail-on error,warning "$W"/gpuctl_"$VERSION"_amd64.changes
