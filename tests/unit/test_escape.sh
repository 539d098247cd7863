#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 32: names others choose are escaped for where they go, by one helper
# (cmd/lib/text.c): its unit test (tests/unit/text_escape_test.c); an
# argument echoed in an Error: line cannot forge a second line or send ESC;
# -j exporter textfile prints JSON only.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
FLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=undefined -Icmd -Icmd/lib"
if ${CC:-cc} $FLAGS -o "$T/te" tests/unit/text_escape_test.c cmd/lib/text.c 2>"$T/cc.err"; then
	"$T/te" >"$T/te.out" 2>&1
	rc=$?
	grep '^FAIL' "$T/te.out"
	set -- $(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$T/te.out")
	if [ $rc = 0 ] && [ "${2:-1}" = 0 ]; then
		ok "text_escape_test: ${1:-0} checks"
	else
		fail "text_escape_test" "$(tail -5 "$T/te.out")"
	fi
else
	fail "build text_escape_test" "$(head -c 800 "$T/cc.err")"
fi

# --- Error: lines echo arguments escaped -------------------------------------------
no_esc() {	# NAME: $ERR has no ESC, BEL or CR byte and exactly one Error: line
	expect_stderr_line "$1"
	if printf '%s' "$ERR" | od -An -c | grep -q '033\|\\a\|\\r'; then
		fail "$1: no ESC" "$(printf '%s' "$ERR" | od -c | head -5)"
	else
		ok "$1: no ESC byte"
	fi
}
# run_forged CODE NAME ARGS...: gpuctl ARGS with $forged; the test's own
# lines name it, never print it (it would clear this terminal)
forged=$(printf 'x\033[2J\nError: forged\a')
run_forged() {
	want=$1 name=$2
	shift 2
	"$G" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	OUT=$(cat "$T/out") ERR=$(cat "$T/err")
	[ -z "$want" ] || [ $rc = "$want" ] && ok "$name: exit ${want:-any}" ||
		fail "$name: exit $want" "got $rc"
}
run_forged 2 "bad --listen" exporter serve --listen "$forged"
no_esc "bad --listen echoed"
run_forged 2 "bad --interval" exporter serve --interval "$forged"
no_esc "bad --interval echoed"
run_forged 2 "unknown object" "$forged"
no_esc "unknown object echoed"
run_forged "" "sched list --gpu" sched list --gpu "$forged"
no_esc "sched list --gpu echoed"
run_forged 2 "-j bad --listen" -j exporter serve --listen "$forged"
expect_json "-j error with a forged argument"
printf '%s' "$OUT" | grep -q "$(printf '\033')" && fail "-j error: no raw ESC" "$OUT" ||
	ok "-j error: no raw ESC"

# --- -j exporter textfile: JSON only -----------------------------------------------
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/nobpf"
	expect_exit 0 env GPUCTL_BPFFS=$T/nobpf "$G" -j exporter textfile
	expect_json "-j exporter textfile"
	expect_json_expr "-j exporter textfile: the exposition inside" \
		'"gpuctl_exporter_build_info" in j["exposition"] and j["bytes"] == len(j["exposition"].encode())'
	expect_exit 0 env GPUCTL_BPFFS=$T/nobpf "$G" -j exporter textfile --output "$T/x.prom"
	expect_json_expr "-j exporter textfile --output: output and bytes" \
		"j['output'] == '$T/x.prom' and j['bytes'] == $(wc -c <"$T/x.prom")"
	grep -q gpuctl_exporter_build_info "$T/x.prom" && ok "--output written" || fail "--output" "empty"
else
	ok "skipped: -j exporter textfile needs root"
fi
summary
