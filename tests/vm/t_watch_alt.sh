#!/bin/sh
# bench/watch_alt's uprobe counter (watch-alt-uprobe) in the VM against the
# fake libcuda.so.1 (tests/watch_alt/fakecuda.c: its cuGetProcAddress hands
# back an internal function, as a driver may): the calls and sizes at the
# exported symbol and at the offset watch-alt-resolve finds; -- CMD and -p
# PID; only the watched process counted; the command's status; every
# refusal one Error line, exit 1 or 2, no report, no probe left.
# Needs `make bench-watch-alt` (tests/run carries bench/watch_alt/bin).
. "$(dirname "$0")/../lib.sh"
B=bench/watch_alt/bin
T=$T_DIR
U=$B/watch-alt-uprobe
L=$(pwd)/$B/test/libcuda.so.1
C=$B/test/callcuda
if [ ! -x "$U" ] || [ ! -x "$C" ] || [ ! -f "$L" ]; then
	fail "watch_alt pieces" "$B is not built (make bench-watch-alt)"
	summary
fi
export LD_LIBRARY_PATH=$(pwd)/$B/test

expect_exit 0 $B/watch-alt-resolve libcuda.so.1 cuMemAllocManaged
P=$(printf '%s\n' "$OUT" | cut -f3)
E=$(printf '%s\n' "$OUT" | cut -f2)
[ "$(printf '%s\n' "$OUT" | cut -f1)" = "$L" ] && [ -n "$P" ] && [ "$P" != - ] && [ "$P" != "$E" ] &&
	ok "resolve: the fake's file, its export and another function for cuGetProcAddress" ||
	fail "resolve" "$OUT"

# -- CMD: the symbol alone, and the symbol with cuGetProcAddress's offset
expect_exit 0 $U --lib "$L" --out $T/sym.json -- $C link:4096 gpa:8192 dl:12288
OUT=$(cat $T/sym.json)
expect_json_expr "uprobe at the export: the linked call only (the runtime's way bypasses it)" \
	'j["allocs"] == 1 and j["points"][0]["at"] == "cuMemAllocManaged" and j["points"][0]["calls"] == 1 and j["points"][0]["sizes"] == [4096]'
expect_exit 0 $U --lib "$L" --offset "$P" --out $T/both.json -- $C link:4096 gpa:8192 dl:12288 link:65536
ADDRS=$(printf '%s\n' "$OUT" | awk '$1 == "alloc" { printf "%s%s", n++ ? "," : "", $4 }')
OUT=$(cat $T/both.json)
expect_json_expr "uprobe at the offset: every call, its size, in order" \
	'j["allocs"] == 4 and j["points"][1]["offset"] == "'"$P"'" and j["points"][1]["calls"] == 4 and j["points"][1]["sizes"] == [4096, 8192, 12288, 65536]'
expect_json_expr "uprobe: the addresses the calls returned (uretprobe, *dptr)" \
	'j["points"][1]["addrs"] == [int(a, 16) for a in "'"$ADDRS"'".split(",")] and j["points"][0]["addrs"] == [j["points"][1]["addrs"][0], j["points"][1]["addrs"][3]]'
expect_json_expr "uprobe: entries match returns, bytes, entry-to-return times" \
	'all(p["entries"] == p["calls"] == p["ok"] for p in j["points"]) and j["points"][1]["bytes"] == 90112 and 0 < j["points"][1]["took_ns_p50"] <= j["points"][1]["took_ns_max"] and j["lost"] == 0'
# a failed call: counted, not ok, no bytes, no address
expect_exit 1 $U --lib "$L" --no-symbol --offset "$P" --out $T/fail.json -- $C dl:0 dl:100
OUT=$(cat $T/fail.json)
expect_json_expr "uprobe: a refused allocation counted, not ok; the command's status 1" \
	'len(j["points"]) == 1 and j["points"][0]["calls"] == 2 and j["points"][0]["ok"] == 1 and j["points"][0]["bytes"] == 100 and j["points"][0]["addrs"][0] == 0'
expect_exit 7 $U --lib "$L" --out $T/st.json -- sh -c 'exit 7'
[ -s $T/st.json ] && ok "uprobe -- CMD: the command's exit status, the report written" || fail "status" "no report"
expect_exit 143 $U --lib "$L" --out $T/sig.json -- sh -c 'kill -TERM $$'

# -p PID: attached to a running process; another process's calls are not counted
$C sleep:3000 link:1000 dl:2000 dl:3000 >$T/a.out &
A=$!
(sleep 2; $C link:5 dl:6 >/dev/null) &
O=$!
expect_exit 0 $U --lib "$L" --offset "$P" --out $T/pid.json -p $A
wait $O
OUT=$(cat $T/pid.json)
expect_json_expr "uprobe -p: the process's calls, not the other's" \
	'j["pid"] == '"$A"' and j["points"][1]["sizes"] == [1000, 2000, 3000] and j["points"][0]["sizes"] == [1000]'

# refusals: one Error line, the exit status, no report, no probe left
expect_exit 1 $U --lib "$L" --out $T/r1.json -p 999999 && expect_stderr_line "uprobe: no such process"
expect_err "uprobe: says which pid" '^Error: no process 999999$'
expect_exit 1 $U --lib "$L" --symbol cuNoSuch --out $T/r2.json -- true && expect_stderr_line "uprobe: no such symbol"
LIBC=$(ls /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6 /lib64/libc.so.6 2>/dev/null | head -n 1)
expect_exit 1 $U --lib "$LIBC" --out $T/r3.json -- true && expect_stderr_line "uprobe: a library without cuMemAllocManaged"
expect_err "uprobe: names the symbol and the errno" 'has no symbol cuMemAllocManaged \(errno [0-9]+\)$'
expect_exit 1 $U --lib "$L" --no-symbol --offset 0x7fffffff --out $T/r4.json -- true &&
	expect_stderr_line "uprobe: an offset past the file"
expect_err "uprobe: the kernel's refusal with its errno" '^Error: the kernel refused a uprobe on .* at offset 0x7fffffff: .* \(errno [0-9]+\)$'
expect_exit 1 $U --lib $T/none.so --out $T/r5.json -- true && expect_stderr_line "uprobe: no such library"
expect_exit 127 $U --lib "$L" --out $T/r6.json -- $T/nonexistent && expect_stderr_line "uprobe: a command that does not start"
expect_exit 2 $U --lib "$L" -p 1 -- true && expect_stderr_line "uprobe: -p and -- CMD"
ls $T/r?.json >/dev/null 2>&1 && fail "refusals" "a report was written: $(ls $T/r?.json)" || ok "refusals: no report written"
ls $T/*.tmp >/dev/null 2>&1 && fail "temporary files" "$(ls $T/*.tmp)" || ok "no temporary report left"
EV=$(cat /sys/kernel/tracing/uprobe_events 2>/dev/null)
[ -z "$EV" ] && ok "no uprobe left behind" || fail "uprobes left" "$EV"
summary
