#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# trace and stat on the host (no driver; no root needed): trace report on
# records from tests/fuzz/record_gen, sane and crafted, and the errors of
# the live commands where nothing can be traced.  Under -j standard output is JSON
# and nothing else, or the command line is refused (exit 2); values from a
# file that no backend produces are refused, sums never wrap; nothing from
# the file reaches the terminal as a control byte.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR

if ! ${CC:-cc} -std=gnu11 -O1 -Wall -Wextra -Werror -Icmd -Icmd/lib -Ibpf -o "$T/gen" \
	tests/fuzz/record_gen.c 2>"$T/cc.err"; then
	fail "build record_gen" "$(head -c 400 "$T/cc.err")"
	summary
fi
"$T/gen" sample "$T/s.rec" && "$T/gen" tsg "$T/t.rec" &&
	for k in overflow ctrl gaps; do "$T/gen" craft $k "$T/$k.rec" || exit 1; done ||
	{ fail "record_gen" "could not write the records"; summary; }

# lines of stdout that are not one JSON document each
json_lines_bad() {
	printf '%s\n' "$OUT" | while IFS= read -r line; do
		printf '%s' "$line" | json_valid 2>/dev/null || echo "$line"
	done
}
# bytes of file $1 that are neither printable ASCII nor a newline
ctrl_bytes() { LC_ALL=C tr -d '\n\040-\176' <"$1" | wc -c; }

# --- a sane record ------------------------------------------------------------
expect_exit 0 $G trace report -i "$T/s.rec"
expect_out "report: the record line" "^record: version 1, host testhost, driver 550.163.01, backend bpf"
expect_out "report: faults counted" "^  gpu faults +64  \(13 duplicates\)$"
# issue 44: human units in text, exact numbers under -j
expect_out "report: the span in human units" "^summary: 70 us of events$"
expect_out "report: bytes in human units" "^  migrations +16  \(1.0 MiB to gpu, 0 B to cpu\)$"
expect_out "report: latencies in human units" "^batch service latency: 8 samples, mean 24 us, max 26 us$"
expect_exit 0 $G -j trace report -i "$T/s.rec"
expect_json "-j report"
[ "$(printf '%s\n' "$OUT" | grep -c '')" = 1 ] && ok "-j report: one document, nothing after it" ||
	fail "-j report: one document" "$OUT"
expect_json_eq "-j report: faults" .summary.counts.fault 64
expect_json_eq "-j report: bytes exact" .summary.bytes.to_gpu 1048576
# the record's header is kept (issue 41): the same facts as the text's record: line
expect_json_expr "-j report: records[0] is the header" \
	"j['records'] == [{'version': 1, 'host': 'testhost', 'driver': '550.163.01', 'backend': 'bpf', 'events': 'all', 'pid': 4242, 'start_realtime_ns': j['records'][0]['start_realtime_ns'], 'started': j['records'][0]['started']}]"
expect_json_expr "-j report: started is ISO 8601 UTC" \
	"__import__('re').match(r'^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$', j['records'][0]['started'])"
expect_json_expr "-j report: counts keyed by snake_case event names" \
	"all(__import__('re').match('^[a-z][a-z0-9_]*$', k) for k in j['summary']['counts'])"
expect_exit 0 $G -j trace report -i "$T/s.rec" -i "$T/t.rec"
expect_json_expr "-j report of two records: two headers, in order" \
	"[r['events'] for r in j['records']] == ['all', 'tsg'] and j['records'][1]['backend'] == 'rm'"
expect_exit 0 $G -j trace report -i "$T/s.rec" --format events
[ -z "$(json_lines_bad)" ] && ok "-j --format events: every line is JSON" ||
	fail "-j events lines" "$(json_lines_bad | head -3)"
[ "$(printf '%s\n' "$OUT" | grep -c '"event":')" = 98 ] && ok "-j --format events: 98 events" ||
	fail "-j events count" "$(printf '%s\n' "$OUT" | grep -c '"event":')"
# null, not "-", where there is none; no "-" value anywhere
printf '%s\n' "$OUT" | grep -q '"access":null' && printf '%s\n' "$OUT" | grep -q '"cause":null' &&
	ok "-j events: no access or cause is null" || fail "-j events: null" "$(printf '%s\n' "$OUT" | head -3)"
printf '%s\n' "$OUT" | grep -q '"-"' && fail "-j events: no \"-\" value" "$(printf '%s\n' "$OUT" | grep -m1 '"-"')" ||
	ok "-j events: no \"-\" value"
