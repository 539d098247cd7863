#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/ab/build.sh [--dry-run] REF [OLD] - the engines of a same-run A/B,
# built here (the build host): the static gpuctl of git ref REF (and of a
# second ref OLD, e.g. an older engine) and of the working tree (uncommitted
# changes included), into bench/ab/bin/:
#   gpuctl-<sha of REF, 7 digits>   make gpuctl-static in a temporary
#                                   `git worktree` under build/ab/ (removed
#                                   after, built or not, interrupted too;
#                                   the binary is kept by sha)
#   gpuctl-tree                     make gpuctl-static here
#   gpuctl-<sha of OLD>             the same for OLD (run.sh's config old)
#   BUILD                           ref_name=, ref_sha=, tree_sha=, and
#                                   old_name=, old_sha= with OLD (run.sh reads it)
# packaging/static/deps.sh builds the static libraries once into
# build/static/prefix; REF's build uses the same (a link to it).  Then prints
# the command to run on the GPU machine.  `make bench-ab REF=...` runs this.
# --dry-run: resolves REF and prints the steps, builds nothing.
# Exit: 0 built, 1 a build failed, 2 usage (no such ref).
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
DRY=0
[ "${1:-}" = --dry-run ] && { DRY=1; shift; }
{ [ $# = 1 ] || [ $# = 2 ]; } && [ -n "$1" ] && [ -n "${2-x}" ] ||
	{ echo "Error: usage: bench/ab/build.sh [--dry-run] REF [OLD]" >&2; exit 2; }
REF=$1 OLD=${2-}
cd "$R" || exit 1
SHA=$(git rev-parse --verify -q "$REF^{commit}") || { echo "Error: '$REF' is not a git commit here" >&2; exit 2; }
SHORT=${SHA:0:7} OSHORT=''
if [ -n "$OLD" ]; then
	OSHA=$(git rev-parse --verify -q "$OLD^{commit}") || { echo "Error: '$OLD' is not a git commit here" >&2; exit 2; }
	OSHORT=${OSHA:0:7}
fi
TREE=$(git rev-parse --short=7 HEAD)
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && TREE=$TREE-dirty
BIN=$D/bin WT=''
# Submakes see neither this make's variables (REF=, DRY=) nor its jobserver.
MK=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2)
LIBS=(build/static/prefix/lib/libmicrohttpd.a build/static/prefix/lib/libelf.a)

if [ "$DRY" = 1 ]; then
	echo "# bench/ab/build.sh --dry-run: REF $REF = $SHA; tree $TREE${OLD:+; OLD $OLD = $OSHA}"
	echo "1. packaging/static/deps.sh (once: build/static/prefix)"
	echo "2. $(printf '%s ' "${MK[@]}")gpuctl-static; cp gpuctl-static bench/ab/bin/gpuctl-tree"
	n=3
	for s in $SHORT $OSHORT; do
		if [ -x "$BIN/gpuctl-$s" ]; then
			echo "$n. bench/ab/bin/gpuctl-$s is there already (built from $s): kept"
		else
			echo "$n. git worktree add --detach build/ab/$s $s; build/ab/$s/build/static -> build/static;"
			echo "   ${MK[*]} -C build/ab/$s gpuctl-static; cp it to bench/ab/bin/gpuctl-$s; git worktree remove"
		fi
		n=$((n + 1))
	done
	echo "$n. bench/ab/bin/BUILD: ref_name=$REF ref_sha=$SHORT tree_sha=$TREE${OLD:+ old_name=$OLD old_sha=$OSHORT}"
	exit 0
fi

# The temporary worktree away (its link to build/static first: never through it).
drop_wt() { rm -f "$WT/build/static"; git worktree remove --force "$WT" 2>/dev/null; rm -rf "$WT"; git worktree prune; }
# However this ends (a failed build, Ctrl-C, SIGTERM), REF's worktree goes with it.
WT_MADE=0
trap '[ "$WT_MADE" = 1 ] && drop_wt' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

mkdir -p "$BIN" build/ab || exit 1
[ -e "${LIBS[0]}" ] && [ -e "${LIBS[1]}" ] || packaging/static/deps.sh || exit 1
echo "== the tree ($TREE): gpuctl-static"
"${MK[@]}" gpuctl-static || { echo "Error: the tree's gpuctl-static did not build" >&2; exit 1; }
cp gpuctl-static "$BIN/gpuctl-tree" || exit 1

# build_ref NAME SHA: gpuctl-<sha, 7> from a temporary worktree of SHA (kept when built already)
build_ref() {
	local s=${2:0:7}
	if [ -x "$BIN/gpuctl-$s" ]; then
		echo "== $1 ($s): bench/ab/bin/gpuctl-$s already built, kept"
		return 0
	fi
	echo "== $1 ($s): gpuctl-static in build/ab/$s"
	WT=$R/build/ab/$s
	drop_wt
	WT_MADE=1
	git worktree add -q --detach "$WT" "$2" || exit 1
	mkdir -p "$WT/build" && ln -sfn "$R/build/static" "$WT/build/static"
	git -C "$WT" show HEAD:Makefile | grep -q '^gpuctl-static:' ||
		{ echo "Error: $1 has no gpuctl-static target (older than 2c48095)" >&2; drop_wt; exit 1; }
	# -o: the libraries are built; the ref's deps.sh is newer only by checkout time
	if ! "${MK[@]}" -C "$WT" -o "${LIBS[0]}" -o "${LIBS[1]}" gpuctl-static; then
		echo "Error: $1's gpuctl-static did not build (its output above; build/ab/$s removed)" >&2
		exit 1
	fi
	cp "$WT/gpuctl-static" "$BIN/gpuctl-$s" || exit 1
	drop_wt
	WT_MADE=0
}
build_ref "$REF" "$SHA"
[ -z "$OLD" ] || build_ref "$OLD" "$OSHA"
{
	printf 'ref_name=%s\nref_sha=%s\ntree_sha=%s\nbuilt=%s\n' "$REF" "$SHORT" "$TREE" \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	[ -z "$OLD" ] || printf 'old_name=%s\nold_sha=%s\n' "$OLD" "$OSHORT"
} >"$BIN/BUILD"
# older gpuctl-<sha> of other refs are not carried: only what BUILD names
for f in "$BIN"/gpuctl-*; do
	case ${f##*/} in gpuctl-tree|"gpuctl-$SHORT"|"gpuctl-${OSHORT:-$SHORT}") ;; *) rm -f "$f" ;; esac
done
ls -l "$BIN"
cat <<EOF

Built.  On the GPU machine (as root), one call per group of workloads, e.g.:
  run(command="bench/ab/run.sh --budget 540 --workloads sweep,cupy,torch-cache",
      carry=["bench/ab/bin"], timeout_s=600)
Then: python3 bench/ab/summarize.py <results.jsonl of each call>  (bench/ab/README.md)
EOF
