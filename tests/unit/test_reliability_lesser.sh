#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 42, the lesser items on the host:
#  - `prefetch set -p PID KEY VALUE` with no engine anywhere (no run
#    directory) said nothing (exit 1), and `null` under -j: now one Error
#    line, {"error":...} under -j; a run directory others can write is named;
#  - `gpuctl shell` reading a line over 1 MiB stopped there: now that line is
#    refused (one Error line, {"error":...} under -j) and the next lines run;
#    an endless line (/dev/zero) still stops it with exit 2;
#  - `make bench-ab REF=...` with a single quote in REF ran shell code: now
#    the quote is part of the ref (no such commit, exit 2, nothing run);
#  - bench/ab/build.sh left REF's worktree behind after a failed or an
#    interrupted build: now it goes in both cases (a clone of this tree, a
#    fake make that fails, or hangs until the build is stopped).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (CAP_BPF)"; ok "skipped"; summary; }

# --- prefetch set: every refusal says why --------------------------------------
export GPUCTL_RUN_DIR=$T/run
expect_exit 1 "$G" prefetch set -p 4194000 degree 2 && expect_stderr_line "set -p, no run directory"
expect_err "set -p, no run directory: says no engine runs" "no prefetch engine runs on process 4194000"
expect_exit 1 "$G" -j prefetch set -p 4194000 degree 2
expect_json "set -p under -j"
expect_json_eq "set -p under -j: an error, not null" .error "no prefetch engine runs on process 4194000"
mkdir -p "$T/run/prefetch"
chmod 777 "$T/run/prefetch"
expect_exit 1 "$G" prefetch set -p 4194000 degree 2 && expect_stderr_line "set -p, a run directory anyone can write"
expect_err "set -p, a run directory anyone can write: named" "$T/run/prefetch is not a directory owned by root"
chmod 755 "$T/run/prefetch"
expect_exit 1 "$G" prefetch set -p 4194000 degree 2 && expect_stderr_line "set -p, no such engine"
unset GPUCTL_RUN_DIR

# --- shell: a line over 1 MiB is refused, the rest runs -----------------------------
python3 -c '
import sys
sys.stdout.write("prefetch list\n" + "prefetch " + "a" * (3 << 20) + "\nbogus-object\nprefetch list\n")' >"$T/long"
"$G" shell <"$T/long" >"$T/out" 2>"$T/err"
RC=$?
OUT=$(cat "$T/out")
ERR=$(cat "$T/err")
[ "$(grep -c '^Error: the command is longer than 1 MiB$' "$T/err")" = 1 ] &&
	ok "shell: the 3 MiB line refused in one line" || fail "shell: the long line" "$(head -c 300 "$T/err")"
expect_err "shell: the lines after it ran (bogus-object refused)" "unknown object 'bogus-object'"
[ "$(grep -c '^none ' "$T/out")" = 2 ] && ok "shell: 'prefetch list' ran before and after it" ||
	fail "shell: prefetch list twice" "$(head -c 300 "$T/out")"
[ $RC = 0 ] && ok "shell: the last command's status (0)" || fail "shell: status" "$RC"
"$G" -j shell <"$T/long" >"$T/out" 2>"$T/err"
OUT=$(sed -n 2p "$T/out")
expect_json_eq "shell -j: the long line's document is an error" .error "the command is longer than 1 MiB"
[ "$(wc -l <"$T/out")" -ge 4 ] && ok "shell -j: a document for every line" || fail "shell -j" "$(head -c 300 "$T/out")"
expect_exit 2 sh -c 'exec timeout 30 "$1" shell </dev/zero' sh "$G" && expect_stderr_line "shell < /dev/zero"
expect_err "shell < /dev/zero: says why" "longer than 1 MiB goes on past 64 MiB"

# --- make bench-ab: REF is data -------------------------------------------------------
expect_exit 2 make -s bench-ab REF="x'; touch $T/pwned; '" DRY=1
[ ! -e "$T/pwned" ] && ok "bench-ab: a quote in REF runs nothing" || fail "bench-ab: REF quoting" "$T/pwned made"
expect_err "bench-ab: the quoted REF is no commit" "is not a git commit here"

# --- bench/ab/build.sh: REF's worktree goes, whatever happens ---------------------------
if git rev-parse -q --verify HEAD~1 >/dev/null; then
	git clone -q --shared . "$T/repo" && git -C "$T/repo" checkout -q "$(git rev-parse HEAD)"
	cp bench/ab/build.sh "$T/repo/bench/ab/build.sh"	# this tree's, committed or not
	mkdir -p "$T/repo/build/static/prefix/lib" "$T/fake"
	touch "$T/repo/build/static/prefix/lib/libmicrohttpd.a" "$T/repo/build/static/prefix/lib/libelf.a"
	# make: the tree's build succeeds; REF's (make -C WORKTREE) fails, or hangs ($HANG)
	cat >"$T/fake/make" <<'MK'
#!/bin/sh
case " $* " in
*" -C "*) [ -n "$HANG" ] && { touch "$HANG"; exec sleep 60; }; echo "fake: REF's build fails" >&2; exit 1 ;;
esac
touch gpuctl-static
MK
	chmod +x "$T/fake/make"
	wts() { git -C "$T/repo" worktree list | wc -l; }
	PATH=$T/fake:$PATH "$T/repo/bench/ab/build.sh" HEAD~1 >"$T/ab.out" 2>"$T/ab.err"
	[ $? = 1 ] && ok "build.sh: REF's failed build: exit 1" || fail "build.sh: failed build" "$(cat "$T/ab.err")"
	[ "$(wts)" = 1 ] && [ -z "$(ls -A "$T/repo/build/ab" 2>/dev/null | grep -v '^$')" ] &&
		ok "build.sh: after a failed build no worktree is left" ||
		fail "build.sh: worktree left after a failed build" "$(git -C "$T/repo" worktree list; ls "$T/repo/build/ab")"
	HANG=$T/hung PATH=$T/fake:$PATH setsid "$T/repo/bench/ab/build.sh" HEAD~1 >"$T/ab.out" 2>"$T/ab.err" &
	bp=$!
	i=0
	until [ -e "$T/hung" ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(wts)" = 2 ] && ok "build.sh: REF's worktree exists while it builds" || fail "build.sh: worktree while building" "$(wts)"
	kill -INT -- -$bp 2>/dev/null
	wait $bp
	rc=$?
	[ "$(wts)" = 1 ] && [ ! -d "$T/repo/build/ab/$(git rev-parse --short=7 HEAD~1)" ] &&
		ok "build.sh: interrupted (Ctrl-C, exit $rc): no worktree is left" ||
		fail "build.sh: worktree left after Ctrl-C" "$(git -C "$T/repo" worktree list)"
else
	ok "skipped: no HEAD~1"
fi
summary