expect_exit 0 $G -j trace report -i "$T/t.rec" --format events
n=$(printf '%s\n' "$OUT" | grep -c '"event":"tsg_\(new\|set\|free\)"')
[ "$n" = 18 ] && ok "-j tsg events: tsg_new, tsg_set, tsg_free (18)" || fail "-j tsg event names" "$n"
printf '%s\n' "$OUT" | grep -q '"-"\|"event":"tsg-' && fail "-j tsg events: no \"-\"" "$(printf '%s\n' "$OUT" | head -2)" ||
	ok "-j tsg events: no \"-\" and no old names"
expect_exit 0 $G trace report -i "$T/t.rec"
expect_out "tsg report: created" "^  tsgs created +6$"
expect_out "tsg report: per process" "^  100 +- +3 +3 +3$"

# --- -j: JSON only, or a usage error (issue 13) ----------------------------------
expect_exit 2 $G -j trace report -i "$T/s.rec" --format model
expect_json "-j --format model: refused as JSON" &&
	expect_json_expr "-j --format model: the error names the format" '"--format model" in j["error"]'
[ -z "$ERR" ] && ok "-j --format model: nothing on stderr" || fail "-j model stderr" "$ERR"
expect_exit 2 $G -j trace report -i "$T/s.rec" --svg -
expect_json "-j --svg -: refused as JSON"
case $OUT in *"<svg"*) fail "-j --svg -" "SVG on stdout" ;; *) ok "-j --svg -: no SVG in the JSON" ;; esac
expect_exit 1 $G -j trace report -i "$T/s.rec" --svg /nonexistent/dir/x.svg
expect_json "-j --svg to a missing directory: the error is JSON"
expect_json_expr "-j --svg error: the error alone" 'list(j) == ["error", "code", "schema_version"] and "/nonexistent/dir/x.svg" in j["error"]'
[ -z "$ERR" ] && ok "-j --svg error: nothing on stderr" || fail "-j svg stderr" "$ERR"
expect_exit 1 $G trace report -i "$T/s.rec" --svg /nonexistent/dir/x.svg
expect_stderr_line "--svg to a missing directory"
[ -z "$OUT" ] && ok "--svg error: no summary before the error" || fail "--svg error stdout" "$OUT"
expect_exit 0 $G -j trace report -i "$T/s.rec" --svg "$T/heat.svg"
expect_json "-j --svg FILE: the summary is JSON"
grep -q "<svg" "$T/heat.svg" && ok "-j --svg FILE: the SVG is in the file" || fail "svg file" "none"
expect_exit 2 $G -j trace record -o - -- true
expect_json "-j record -o -: refused as JSON"
expect_exit 0 $G trace report -i "$T/s.rec" --format model
expect_out "--format model without -j" "^[0-9a-f]+ [rw] 0$"

# --- crafted records: impossible values, control bytes, huge sums ---------------
expect_exit 1 $G trace report -i "$T/overflow.rec"
expect_stderr_line "latencies whose sum wraps: refused"
case $ERR in *"offset 168"*"impossible"*) ok "the refusal names the event and the value" ;;
*) fail "overflow message" "$ERR" ;; esac
case $OUT in *6148914691236517*) fail "overflow" "the wrapped mean was printed" ;;
*) ok "no wrapped mean printed" ;; esac
expect_exit 1 $G -j trace report -i "$T/overflow.rec"
expect_json "refused record under -j"

expect_exit 0 $G trace report -i "$T/ctrl.rec"
printf '%s\n' "$OUT" >"$T/ctrl.out"
[ "$(ctrl_bytes "$T/ctrl.out")" = 0 ] && ok "control bytes in the header strings do not reach stdout" ||
	fail "control bytes" "$(ctrl_bytes "$T/ctrl.out") in $(head -c 200 "$T/ctrl.out" | od -c | head -3)"
expect_out "host escaped as \\xNN" 'host h\\x1b\[31mred\\x07\\x9b2J\\x5c, driver 5\\x1b\]0;title\\x07, backend bpf\\x7f\\x01, events all\\x0d\\x0a\\x09,'
expect_exit 0 $G trace report -i "$T/ctrl.rec" --format events
printf '%s\n' "$OUT" >"$T/ctrl.ev"
[ "$(ctrl_bytes "$T/ctrl.ev")" = 0 ] && ok "--format events: no control bytes" || fail "events ctrl" "found"

expect_exit 0 $G trace report -i "$T/gaps.rec"
expect_out "huge sums stop at 2^64-1 and say so" "some totals reached 2\^64-1"
expect_exit 0 $G -j trace report -i "$T/gaps.rec"
expect_json_eq "-j: saturated" .summary.saturated true
expect_json_eq "-j: the gap sum stopped at the top" .summary.fault_gap.sum_ns 18446744073709551615

