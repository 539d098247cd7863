#!/bin/bash
# packaging/container/build.sh [OUT.tar] - the gpuctl container image, FROM
# scratch: the static gpuctl as /gpuctl, entrypoint "gpuctl exporter serve
# --listen :9471" (the DaemonSet's), built with umoci (Debian's) into an OCI
# image layout and packed as an OCI archive: no daemon, no registry, no
# base image.  Its reference is packaging/kubernetes/kustomization.yaml's
# (images: newName:newTag), the one place the manifests take it from; the
# archive's image is tagged with it.  Onto the nodes (README): a registry,
# `skopeo copy oci-archive:OUT.tar docker://REGISTRY/gpuctl:0.1.0`, or on
# each node `ctr -n k8s.io images import OUT.tar` / `podman load -i OUT.tar`.
#
# Beside /gpuctl: /etc/ld.so.conf (including /etc/ld.so.conf.d/*.conf) and
# an empty /etc/ld.so.conf.d, for the NVIDIA Container Toolkit's hook, which
# puts the driver's libraries and device nodes into the container and runs
# ldconfig on its root; gpuctl is static and loads none of them.  Labels:
# org.opencontainers.image.{title,version,source,revision,licenses}.
# Needs make gpuctl-static first (the Makefile's `image` target does both).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
OUT=${1:-$ROOT/build/gpuctl-image-$VERSION.tar}
BIN=$ROOT/gpuctl-static
[ -x "$BIN" ] || { echo "build.sh: $BIN missing: run 'make gpuctl-static'" >&2; exit 1; }
K=$ROOT/packaging/kubernetes/kustomization.yaml
NAME=$(sed -n 's/^ *newName: *//p' "$K")
TAG=$(sed -n 's/^ *newTag: *//p' "$K")
[ -n "$NAME" ] && [ "$TAG" = "$VERSION" ] ||
	{ echo "build.sh: $K: images: newName '$NAME', newTag '$TAG' (want $VERSION)" >&2; exit 1; }
SOURCE=$(sed -n 's/^Source: *//p' "$ROOT/debian/copyright")
REVISION=${GPUCTL_REVISION:-$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
umoci init --layout "$W/layout"
umoci new --image "$W/layout:$VERSION"
umoci unpack --rootless --image "$W/layout:$VERSION" "$W/bundle" >/dev/null
install -m 0755 "$BIN" "$W/bundle/rootfs/gpuctl"
install -d -m 0755 "$W/bundle/rootfs/etc/ld.so.conf.d"
install -m 0644 "$ROOT/packaging/container/ld.so.conf" "$W/bundle/rootfs/etc/ld.so.conf"
umoci repack --image "$W/layout:$VERSION" "$W/bundle"
umoci config --image "$W/layout:$VERSION" \
	--config.entrypoint /gpuctl \
	--config.cmd exporter --config.cmd serve --config.cmd --listen --config.cmd :9471 \
	--config.exposedports 9471/tcp \
	--config.label org.opencontainers.image.title=gpuctl \
	--config.label org.opencontainers.image.version="$VERSION" \
	--config.label org.opencontainers.image.source="$SOURCE" \
	--config.label org.opencontainers.image.revision="$REVISION" \
	--config.label org.opencontainers.image.licenses=GPL-2.0-only \
	--manifest.annotation org.opencontainers.image.ref.name="$NAME:$TAG" \
	--architecture amd64 --os linux \
	--history.created_by "packaging/container/build.sh: FROM scratch, COPY gpuctl-static /gpuctl"
umoci gc --layout "$W/layout"
mkdir -p "$(dirname "$OUT")"
tar -C "$W/layout" -cf "$OUT" .
echo "$OUT: OCI archive, image $NAME:$TAG (tag $VERSION in the archive; $(du -h "$OUT" | cut -f1))"
