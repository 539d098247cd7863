#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# issue 35: which pod, container or unit a GPU process runs for, from its
# /proc/PID/cgroup (cmd/lib/cgroup.c): the unit test over crafted contents
# of every layout (tests/unit/cgroup_test.c).  The real hierarchies are
# built in the VM (tests/vm/t_exporter_pods.sh).
# issue 42: paths a user with a delegated cgroup can make (pods, containers,
# Slurm steps below a unit) are not believed.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=$T_DIR
FLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=undefined -Icmd -Icmd/lib"
if ${CC:-cc} $FLAGS -o "$T/cg" tests/unit/cgroup_test.c cmd/lib/cgroup.c 2>"$T/cc.err"; then
	"$T/cg" >"$T/cg.out" 2>&1
	rc=$?
	grep '^FAIL' "$T/cg.out"
	set -- $(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$T/cg.out")
	if [ $rc = 0 ] && [ "${2:-1}" = 0 ]; then
		ok "cgroup_test: ${1:-0} layouts"
	else
		fail "cgroup_test" "$(tail -5 "$T/cg.out")"
	fi
else
	fail "build cgroup_test" "$(head -c 800 "$T/cc.err")"
fi
summary
