#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run -j N (tests/lanes.sh): in a throwaway tree of fake scripts and a
# fake tests/vm/run (runs each script on the host between the markers
# tests/vm/all.sh prints), the lanes add up to what one lane reports:
# counts, failures by name, a script without a summary, a VM part that dies,
# a script's own lane ("# tests/run lane: NAME"), exact-path selection, and
# a bad -j refused.  CI's time rests on this
# (.ci/run: make test and test-asan run with -j2).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
R=$T_DIR/tree
mkdir -p "$R/tests/unit" "$R/tests/vm"
cp tests/run tests/lanes.sh "$R/tests/"
unit() {	# unit NAME PASSED FAILED
	printf '#!/bin/sh\necho "ok x"\n[ %s = 0 ] || echo "FAIL %s: broken"\necho "%s passed, %s failed"\n[ %s = 0 ]\n' \
		"$3" "$1" "$2" "$3" "$3" > "$R/tests/unit/$1.sh"
	chmod +x "$R/tests/unit/$1.sh"
}
unit test_a 3 0
unit test_b 2 1
unit test_b_more 4 0
sed -i '1a # tests/run lane: apart' "$R/tests/unit/test_b_more.sh"
printf '#!/bin/sh\necho "ok, then gone"\nexit 3\n' > "$R/tests/unit/test_crash.sh"
chmod +x "$R/tests/unit/test_crash.sh"
for i in 1 2 3 4 5; do
	printf 'echo "ok vm%s"\necho "%s passed, 0 failed"\n' "$i" "$i" > "$R/tests/vm/t_v$i.sh"
done
# the fake guest: each script in turn between all.sh's markers; a script
# named t_die*.sh stops the "guest" as a hung VM does
cat > "$R/tests/vm/run" <<'EOF'
#!/bin/bash
shift	# all.sh
for t in "$@"; do
	echo "@@GPUCTL_TEST_BEGIN $t@@"
	case $t in *t_die*) echo "started"; exit 1 ;; esac
	sh "$t"
	echo "@@GPUCTL_TEST_END $t rc=$?@@"
done
EOF
chmod +x "$R/tests/vm/run"
touch "$R/tests/vm/all.sh"

run() {	# run ARGS...: tests/run in the fake tree; output in $T_DIR/o.$1
	local tag=$1
	shift
	(cd "$R" && TEST_JOBS= tests/run "$@") > "$T_DIR/o.$tag" 2>&1
	echo $? > "$T_DIR/rc.$tag"
}
last() { tail -n 1 "$T_DIR/o.$1"; }

run one -j1 test_a test_b t_v
run two -j2 test_a test_b t_v
run four -j4 test_a test_b t_v
[ "$(last one)" = "24 passed, 1 failed" ] && ok "one lane: 24 passed, 1 failed" || fail "one lane" "$(last one)"
for k in two four; do
	[ "$(last $k)" = "$(last one)" ] && ok "-j ${k}: the same totals as one lane" || fail "-j $k totals" "$(last $k)"
	[ "$(cat "$T_DIR/rc.$k")" = 1 ] && ok "-j ${k}: exit 1 on a failure" || fail "-j $k exit" "$(cat "$T_DIR/rc.$k")"
	grep -qx '  tests/unit/test_b.sh: FAIL test_b: broken' "$T_DIR/o.$k" &&
		ok "-j ${k}: the failure named in the Failed list" || fail "-j $k Failed list" "$(cat "$T_DIR/o.$k")"
	[ "$(grep -c '^Failed:$' "$T_DIR/o.$k")" = 1 ] && ok "-j ${k}: one Failed list" || fail "-j $k one list" "$(cat "$T_DIR/o.$k")"
	[ "$(grep -c '^PASS tests/vm/t_v' "$T_DIR/o.$k")" = 5 ] && ok "-j ${k}: every VM script reported" ||
		fail "-j $k VM scripts" "$(cat "$T_DIR/o.$k")"
	[ "$(grep -c '^[0-9]* passed, [0-9]* failed$' "$T_DIR/o.$k")" = 1 ] && ok "-j ${k}: the lanes' own totals not printed" ||
		fail "-j $k lane totals" "$(cat "$T_DIR/o.$k")"
done
grep -q '^tests/run: VM part 1 of 4 (2 scripts) ended after' "$T_DIR/o.two" &&
	grep -q '^tests/run: VM part 4 of 4 (1 scripts) ended after' "$T_DIR/o.two" &&
	ok "-j2: five VM scripts dealt into four parts" || fail "-j2 parts" "$(cat "$T_DIR/o.two")"
grep -q '^tests/run: VM part 5 of 5 (1 scripts)' "$T_DIR/o.four" && ok "-j4: no more parts than scripts" ||
	fail "-j4 parts" "$(cat "$T_DIR/o.four")"
grep -q '^tests/run: unit lane (2 scripts) ended after' "$T_DIR/o.two" &&
	grep -q '^tests/run: apart lane (1 scripts) ended after' "$T_DIR/o.two" &&
	ok "-j2: a script's own lane" || fail "-j2 own lane" "$(cat "$T_DIR/o.two")"

# exact paths: test_b.sh alone, not test_b_more.sh
run exact -j2 tests/unit/test_b.sh ./tests/vm/t_v2.sh
[ "$(last exact)" = "4 passed, 1 failed" ] && ok "paths with a '/' select exactly" || fail "exact paths" "$(cat "$T_DIR/o.exact")"

# a script without a summary and a VM part that dies both count
printf 'echo "ok"\n' > "$R/tests/vm/t_die.sh"
run crash -j2 test_crash t_v1 t_die
[ "$(last crash)" = "1 passed, 2 failed" ] && ok "-j2: no summary and a dead guest are failures" ||
	fail "-j2 crashes" "$(cat "$T_DIR/o.crash")"
grep -q 'tests/unit/test_crash.sh: crashed without a summary' "$T_DIR/o.crash" &&
	grep -q 'tests/vm/t_die.sh: crashed without a summary' "$T_DIR/o.crash" &&
	ok "-j2: both named" || fail "-j2 crash names" "$(cat "$T_DIR/o.crash")"
rm -f "$R/tests/vm/t_die.sh"

for bad in 0 x -1 ''; do
	expect_exit 2 env -C "$R" tests/run -j "$bad" test_a &&
		[ "$ERR" = "tests/run: -j wants a whole number of lanes from 1, got '$bad'" ] &&
		ok "-j '$bad' refused in one line" || fail "-j '$bad'" "$ERR"
done
expect_exit 2 env -C "$R" tests/run -j
summary
