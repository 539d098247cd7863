#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/test_build.sh - a build that fails well: in a scratch copy of
# the tree, make without bpftool in PATH stops before compiling with one
# line naming bpftool and leaves no empty build/*.skel.h; a bpftool that
# fails (or writes nothing) fails the skeleton rule although sed, after it
# in the pipe, succeeds; and after each, make with the real PATH succeeds
# without make clean.  Then: make help, the targets the docs name, the
# README's Build paragraph.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
SRC=$(pwd)
S=$T_DIR/tree
mkdir -p "$S"
# The files the build reads, and what an earlier build made (mtimes kept,
# so only what a step below removes is built again).
tar -C "$SRC" -cf - Makefile bpf cmd hint man kernel-patch/nvidia-uvm \
	$(cd "$SRC" && ls -d build gpuctl libgpuctl-hint.so 2>/dev/null) | tar -C "$S" -xf -
MAKE_BIN=$(command -v make)
# -O0: the relink below is the slow part, its optimisation is not the test.
export CFLAGS=-O0

# PATH without bpftool: a directory of links to everything else in PATH.
NB=$T_DIR/nobpftool
mkdir -p "$NB"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	for f in "$d"/*; do
		n=${f##*/}
		[ -x "$f" ] && [ ! -e "$NB/$n" ] && [ "$n" != bpftool ] && ln -s "$f" "$NB/$n"
	done
done
PATH=$NB command -v bpftool >/dev/null && fail "test set-up" "bpftool still in $NB"

empty_skels() { find "$S/build" -name '*.skel.h*' -size 0 2>/dev/null; find "$S/build" -name '*.tmp' 2>/dev/null; }
# One skeleton and the binary made again; with no build/ at all, everything.
SK=$S/build/prefetch_none.skel.h
reset_skel() { rm -f "$SK" "$S/gpuctl"; touch "$S/bpf/prefetch_none.bpf.c"; }

# --- no bpftool in PATH ------------------------------------------------------
reset_skel
expect_exit 2 env PATH="$NB" "$MAKE_BIN" -C "$S" -j2
n=$(printf '%s\n' "$ERR" | grep -c bpftool)
[ "$n" = 1 ] && ok "no bpftool: one line names it" || fail "no bpftool: one line names it" "$n lines: $ERR"
case $ERR in *"Error: bpftool not found in PATH (Debian: bpftool"*) ok "no bpftool: says what to install" ;;
	*) fail "no bpftool: says what to install" "$ERR" ;; esac
printf '%s\n' "$ERR" | grep -q 'error:' && fail "no bpftool: nothing compiled" "$ERR" || ok "no bpftool: nothing compiled"
[ -z "$(empty_skels)" ] && ok "no bpftool: no empty skeleton left" || fail "no bpftool: no empty skeleton left" "$(empty_skels)"
expect_exit 0 "$MAKE_BIN" -C "$S" -j2 gpuctl && [ -s "$SK" ] && ok "bpftool back: make succeeds without make clean" ||
	fail "bpftool back: make succeeds without make clean" "$ERR"

# --- a bpftool that fails, or succeeds writing nothing -----------------------
FB=$T_DIR/fakebpf
mkdir -p "$FB"
printf '#!/bin/sh\necho "libbpf: failed to open $3: No such file" >&2\nexit 255\n' > "$FB/bpftool-fails"
printf '#!/bin/sh\nexit 0\n' > "$FB/bpftool-empty"
chmod +x "$FB"/*
for kind in fails empty; do
	reset_skel
	expect_exit 2 "$MAKE_BIN" -C "$S" BPFTOOL="$FB/bpftool-$kind" gpuctl
	[ -z "$(empty_skels)" ] && [ ! -e "$SK" ] && ok "bpftool $kind: no skeleton left" ||
		fail "bpftool $kind: no skeleton left" "$(ls -l "$S"/build/prefetch_none.skel.h* 2>&1)"
	printf '%s\n' "$ERR" | grep -q 'error:' && fail "bpftool $kind: no C compiled on it" "$ERR" ||
		ok "bpftool $kind: no C compiled on it"
done
case $ERR in *"Error: build/prefetch_none.skel.h: "*"wrote nothing"*) ok "empty output named" ;;
	*) fail "empty output named" "$ERR" ;; esac
expect_exit 0 "$MAKE_BIN" -C "$S" -j2 && [ -s "$SK" ] && ok "after both: make succeeds without make clean" ||
	fail "after both: make succeeds without make clean" "$ERR"

# --- check-tools names each missing tool ---------------------------------------
E=$T_DIR/empty
mkdir -p "$E"
ln -s "$(command -v bash)" "$E/bash"
expect_exit 2 env PATH="$E" "$MAKE_BIN" -C "$S" check-tools
for t in cc clang bpftool pkg-config rst2man; do
	printf '%s\n' "$ERR" | grep -q "^Error: $t not found" && ok "check-tools names $t" || fail "check-tools names $t" "$ERR"
done

# --- make help, the targets the docs name, README's Build ----------------------
expect_exit 0 make -s help
help_targets=$(printf '%s\n' "$OUT" | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
targets=$(make -pRrq -f Makefile : 2>/dev/null | sed -n 's/^\([a-zA-Z][a-zA-Z0-9_.-]*\):.*/\1/p' | sort -u)
for t in $help_targets; do
	grep -qx -- "$t" <<<"$targets" && ok "make help: $t exists" || fail "make help: $t exists" "no such target"
done
for want in all gpuctl install test image; do
	grep -qx -- "$want" <<<"$help_targets" && ok "make help lists $want" || fail "make help lists $want" "$OUT"
done
docs=$(cat README.md man/*.rst bench/*.md bench/*/README.md packaging/*/*.sh 2>/dev/null |
	grep -oE '(`|\*\*)make [a-z][a-z-]*' | sed -E 's/^(`|\*\*)make //' | sort -u)
[ -n "$docs" ] && ok "the docs name make targets" || fail "the docs name make targets" "none found"
for t in $docs; do
	grep -qx -- "$t" <<<"$targets" && ok "docs' make $t exists" || fail "docs' make $t exists" "no such target in Makefile"
done
build=$(sed -n '/^## Build$/,/^## /p' README.md)
[ -n "$build" ] && ok "README has a Build section" || fail "README has a Build section" "no '## Build'"
printf '%s\n' "$build" | grep -qE '^make( |$)' && ok "README Build: the plain make" ||
	fail "README Build: the plain make" "$build"
summary
