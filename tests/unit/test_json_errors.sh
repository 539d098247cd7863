#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/test_json_errors.sh - errors under -j keep {"error": "text"}
# (bpftool's shape) and carry a stable "code" beside it: the errno name when
# a system call's error is the cause, USAGE for a bad command line from the
# shared parser, FAILED otherwise; text mode keeps its one Error: line.  The
# codes are documented in gpuctl(8).  No root, no driver.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL

code_is() {	# code_is NAME CODE: $OUT is {"error": ..., "code": CODE}, error first
    expect_json_expr "$1" "list(j) == ['error', 'code', 'schema_version'] and j['code'] == '$2' and j['error']"
}

expect_exit 1 "$G" -j trace report -i "$T_DIR/nonexistent"
code_is "missing file: ENOENT" ENOENT
mkdir -p "$T_DIR/locked" && echo x > "$T_DIR/locked/rec" && chmod 000 "$T_DIR/locked"
if [ "$(id -u)" = 0 ]; then
    chmod 711 "$T_DIR"
    expect_exit 1 setpriv --reuid=65534 --regid=65534 --clear-groups -- "$G" -j trace report -i "$T_DIR/locked/rec"
    code_is "no permission: EACCES" EACCES
fi
expect_exit 1 "$G" -j trace report -i /
case $(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["code"])' "$OUT") in
    EISDIR|FAILED) ok "a directory: EISDIR or FAILED" ;; *) fail "a directory" "$OUT" ;; esac
echo 'not a record' > "$T_DIR/junk"
expect_exit 1 "$G" -j trace report -i "$T_DIR/junk"
code_is "not a record: FAILED" FAILED
expect_exit 2 "$G" -j nosuchobject
code_is "unknown object: USAGE" USAGE
expect_exit 2 "$G" -j prefetch nosuchcommand
code_is "unknown command: USAGE" USAGE
expect_exit 2 "$G" -j probe extra
code_is "probe extra: USAGE" USAGE
# batch: the line's error carries its code too
printf 'probe help\ntrace report -i %s\n' "$T_DIR/nonexistent" > "$T_DIR/b"
expect_exit 1 "$G" -j batch file "$T_DIR/b"
expect_json_expr "batch: the failing line's code" 'j[-1]["code"] == "ENOENT" and j[-1]["error"].startswith("batch line 2: ")'
# text mode: unchanged, one Error: line, no code
expect_exit 1 "$G" trace report -i "$T_DIR/nonexistent"
expect_stderr_line "text mode"
case $ERR in *ENOENT*) fail "text mode: no code" "$ERR" ;; *) ok "text mode: no code" ;; esac
# gpuctl(8) documents the codes
sect=$(sed -n '/^JSON OUTPUT$/,/^EXIT STATUS$/p' man/gpuctl.8.rst)
for w in '"code"' ENOENT USAGE FAILED; do
    case $sect in *"$w"*) ok "gpuctl(8) JSON OUTPUT names $w" ;; *) fail "gpuctl(8) JSON OUTPUT names $w" "missing" ;; esac
done
summary
