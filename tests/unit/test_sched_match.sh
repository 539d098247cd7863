#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# issue 43: the pod:UID and cgroup-tree:PATH words of every sched policy,
# what can be checked without a VM: the text checks (cgtree_test.c), bad
# input refused before anything starts (one Error line, exit status 2;
# {"error":...} under -j), a cgroup v1 host refused (exit status 1: a
# tmpfs over /sys/fs/cgroup in a private mount namespace, as a v1 host has),
# help's MATCH line, and the bash completion of pod: from /var/log/pods
# (a tmpfs over /var/log in a private mount namespace).  The words at work
# on real cgroup v2 hierarchies: tests/vm/t_sched_pods.sh.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=$T_DIR
UID_OK=7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e01

FLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=undefined -Icmd -Icmd/lib"
if ${CC:-cc} $FLAGS -o "$T/cgt" tests/unit/cgtree_test.c cmd/lib/cgtree.c cmd/lib/cgroup.c 2>"$T/cc.err"; then
	"$T/cgt" >"$T/cgt.out" 2>&1
	rc=$?
	grep '^FAIL' "$T/cgt.out"
	set -- $(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$T/cgt.out")
	[ $rc = 0 ] && [ "${2:-1}" = 0 ] && ok "cgtree_test: ${1:-0} UIDs and paths" ||
		fail "cgtree_test" "$(tail -5 "$T/cgt.out")"
else
	fail "build cgtree_test" "$(head -c 800 "$T/cc.err")"
fi

# --- bad input: refused while parsing, for both policies ------------------------
for p in "lc-be lc" "fixed timeslice 100 match"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$GPUCTL" sched run $p pod:7b2e1d63-4c8f-4e32 && expect_stderr_line "$p: short UID"
	expect_err "$p: UID message" "invalid pod UID '7b2e1d63-4c8f-4e32'"
	# shellcheck disable=SC2086
	expect_exit 2 "$GPUCTL" sched run $p pod:7b2e1d63_4c8f_4e32_8d1f_6a4b3c2d1e01 &&
		expect_stderr_line "$p: the systemd driver's spelling"
	# shellcheck disable=SC2086
	expect_exit 2 "$GPUCTL" sched run $p "pod:$(printf 'x\033[2J')" && expect_stderr_line "$p: escape"
	case $ERR in *$'\033'*) fail "$p: escape" "raw ESC echoed" ;; *) ok "$p: the UID is echoed escaped" ;; esac
	# shellcheck disable=SC2086
	expect_exit 2 "$GPUCTL" sched run $p cgroup-tree:/kubepods/../system.slice &&
		expect_stderr_line "$p: '..'"
	expect_err "$p: '..' message" "has a '\\.' or '\\.\\.' part"
	# shellcheck disable=SC2086
	expect_exit 2 "$GPUCTL" sched run $p cgroup-tree:/sys/fs/cgroup/.. && expect_stderr_line "$p: mount/.."
	# shellcheck disable=SC2086
	expect_exit 2 "$GPUCTL" sched run $p podx:$UID_OK && expect_stderr_line "$p: unknown word"
	expect_err "$p: the words listed" "pod:UID"
done
expect_exit 2 "$GPUCTL" -j sched run lc-be lc pod:nope
expect_json "JSON error"
case $OUT in '{"error":'*"invalid pod UID"*) ok "JSON error says why" ;; *) fail "JSON error" "$OUT" ;; esac

# --- a cgroup v1 host -------------------------------------------------------------
v1() {	# v1 CMD...: CMD where /sys/fs/cgroup is a tmpfs (private mount namespace)
	unshare -m sh -c 'mount -t tmpfs cgroup /sys/fs/cgroup && exec "$@"' sh "$@"
}
if unshare -m true 2>/dev/null; then
	expect_exit 1 v1 "$GPUCTL" sched run lc-be lc pod:$UID_OK && expect_stderr_line "pod: on cgroup v1"
	expect_err "v1: says what it needs" "not cgroup v2.*unified"
	expect_exit 1 v1 "$GPUCTL" sched run fixed timeslice 100 match cgroup-tree:/kubepods &&
		expect_stderr_line "cgroup-tree: on cgroup v1"
	expect_exit 2 v1 "$GPUCTL" sched run lc-be lc cgroup-tree:/a/../b && expect_stderr_line "'..' before v1"
elif [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
	expect_exit 1 "$GPUCTL" sched run lc-be lc pod:$UID_OK && expect_stderr_line "pod: on this v1 host"
else
	echo "# no private mount namespace and a cgroup v2 host: the v1 case is in t_sched_pods"
fi

# --- help and completion ------------------------------------------------------------
expect_exit 0 "$GPUCTL" sched help
expect_out "help's MATCH line" "MATCH := \\{ comm:NAME \\| .*cgroup-tree:PATH \\| pod:UID \\}"
if unshare -m true 2>/dev/null; then
	comp() {	# comp WORD...: _gpuctl's completions, sorted, with two pods' log directories
		unshare -m bash -c '
			mount -t tmpfs none /var/log || exit 1
			mkdir -p /var/log/pods/ml_trainer_7b2e1d63-4c8f-4e32-8d1f-6a4b3c2d1e01 \
				/var/log/pods/kube-system_web-0_0f3c8e5a-0000-4e32-8d1f-6a4b3c2d1e02
			. "$1"; shift
			COMP_WORDS=("$GPUCTL" "$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			_gpuctl; printf "%s\n" "${COMPREPLY[@]}"' _ bash-completion/gpuctl "$@" | LC_ALL=C sort
	}
	got=$(comp sched run lc-be lc pod : 7b | tr '\n' ' ')
	[ "$got" = "$UID_OK " ] && ok "completion: pod:7b<TAB> (':' splits)" || fail "completion split" "$got"
	got=$(comp sched run lc-be lc pod : | tr '\n' ' ')
	[ "$got" = ":0f3c8e5a-0000-4e32-8d1f-6a4b3c2d1e02 :$UID_OK " ] && ok "completion: pod:<TAB>" ||
		fail "completion pod:" "$got"
	got=$(comp sched run fixed match pod:0f | tr '\n' ' ')
	[ "$got" = "pod:0f3c8e5a-0000-4e32-8d1f-6a4b3c2d1e02 " ] && ok "completion: one word pod:0f" ||
		fail "completion one word" "$got"
	got=$(comp sched run lc-be lc "" | tr '\n' ' ')
	case $got in *"cgroup-tree: "*"pod: "*) ok "completion offers cgroup-tree: and pod:" ;;
	*) fail "completion words" "$got" ;; esac
else
	echo "# no private mount namespace: the completion of pod: is not checked"
fi
summary
