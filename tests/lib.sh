# SPDX-License-Identifier: GPL-2.0
# tests/lib.sh - a tiny harness for gpuctl's shell tests.  Source it.
#
#   ok NAME                      count a pass
#   fail NAME MSG                count a failure and say why
#   expect_exit CODE CMD...      run CMD; stdout in $OUT, stderr in $ERR,
#                                exit status in $RC; passes when RC == CODE
#   expect_stderr_line NAME      $ERR is exactly one line, starting "Error: "
#   expect_json NAME             $OUT parses as JSON (python3, or jsoncheck)
#   expect_json_eq NAME PATH V   the value at PATH (.a.b[0]) of $OUT is V
#   expect_json_expr NAME EXPR   a python3 expression on j (host tests only)
#   expect_out NAME REGEX        $OUT has a line matching REGEX (grep -E)
#   summary                      "N passed, N failed"; exit 1 on failures
#
# The binary is $GPUCTL (default ./gpuctl, relative to the repo root).

GPUCTL=${GPUCTL:-./gpuctl}
case $GPUCTL in
/*) ;;
*) GPUCTL=$(cd "$(dirname "$GPUCTL")" && pwd)/$(basename "$GPUCTL") ;;
esac
export GPUCTL

T_PASS=0
T_FAIL=0
T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-test.XXXXXX")
trap 'rm -rf "$T_DIR"' EXIT

ok()
{
    T_PASS=$((T_PASS + 1))
    printf 'ok   %s\n' "$1"
}

fail()
{
    T_FAIL=$((T_FAIL + 1))
    printf 'FAIL %s: %s\n' "$1" "$2"
    if [ -n "${OUT+x}" ] && [ -n "$T_VERBOSE" ]; then
        printf '     stdout: %s\n     stderr: %s\n' "$OUT" "$ERR"
    fi
}

expect_exit()
{
    local want=$1 name
    shift
    name="exit $want: $*"
    "$@" >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
    RC=$?
    OUT=$(cat "$T_DIR/out")
    ERR=$(cat "$T_DIR/err")
    if [ "$RC" = "$want" ]; then
        ok "$name"
        return 0
    fi
    fail "$name" "exit status $RC; stderr: $(head -c 300 "$T_DIR/err")"
    return 1
}

expect_stderr_line()
{
    local name="$1: one Error line"
    local lines
    lines=$(printf '%s' "$ERR" | grep -c '')
    if [ "$lines" -ne 1 ]; then
        fail "$name" "stderr has $lines lines: $ERR"
        return 1
    fi
    case $ERR in
    "Error: "*) ok "$name"; return 0 ;;
    esac
    fail "$name" "stderr does not start with 'Error: ': $ERR"
    return 1
}

# JSON is checked with python3 where there is one, else with
# tests/tools/jsoncheck (the VM has no python).
# Tests run from the repo root.
JSONCHECK=${JSONCHECK:-$(pwd)/tests/tools/jsoncheck}

json_valid()	# stdin is one JSON value
{
    if command -v python3 >/dev/null 2>&1; then
        python3 -m json.tool >/dev/null
    else
        "$JSONCHECK"
    fi
}

# json_get PATH: the value at PATH (.a.b[0]) of $OUT; strings unquoted.
json_get()
{
    printf '%s' "$OUT" | "$JSONCHECK" "$1" 2>/dev/null
}

expect_json()
{
    local name="$1: valid JSON"
    if printf '%s' "$OUT" | json_valid 2>"$T_DIR/jerr"; then
        ok "$name"
        return 0
    fi
    fail "$name" "$(cat "$T_DIR/jerr"): $(printf '%s' "$OUT" | head -c 300)"
    return 1
}

# expect_json_eq NAME PATH VALUE: the value at PATH of $OUT is VALUE.
expect_json_eq()
{
    local got
    got=$(json_get "$2")
    if [ "$got" = "$3" ]; then
        ok "$1"
        return 0
    fi
    fail "$1" "$2 is '$got', not '$3' in $(printf '%s' "$OUT" | head -c 300)"
    return 1
}

# what a failed check shows of a long output: its head and its tail (rows
# of a table often come last)
ends_of()
{
    if [ "$(printf '%s' "$1" | wc -c)" -le 900 ]; then
        printf '%s' "$1"
    else
        printf '%s\n[...]\n%s' "$(printf '%s' "$1" | head -c 300)" "$(printf '%s' "$1" | tail -c 600)"
    fi
}

expect_out()
{
    if printf '%s\n' "$OUT" | grep -Eq -- "$2"; then
        ok "$1"
        return 0
    fi
    fail "$1" "stdout lacks /$2/: $(ends_of "$OUT")"
    return 1
}

expect_err()
{
    if printf '%s\n' "$ERR" | grep -Eq -- "$2"; then
        ok "$1"
        return 0
    fi
    fail "$1" "stderr lacks /$2/: $(printf '%s' "$ERR" | head -c 300)"
    return 1
}

# A python3 expression on the parsed JSON of $OUT (as j) must be true.
expect_json_expr()
{
    if printf '%s' "$OUT" | python3 -c '
import json, sys
j = json.load(sys.stdin)
sys.exit(0 if eval(sys.argv[1]) else 1)' "$2" 2>"$T_DIR/jerr"; then
        ok "$1"
        return 0
    fi
    fail "$1" "not true: $2 ($(head -c 200 "$T_DIR/jerr")) on $(printf '%s' "$OUT" | head -c 300)"
    return 1
}

summary()
{
    printf '%d passed, %d failed\n' "$T_PASS" "$T_FAIL"
    [ "$T_FAIL" -eq 0 ]
    exit $?
}

# start_client NAME ARGS...: the model's RM client (tests/model/rmclient, $RMC)
# copied to NAME (its comm) and started in the background, waited for until it
# says "ready" (5 s at most); CPID its pid, its output in ${W:-$T_DIR}/NAME.out.
start_client()
{
    local name=$1 w=${W:-$T_DIR} i=0
    shift
    cp "${RMC:-tests/model/rmclient}" "$w/$name"
    "$w/$name" "$@" >"$w/$name.out" 2>&1 &
    CPID=$!
    while ! grep -q '^ready' "$w/$name.out" 2>/dev/null; do
        i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.05
    done
}
