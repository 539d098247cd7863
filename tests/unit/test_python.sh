#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_python.sh - the harness library (python/): installs offline into a
# fresh virtual environment exactly as its README says (pip install
# --no-build-isolation --no-index), then runs its tests from outside the
# source tree (so the installed copy is the one imported) against the
# stand-in binary, and the ten-line example too.  Standard library only:
# the install must pull nothing.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    fail "python3 venv" "python3-venv is missing (make deps)"
    summary
fi
V=$T_DIR/venv
if python3 -m venv "$V" >"$T_DIR/venv.out" 2>&1; then ok "python3 -m venv"
else fail "python3 -m venv" "$(tail -3 "$T_DIR/venv.out")"; summary; fi
cp -r python "$T_DIR/src"	# a copy: the build leaves nothing in the tree
if "$V/bin/pip" install --no-build-isolation --no-index "$T_DIR/src" >"$T_DIR/pip.out" 2>&1; then
    ok "pip install --no-build-isolation --no-index (offline)"
else
    fail "pip install --no-build-isolation --no-index (offline)" "$(tail -5 "$T_DIR/pip.out")"
    summary
fi
where=$(cd "$T_DIR" && "$V/bin/python" -c 'import gpuctl; print(gpuctl.__file__)')
case $where in "$V"/*) ok "the installed package is the one imported" ;;
*) fail "the installed package is the one imported" "$where" ;; esac
deps=$("$V/bin/pip" list --format=freeze 2>/dev/null | grep -vE '^(gpuctl|pip|setuptools)==')
[ -z "$deps" ] && ok "nothing but gpuctl installed" || fail "nothing but gpuctl installed" "$deps"

cp -r python/tests "$T_DIR/t"
out=$(cd "$T_DIR/t" && "$V/bin/python" -W error::ResourceWarning -m unittest -v 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | grep -c ' \.\.\. ok$')
bad=$(printf '%s\n' "$out" | grep -E ' \.\.\. (FAIL|ERROR)$')
T_PASS=$((T_PASS + n))
if [ $rc -ne 0 ] || [ -n "$bad" ] || [ "$n" = 0 ]; then
    fail "library tests" "$(printf '%s\n' "$out" | tail -30)"
fi

# the ten-line harness against the stand-in: a workload under populate, its
# counters as a dict, the evict policy gone after the block
export FAKE_STATE=$T_DIR/state.json FAKE_LOG=$T_DIR/log
lines=$(grep -cv '^#' python/examples/populate.py)
[ "$lines" -le 10 ] && ok "the example is $lines lines" || fail "the example is $lines lines" "more than 10"
expect_exit 0 env GPUCTL=python/tests/fake_gpuctl.py GPUCTL_UVM_DEVICE=/dev/null \
    "$V/bin/python" python/examples/populate.py sh -c 'exec 3</dev/null; sleep 0.3'
expect_out "example: status, counters, the engine's report" "^0 [0-9.]+ \{'gpu_faults': 9\} \{.*'policy': 'stride'|'populate'"
grep -q '"evict", "unload"' "$FAKE_LOG" && ok "example: evict unloaded after the block" ||
    fail "example: evict unloaded after the block" "$(cat "$FAKE_LOG")"
summary
