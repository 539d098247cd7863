#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_hint.sh - libgpuctl-hint.so (hint/gpuctl_hint.c) against a hint page
# laid out as gpuctl's gate writes it (hint/gpuctl_hint.h): begin/end move
# the futex word and the counters; no $GPUCTL_HINT, a missing file or a page
# without gpuctl's magic make both calls no-ops (-1).  Needs cc and python3.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

LIB=$T_DIR/libgpuctl-hint.so
if ! make -s libgpuctl-hint.so >/dev/null || ! cp libgpuctl-hint.so "$LIB"; then
    fail "build" "make libgpuctl-hint.so failed"
    summary
fi
PAGE=$T_DIR/page
# page MAGIC: a 4096-byte hint page as the gate leaves it (busy 0, counters 0)
page() { python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<IIIIQQ", int(sys.argv[2],0), 1, 0, 123, 0, 0).ljust(4096, b"\0"))' "$PAGE" "$1"; }
# calls SEQ: runs b/e calls in one process; prints each return, then busy begins ends
calls() {
    python3 - "$LIB" "$PAGE" "$1" <<'PY'
import ctypes, struct, sys
l = ctypes.CDLL(sys.argv[1])
r = [str(l.gpuctl_hint_begin() if c == "b" else l.gpuctl_hint_end()) for c in sys.argv[3]]
m, v, busy, own, b, e = struct.unpack("<IIIIQQ", open(sys.argv[2], "rb").read(32))
print(" ".join(r), busy, b, e)
PY
}

page 0x746e6968
r=$(GPUCTL_HINT=$PAGE calls b)
[ "$r" = "0 1 1 0" ] && ok "begin: busy 1, begins 1" || fail "begin" "$r"
page 0x746e6968
r=$(GPUCTL_HINT=$PAGE calls bbe)
[ "$r" = "0 0 0 1 2 1" ] && ok "two begins, one end: busy 1" || fail "bbe" "$r"
page 0x746e6968
r=$(GPUCTL_HINT=$PAGE calls bebe)
[ "$r" = "0 0 0 0 0 2 2" ] && ok "begin/end pairs leave busy 0" || fail "bebe" "$r"
page 0x746e6968
r=$(env -u GPUCTL_HINT python3 -c 'import ctypes,sys; l=ctypes.CDLL(sys.argv[1]); print(l.gpuctl_hint_begin(), l.gpuctl_hint_end())' "$LIB")
[ "$r" = "-1 -1" ] && ok "no GPUCTL_HINT: both calls -1" || fail "no env" "$r"
r=$(GPUCTL_HINT=$T_DIR/missing calls be)
case $r in "-1 -1"*) ok "missing hint file: -1" ;; *) fail "missing" "$r" ;; esac
page 0x12345678
r=$(GPUCTL_HINT=$PAGE calls b)
[ "$r" = "-1 0 0 0" ] && ok "page without gpuctl's magic: untouched" || fail "magic" "$r"
ln -s "$PAGE" "$T_DIR/link"; page 0x746e6968
r=$(GPUCTL_HINT=$T_DIR/link calls b)
[ "$r" = "-1 0 0 0" ] && ok "a symlink is not followed" || fail "symlink" "$r"
summary
