#!/bin/sh
# The second half of the users' policy objects of every shape
# (tests/policies/fuzz, t_policy_elf.sh has the first), and the same shapes
# offered to evict and replay: every load exits 0 (then show names it and
# unload removes it) or 1 with exactly one "Error: " line and nothing
# changed; never a signal, never a sanitizer report.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/policy_elf.sh"

half=$(( $(grep -c '' $FUZZ/MANIFEST) / 2 ))
fuzz_lines $((half + 1)) '$'
# the same shapes offered to the two other types: all refused cleanly
for n in typedef_1 typedef_40 cv_40 anon_var fwd_ptr_deep trunc_200 flip_BTF_3 btfword_5; do
	try evict $FUZZ/$n.elf
	try replay $FUZZ/$n.elf
done
behaved
[ $refused -gt 0 ] && ok "refusals seen ($refused)" || fail "refusals seen" "$loaded loaded, $refused refused"
summary