# --- bad files: one error line -------------------------------------------------
expect_exit 1 $G trace report -i "$T/nonexistent"
expect_stderr_line "missing record"
head -c 100 "$T/s.rec" >"$T/short"
expect_exit 1 $G trace report -i "$T/short"
expect_stderr_line "truncated header"

# --- per-GPU tables past 16 and 32 GPUs (issue 32 item 12) ----------------------
# record_gen craft gpusN: GPU g has g + 1 faults and 4 KiB moved in.
for n in 17 33 70; do "$T/gen" craft gpus$n "$T/g$n.rec" || fail "record_gen gpus$n" "not written"; done
expect_exit 0 $G trace report -i "$T/g17.rec"
expect_out "17 GPUs: GPU 16's row (17 faults, bytes in human units)" "^  16 +17 +4.0 KiB +0 B$"
expect_exit 0 $G -j trace report -i "$T/g33.rec"
expect_json_eq "33 GPUs: -j has a row for each (GPU 32 the 33rd)" '.summary.by_gpu[32].gpu' 32
expect_json_eq "33 GPUs: GPU 32's row (33 faults)" '.summary.by_gpu[32].gpu_faults' 33
case $OUT in *by_gpu_beyond*) fail "33 GPUs: nothing past the table" "$OUT" ;;
	*) ok "33 GPUs: nothing past the table" ;; esac
expect_exit 0 $G trace report -i "$T/g33.rec"
expect_out "33 GPUs: GPU 32's text row" "^  32 +33 +4.0 KiB +0 B$"
# past gpuctl's limit (64): never left out silently
expect_exit 0 $G -j trace report -i "$T/g70.rec"
expect_json_eq "70 GPUs: 64 rows (GPU 63 the last)" '.summary.by_gpu[63].gpu' 63
expect_json_eq "70 GPUs: no 65th row" '.summary.by_gpu[64].gpu' ""
expect_json_eq "70 GPUs: GPUs 64-69 together, their faults counted (65+...+70)" \
	'.summary.by_gpu_beyond.gpu_faults' 405
expect_json_eq "70 GPUs: up to GPU 69" '.summary.by_gpu_beyond.gpus_to' 69
expect_exit 0 $G trace report -i "$T/g70.rec"
expect_out "70 GPUs: the text says the ones past the table" "^  64-69 +405 +24 KiB +0 B  \(GPUs past gpuctl's 64, together\)$"

# --- no uvm-tools device: said at once, not an empty trace ---------------------
if [ ! -e /dev/nvidia-uvm-tools ]; then
	expect_exit 1 $G trace faults --backend uvm-tools -- true
	expect_stderr_line "uvm-tools without its device"
	case $ERR in *"/dev/nvidia-uvm-tools"*) ok "the missing device is named" ;;
	*) fail "uvm-tools device message" "$ERR" ;; esac
	[ -z "$OUT" ] && ok "no empty summary" || fail "uvm-tools without device" "$OUT"
	expect_exit 1 $G stat --backend uvm-tools -- true
	expect_stderr_line "stat: uvm-tools without its device"
	# -o FILE: a stat that cannot count leaves no file behind
	expect_exit 1 $G stat --backend uvm-tools -o "$T/st.out" -- true
	[ ! -e "$T/st.out" ] && ok "stat -o: nothing written when stat fails" || fail "stat -o failed" "file left"
fi

# --- stat -r N, -o FILE: refused at once, one line, nothing run -----------------
expect_exit 2 $G stat -r 2 && expect_stderr_line "stat -r without a command" &&
	expect_err "stat -r without a command: names the form" "stat -r 5 -- CMD"
expect_exit 2 $G stat -r 2 -I 100 -- true && expect_stderr_line "stat -r with -I"
expect_exit 2 $G stat -r 0 -- true && expect_stderr_line "stat -r 0"
expect_exit 2 $G stat --repeat=1001 -- true && expect_stderr_line "stat -r past its bound"
expect_exit 2 $G -j stat -r x -- true && expect_json_eq "stat -j -r x: USAGE" .code USAGE
expect_exit 1 $G stat -o "$T" -- true && expect_stderr_line "stat -o DIRECTORY"
ln -s "$T/nowhere" "$T/st.link"
expect_exit 1 $G stat -o "$T/st.link" -- true && expect_stderr_line "stat -o through a link"
[ ! -e "$T/nowhere" ] && ok "stat -o: the link's target not created" || fail "stat -o link" "created"
summary
