#!/bin/sh
# Users' policy objects of every shape (tests/policies/fuzz.py, built on the
# host by 'make test-policies'): typedef/const/volatile chains of many
# depths, wrong/anonymous/forward-declared/array/union/int struct_ops
# variables, missing sections, truncated and garbled copies.  Every load
# exits 0 (then show names it and unload removes it) or 1 with exactly one
# "Error: " line and nothing changed; never a signal, never a sanitizer
# report (run with GPUCTL_BIN=gpuctl-asan for those).
. "$(dirname "$0")/../lib.sh"

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
failed_before=$T_FAIL
for n in $(cat $FUZZ/MANIFEST); do
	try prefetch $FUZZ/$n.elf
done
# the same shapes offered to the two other types: all refused cleanly
for n in typedef_1 typedef_40 cv_40 anon_var fwd_ptr_deep trunc_200 flip_BTF_3 btfword_5; do
	try evict $FUZZ/$n.elf
	try replay $FUZZ/$n.elf
done
echo "# $loaded loaded, $refused refused"
[ $T_FAIL = $failed_before ] && ok "every object: exit 0 or 1 with one error line, nothing changed when refused" ||
	fail "every object behaved" "see above"
[ $loaded -gt 0 ] && [ $refused -gt 0 ] && ok "both outcomes seen" ||
	fail "both outcomes seen" "$loaded loaded, $refused refused"

# what the shapes must give
loads() { expect_exit 0 gpuctl prefetch load file $FUZZ/$1.elf && gpuctl prefetch unload >/dev/null; }
refuses() {	# refuses NAME REGEX
	expect_exit 1 gpuctl prefetch load file $FUZZ/$1.elf
	expect_stderr_line "$1"
	printf '%s\n' "$ERR" | grep -Eq -- "$2" && ok "$1: names the problem" ||
		fail "$1: names the problem (/$2/)" "$ERR"
}
for n in typedef_1 typedef_8 typedef_16 typedef_30 cv_3 const_var; do loads $n; done
refuses typedef_40 "typedef/const/volatile levels; libbpf resolves at most"
refuses typedef_200 "typedef/const/volatile levels; libbpf resolves at most"
refuses cv_20 "typedef/const/volatile levels; libbpf resolves at most"
refuses typedef_31 "behind 31 typedef/const/volatile levels; libbpf resolves at most 30"
refuses deep_elsewhere_40 "typedef/const/volatile chain.*the kernel follows at most"
refuses deep_elsewhere_33 "chain 33 levels deep.*the kernel follows at most 32"
loads deep_elsewhere_32
refuses wrong_deep "uvm_evict_ops, not struct uvm_gpu_ext"
refuses int_var "int, not struct uvm_gpu_ext"
refuses anon_var "anonymous"
refuses union_var "union"
refuses fwd_ptr "pointer"
refuses array_var "array"
refuses two_vars "exactly one|two"
refuses plain_section "struct_ops.link"
refuses no_btf "no BTF"
refuses no_license "license"
refuses trunc_0 "not an ELF"
refuses trunc_63 "not an ELF"
summary
