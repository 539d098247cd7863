# SPDX-License-Identifier: GPL-2.0
# tests/vm/policy_elf.sh - sourced by t_policy_elf*.sh (after lib.sh): the fuzz
# objects (tests/policies/fuzz, 'make test-policies'), try OBJ FILE (load; exit
# 0: shown and unloaded; 1: one Error line and nothing changed; never a
# signal); fuzz_lines FIRST LAST: try prefetch on MANIFEST's lines FIRST to
# LAST; behaved: one verdict over every try since.  The MANIFEST is split
# between the files so that each stays well inside its time limit under ASan
# in TCG (the whole of it took over 300 s there on a 2-core host).
FUZZ=tests/policies/fuzz
PIN=/sys/fs/bpf/gpuctl
[ -s $FUZZ/MANIFEST ] || { fail "fuzz objects" "no $FUZZ/MANIFEST: run 'make test-policies'"; summary; }

tree() { find $PIN 2>/dev/null | sort; }

try()	# try OBJ FILE
{
	obj=$1 f=$2 name=$(basename "$2" .elf)
	before_tree=$(tree)
	gpuctl "$obj" load file "$f" >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	rc=$?
	ERR=$(cat "$T_DIR/err")
	case $rc in
	0)
		loaded=$((loaded + 1))
		OUT=$(gpuctl -j "$obj" show)
		[ "$(json_get .source)" = "$f" ] || fail "$obj $name: loaded and shown" "$OUT"
		[ -z "$ERR" ] || fail "$obj $name: loaded quietly" "$ERR"
		gpuctl "$obj" unload >/dev/null 2>&1 || fail "$obj $name: unload" "exit $?"
		;;
	1)
		refused=$((refused + 1))
		lines=$(printf '%s' "$ERR" | grep -c '')
		case $ERR in
		"Error: "*) [ "$lines" = 1 ] || fail "$obj $name: one error line" "$ERR" ;;
		*) fail "$obj $name: one error line" "$ERR" ;;
		esac
		[ "$(tree)" = "$before_tree" ] && [ "$(gpuctl -j "$obj" show)" = "$NONE" ] ||
			fail "$obj $name: refused load changed nothing" "$(tree)"
		;;
	*)
		fail "$obj $name: exit 0 or 1" "exit $rc: $(printf '%s' "$ERR" | head -c 400)"
		;;
	esac
}

NONE='{"policy":null,"stale_pin":false,"schema_version":2}'	# show with nothing loaded (the JSON contract's version last)
loaded=0 refused=0

fuzz_lines()	# fuzz_lines FIRST LAST
{
	failed_before=$T_FAIL
	for n in $(sed -n "$1,$2p" $FUZZ/MANIFEST); do
		try prefetch $FUZZ/$n.elf
	done
}
behaved()	# behaved: after the tries, one verdict over them
{
	echo "# $loaded loaded, $refused refused"
	[ $T_FAIL = $failed_before ] && ok "every object: exit 0 or 1 with one error line, nothing changed when refused" ||
		fail "every object behaved" "see above"
}
