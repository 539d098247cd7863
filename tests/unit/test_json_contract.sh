#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_json_contract.sh - what a harness relies on under -j (gpuctl(8), JSON
# OUTPUT): every document carries "schema_version", errors carry a "code"
# (USAGE for a bad command line, chosen where the error happens, whichever
# option grammar refused it), -j works after the object too, and the man page
# states the contract.  Host only: no driver, no root.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

G=$GPUCTL
V=2

expect_exit 0 "$G" -j version && expect_json_eq "version: schema_version" .schema_version $V
expect_exit 0 "$G" -j probe && expect_json_eq "probe: schema_version" .schema_version $V
expect_exit 0 "$G" probe -j && expect_json_eq "probe -j (after the object): schema_version" .schema_version $V
expect_exit 0 "$G" -j prefetch list &&
    expect_json_expr "prefetch list: every row carries it" \
        "isinstance(j, list) and j and all(r['schema_version'] == $V for r in j)"
expect_exit 0 "$G" -p version &&
    expect_json_expr "pretty: the stamp is the last member" "list(j)[-1] == 'schema_version'"
expect_exit 2 "$G" -j bogus &&
    expect_json_expr "error: error, code, schema_version" \
        "j == {'error': j['error'], 'code': 'USAGE', 'schema_version': $V}"
# a value refused by the units grammar, a PID refused by the one PID parser: USAGE
expect_exit 2 "$G" stat -j -I 5x && expect_json_eq "stat -I 5x: code" .code USAGE
expect_exit 2 "$G" stat -j --pid 0 && expect_json_eq "stat --pid 0: code" .code USAGE
expect_exit 2 "$G" -j stat --interval-count 2 && expect_json_eq "stat --interval-count without -I: code" .code USAGE
# codes chosen where the error happens (gpuctl(8)): this host has no driver; bpffs
# named where none is (status would answer "nothing loaded": test_show_rule)
mkdir -p "$T_DIR/notbpf"
expect_exit 1 env GPUCTL_BPFFS="$T_DIR/notbpf" "$G" -j sched list &&
    expect_json_eq "no bpffs: BPFFS_ABSENT" .code BPFFS_ABSENT
if [ ! -e /dev/nvidia-uvm-tools ]; then
    expect_exit 1 "$G" -j stat -- true && expect_json_eq "no trace back-end: NO_BACKEND" .code NO_BACKEND
    expect_exit 1 "$G" -j prefetch load stream -p 1 --max-bytes 64M &&
        expect_json_eq "no uvm-tools device: NO_DRIVER" .code NO_DRIVER
fi
for w in PERMISSION BPFFS_ABSENT NO_DRIVER NO_BACKEND; do
    grep -q "^\*\*$w\*\*" man/gpuctl.8.rst && ok "gpuctl(8) documents $w" || fail "gpuctl(8) documents $w" "missing"
done
# the batch's array: each command's result carries it
B=$T_DIR/batch
printf 'version\nprobe\n' >"$B"
expect_exit 0 "$G" -j batch file "$B" &&
    expect_json_expr "batch: each result carries it" "len(j) == 2 and all(r['schema_version'] == $V for r in j)"
# a stream: one document per line, each stamped
out=$("$G" -j stat -I 5x 2>/dev/null; "$G" -j version)
n=$(printf '%s\n' "$out" | grep -c '"schema_version":2}$')
[ "$n" = 2 ] && ok "one document a line, each stamped" || fail "one document a line, each stamped" "$out"
grep -q '"schema_version"' man/gpuctl.8.rst && ok "gpuctl(8) states the contract" ||
    fail "gpuctl(8) states the contract" "no schema_version in man/gpuctl.8.rst"
grep -q 'GPUCTL_SCHEMA_VERSION '"$V"'$' cmd/lib/gpuctl.h && ok "the version is $V" ||
    fail "the version is $V" "cmd/lib/gpuctl.h says otherwise: update this test and the man page"
summary
