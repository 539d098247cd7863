#!/bin/sh
# Users' policy objects of every shape (tests/policies/fuzz.py, built on the
# host by 'make test-policies'): typedef/const/volatile chains of many
# depths, wrong/anonymous/forward-declared/array/union/int struct_ops
# variables, missing sections, truncated and garbled copies.  Every load
# exits 0 (then show names it and unload removes it) or 1 with exactly one
# "Error: " line and nothing changed; never a signal, never a sanitizer
# report (run with GPUCTL_BIN=gpuctl-asan for those).  MANIFEST's first half
# here, the second and the other two types in t_policy_elf_more.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/policy_elf.sh"

half=$(( $(grep -c '' $FUZZ/MANIFEST) / 2 ))
fuzz_lines 1 $half
behaved
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
