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
expect_exit 0 env GPUCTL=python/tests/fake_gpuctl.py \
    "$V/bin/python" python/examples/populate.py sh -c 'sleep 0.1'
expect_out "example: status, counters, the engine's report" "^0 [0-9.]+ \{'gpu_faults': 9\} \{.*'policy': 'populate'"
grep -q '"evict", "unload"' "$FAKE_LOG" && ok "example: evict unloaded after the block" ||
    fail "example: evict unloaded after the block" "$(cat "$FAKE_LOG")"

# the bench's scripts read gpuctl's output through the library, not with regexes
for f in bench/*.py bench/*/*.py bench/*/*/*.py; do
    [ -f "$f" ] || continue
    grep -qE 'args\.gpuctl|gpuctl_(exporter|uvm|tsg)_|\["gpuctl"' "$f" || continue
    if grep -qE '^import gpuctl|^ *import gpuctl' "$f" && ! grep -qE '^import re$|re\.(search|match|findall|compile)' "$f"; then
        ok "$f: gpuctl's output through the library"
    else
        fail "$f: gpuctl's output through the library" "no 'import gpuctl', or a regex"
    fi
done
imp=$(cd bench && python3 -B -c 'import sys; sys.argv = ["x"]; import exporter_cost, gpuctl; print(exporter_cost.gpuctl is gpuctl)' 2>&1)
[ "$imp" = True ] && ok "bench/exporter_cost.py finds the library in the tree" || fail "exporter_cost imports" "$imp"

# against the real binary (no driver here): documents, a typed error, run's document, completion
real=$(cd "$T_DIR" && GPUCTL=$GPUCTL "$V/bin/python" - <<'PY' 2>&1
import gpuctl
g = gpuctl.Gpuctl()
assert g.json("version")["schema_version"] == gpuctl.SCHEMA_VERSION
try:
    g.json("bogus")
    raise SystemExit("no UsageError")
except gpuctl.UsageError as e:
    assert e.code == "USAGE" and e.status == 2, e
r = g.run(["sh", "-c", "exit 3"])
assert r["command_status"] == 3 and r["prefetch"] is None, r
try:
    g.run(["true"], stat=True)
    raise SystemExit("a failing tool did not raise")
except gpuctl.NoBackend as e:
    assert "backend" in e.message and e.code == "NO_BACKEND", e
assert "stat" in g.complete("st"), g.complete("st")
print("real binary: ok")
PY
)
[ "$real" = "real binary: ok" ] && ok "the library against the real gpuctl" ||
    fail "the library against the real gpuctl" "$real"
summary
