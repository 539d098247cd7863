#!/bin/bash
# The CLI paths that run without a GPU driver are valgrind-clean: no invalid
# access, no uninitialised use, no leak (tests/valgrind.supp: libbpf's bpf(2)
# attr tails, a valgrind false positive).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if ! command -v valgrind >/dev/null; then
	echo "valgrind missing: skipped"
	summary
fi
VG="valgrind -q --suppressions=tests/valgrind.supp --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
printf 'prefetch list\n# comment\nprefetch \\\n  help\nprobe\n' > "$T_DIR/ok.batch"
printf 'prefetch list\nprefetch frob\nprobe\n' > "$T_DIR/bad.batch"

while IFS='|' read -r want args; do
	# shellcheck disable=SC2086
	$VG "$GPUCTL" $args >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	rc=$?
	if [ $rc -eq 99 ]; then
		fail "valgrind: gpuctl $args" "$(head -c 600 "$T_DIR/err")"
	elif [ "$rc" != "$want" ]; then
		fail "valgrind: gpuctl $args" "exit $rc, want $want"
	else
		ok "valgrind clean: gpuctl $args"
	fi
done <<LIST
0|help
0|-j -V
0|prefetch list
0|-j prefetch list
0|evict list
0|replay list
0|probe
0|-j probe
2|nosuch
2|-j p
2|prefetch load nosuch
2|prefetch load stride degree 99
1|prefetch load file /etc/passwd
0|batch file $T_DIR/ok.batch
2|batch file $T_DIR/bad.batch
2|-j batch file $T_DIR/bad.batch
1|trace tsg --device $T_DIR/no-such-device
2|-j trace tsg --backend bpf
LIST
summary
