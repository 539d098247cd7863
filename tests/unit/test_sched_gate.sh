#!/bin/sh
# Unit test: lc-be's gate (cmd/sched/lcbe/gate.c), through RM's mechanism row (mech_rm.c), with RM stubbed
# (tests/unit/sched_gate_test.c): rotation turns and the stall bound, the
# hint's share bound against its writers, the hint file truncated and filled
# with garbage, per-GPU decisions.  Built here with cc; no root, no GPU.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-gate.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-format-truncation \
	-Icmd -Icmd/lib -Icmd/drv -Ibpf -Ihint -o "$T/gate" tests/unit/sched_gate_test.c \
	cmd/sched/mech_rm.c cmd/sched/lcbe/gate.c cmd/sched/lcbe/hint_file.c cmd/sched/lcbe/ledger.c cmd/sched/lcbe/latency.c cmd/sched/lcbe/target.c cmd/lib/output.c cmd/lib/units.c cmd/lib/json_writer.c cmd/lib/text.c -lpthread -lm 2>"$T/cc.err"; then
	echo "FAIL build: $(head -c 800 "$T/cc.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
"$T/gate"
