#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_bench_decide.sh - bench/prefetch_engine/decide (the engine's decision
# cost, `make bench`) builds from the engine's own files and runs: every
# built-in policy measured on both patterns, its JSON well formed, a bad
# option one usage line and exit 2.  (It once stopped building when the
# runner's signature moved, and nothing noticed.)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

D=bench/prefetch_engine/decide
expect_exit 0 make -s "$D" NODEPS=1
expect_exit 2 "$D" -x
expect_err "a bad option: its usage line" '^usage: decide '
# (root on the host: BPF_PROG_TEST_RUN, as test_pfengine.sh)
expect_exit 0 "$D" -r 1 -j
names=$(printf '%s' "$OUT" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
pats = {}
for r in rows:
    assert r["rounds"] == 1 and set(r["median_ns"]) == {"0", "1", "16", "64", "256"}, r
    pats.setdefault(r["policy"], set()).add(r["pattern"])
print(" ".join(p for p in sorted(pats) if pats[p] == {"seq", "random"}))')
want=$(grep -o '^[[:space:]]{ "[a-z_]*", engine_' cmd/pfengine/bpfrun.c | sed 's/^[[:space:]]{ "\(.*\)",.*/\1/' | sort | tr '\n' ' ')
[ -n "$names" ] && [ "$names " = "$want" ] && ok "every built-in policy, both patterns ($names)" ||
	fail "policies" "measured '$names', built in '$want'"
summary
