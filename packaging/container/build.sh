#!/bin/bash
# packaging/container/build.sh [OUT.tar] - the gpuctl container image, FROM
# scratch: the static gpuctl as /gpuctl, entrypoint "gpuctl exporter serve
# --listen :9471" (the DaemonSet's), built with umoci (Debian's) into an OCI
# image layout and packed as an OCI archive: no daemon, no registry, no
# base image.  Load it with `podman load -i OUT.tar`, `ctr -n k8s.io images
# import OUT.tar` or `skopeo copy oci-archive:OUT.tar docker://REGISTRY/gpuctl:0.1.0`.
# Needs make gpuctl-static first (the Makefile's `image` target does both).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
OUT=${1:-$ROOT/build/gpuctl-image-$VERSION.tar}
BIN=$ROOT/gpuctl-static
[ -x "$BIN" ] || { echo "build.sh: $BIN missing: run 'make gpuctl-static'" >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
umoci init --layout "$W/layout"
umoci new --image "$W/layout:$VERSION"
umoci unpack --rootless --image "$W/layout:$VERSION" "$W/bundle" >/dev/null
install -m 0755 "$BIN" "$W/bundle/rootfs/gpuctl"
umoci repack --image "$W/layout:$VERSION" "$W/bundle"
umoci config --image "$W/layout:$VERSION" \
	--config.entrypoint /gpuctl \
	--config.cmd exporter --config.cmd serve --config.cmd --listen --config.cmd :9471 \
	--config.exposedports 9471/tcp \
	--config.label org.opencontainers.image.title=gpuctl \
	--config.label org.opencontainers.image.version="$VERSION" \
	--architecture amd64 --os linux \
	--history.created_by "packaging/container/build.sh: FROM scratch, COPY gpuctl-static /gpuctl"
umoci gc --layout "$W/layout"
mkdir -p "$(dirname "$OUT")"
tar -C "$W/layout" -cf "$OUT" .
echo "$OUT: OCI archive, image gpuctl:$VERSION ($(du -h "$OUT" | cut -f1))"
