#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 44: trace report's pictures and open formats, read as a reader does.
#   - a version-2 record with faults at known times and addresses
#     (tests/fuzz/record_gen pictures): each fault's cell is found from the
#     SVG's tick labels and range labels alone (tests/tools/picturecheck.py),
#     and the PNG that Debian's headless Chromium renders of the SVG is
#     coloured there and blank in the other access's panel (no skip: CI
#     installs chromium, tests/deps.sh); a PNG of another picture fails it;
#   - the Chrome trace-event JSON has the format's required fields, names the
#     processes and GPUs; the CSV has its documented columns, a row an event;
#   - names that need escaping reach SVG, JSON and CSV escaped;
#   - bad input: empty, a single event, truncated, corrupt table entry, lost
#     events only, addresses over 2^47 up to 2^64 - 1, two million events
#     (bounded output that says what it merged): a picture or one error line.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
G=$GPUCTL
T=$T_DIR
PC="python3 tests/tools/picturecheck.py"

if ! ${CC:-cc} -std=gnu11 -O1 -Wall -Wextra -Werror -Icmd -Icmd/lib -Ibpf -o "$T/gen" \
	tests/fuzz/record_gen.c 2>"$T/cc.err"; then
	fail "build record_gen" "$(head -c 400 "$T/cc.err")"
	summary
fi
"$T/gen" pictures "$T/p.rec" >"$T/faults" && "$T/gen" tsg "$T/t.rec" && "$T/gen" sample "$T/v1.rec" &&
	for k in wide single lost empty; do "$T/gen" $k "$T/$k.rec" || exit 1; done ||
	{ fail "record_gen" "could not write the records"; summary; }
[ "$(grep -c '^fault ' "$T/faults")" = 24 ] && ok "record_gen pictures: 24 faults listed" ||
	fail "fault list" "$(head -3 "$T/faults")"

# xml FILE: well-formed XML
xml() { python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" 2>&1; }
# render SVG PNG: Chromium's picture of SVG at its own size
render() {
	wh=$(python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot(); print("%s,%s" % (r.get("width"), r.get("height")))' "$1")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$T/chrome" \
		--window-size="$wh" --screenshot="$2" "file://$1" >"$T/chrome.log" 2>&1 && [ -s "$2" ]
}

# --- the picture ------------------------------------------------------------------
expect_exit 0 $G trace report -i "$T/p.rec" --svg "$T/p.svg"
why=$(xml "$T/p.svg") && ok "SVG is well-formed XML" || fail "SVG XML" "$why"
grep -q 'gpuctl trace: testhost, driver 550.163.01' "$T/p.svg" && ok "title: host and driver" ||
	fail "title" "$(grep -m1 'font-size="15"' "$T/p.svg")"
grep -q 'events over 450 &#181;s' "$T/p.svg" && ok "title: the span in scaled units" ||
	fail "title span" "$(grep -m1 'events over' "$T/p.svg")"
[ "$(grep -c 'GPU [01]: NVIDIA H100 80GB HBM3 (GPU-6d6f6465-6c67-5055-8000-00000000000[12])' "$T/p.svg")" = 2 ] &&
	ok "title: both GPUs by name and UUID" || fail "GPU names" "$(grep 'GPU [01]:' "$T/p.svg" | head -3)"
grep -q '>GPU 1: NVIDIA H100 80GB HBM3<' "$T/p.svg" && ok "a panel group per GPU" || fail "GPU groups" "none"
grep -q "py&lt;&amp;&quot;&#39;,\\\\x1b&gt; (pid 4242)" "$T/p.svg" &&
	ok "SVG: a process name with < & \" ' and ESC escaped" ||
	fail "SVG escaping" "$(grep -m2 'pid 4242' "$T/p.svg")"
grep -q 'class="seglabel"[^>]*>0x7fb0f3800000, 32 MiB<' "$T/p.svg" &&
	ok "the allocation 760 GB away is its own range, sized" || fail "range labels" "$(grep -m3 seglabel "$T/p.svg")"
grep -q '1 allocations without an event are not drawn' "$T/p.svg" && ok "the untouched allocation is said" ||
	fail "untouched allocation note" "$(grep 'class="note"' "$T/p.svg")"
for k in fault-read fault-write migration-fault migration-prefetch eviction; do
	grep -q "data-kind=\"$k\"" "$T/p.svg" && ok "a panel of $k" || fail "panel $k" "missing"
done
grep -q 'data-name="replays"' "$T/p.svg" && grep -q 'data-name="lost"' "$T/p.svg" &&
	ok "strips for replays and lost events" || fail "strips" "missing"
grep -q '>time after the record.s start;' "$T/p.svg" && ok "the time axis says its origin" ||
	fail "axis title" "$(grep -m1 xtitle "$T/p.svg")"
[ "$(LC_ALL=C tr -d '\n\040-\176' <"$T/p.svg" | wc -c)" = 0 ] && ok "SVG: printable ASCII only" ||
	fail "SVG bytes" "non-ASCII"

# each fault's spot from the labels alone
$PC locate "$T/p.svg" "$T/faults" >"$T/spots" 2>&1 && [ "$(grep -c '' "$T/spots")" = 24 ] &&
	ok "each fault located from the tick and range labels" || fail "locate" "$(head -5 "$T/spots")"

# --- as Chromium renders it ---------------------------------------------------------
if ! command -v chromium >/dev/null; then
	fail "chromium" "not installed: tests/deps.sh installs it (apt-get install chromium)"
elif ! render "$T/p.svg" "$T/p.png"; then
	fail "chromium renders the SVG" "$(tail -c 400 "$T/chrome.log")"
else
	ok "chromium renders the SVG"
	$PC locate "$T/p.svg" "$T/faults" "$T/p.png" >"$T/look" 2>&1 &&
		ok "PNG: each fault's cell coloured, the other access's panel blank there" ||
		fail "PNG cells" "$(grep -v '^[0-9]' "$T/look" | head -5)"
	"$G" trace report -i "$T/empty.rec" --svg "$T/e.svg" && render "$T/e.svg" "$T/e.png"
	if $PC locate "$T/p.svg" "$T/faults" "$T/e.png" >"$T/look2" 2>&1; then
		fail "the check can fail" "a blank picture passed"
	else
		ok "the check can fail: a picture without the faults does not pass"
	fi
fi

# --- TSGs beside the faults: two records merged on their real-time starts ------------
expect_exit 0 $G trace report -i "$T/p.rec" -i "$T/t.rec" --svg "$T/pt.svg"
why=$(xml "$T/pt.svg") && ok "merged SVG is well-formed" || fail "merged SVG" "$why"
[ "$(grep -c 'class="tsg"' "$T/pt.svg")" = 6 ] && ok "the TSG timeline: a row per TSG" ||
	fail "TSG rows" "$(grep -c 'class="tsg"' "$T/pt.svg")"
grep -q '2 records merged on their real-time starts' "$T/pt.svg" && ok "the title says the records were merged" ||
	fail "merge said" "no"
$PC locate "$T/pt.svg" "$T/faults" >/dev/null 2>&1 && ok "merged: the faults keep their places" ||
	fail "merged locate" "$($PC locate "$T/pt.svg" "$T/faults" 2>&1 | tail -2)"

expect_exit 0 $G trace report -i "$T/p.rec" -i "$T/t.rec" --format chrome
printf '%s\n' "$OUT" >"$T/pt.json"
$PC chrome "$T/pt.json" >/dev/null && [ "$(grep -c '"cat":"tsg","ph":"X"' "$T/pt.json")" = 6 ] &&
	ok "merged chrome: each TSG's life a span on its process's TSGs track" ||
	fail "TSG spans" "$(grep -c '"cat":"tsg"' "$T/pt.json")"

# --- Chrome trace-event JSON -----------------------------------------------------------
expect_exit 0 $G trace report -i "$T/p.rec" --format chrome
printf '%s\n' "$OUT" >"$T/p.json"
$PC chrome "$T/p.json" >"$T/cj" && ok "chrome: every event has the required fields" ||
	fail "chrome fields" "$(head -5 "$T/cj")"
python3 - "$T/p.json" >"$T/cj2" 2>&1 <<'PY' && ok "chrome: processes, GPU tracks, faults with their fields" || fail "chrome content" "$(cat "$T/cj2")"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d['traceEvents']
faults = [e for e in ev if e.get('cat') == 'fault']
assert len(faults) == 24, len(faults)
assert all(e['args']['addr'].startswith('0x') and e['args']['access'] in ('read', 'write') for e in faults)
names = {e['pid']: e['args']['name'] for e in ev if e['name'] == 'process_name'}
assert names[4242] == 'py<&"\',\\x1b> 4242', names
assert names[4343] == 'trainer 4343', names
tracks = {(e['pid'], e['tid']): e['args']['name'] for e in ev if e['name'] == 'thread_name'}
assert tracks[(4343, 2)].startswith('GPU 1: NVIDIA H100 80GB HBM3 (GPU-'), tracks
assert all(e['tid'] == 2 for e in faults if e['pid'] == 4343)
mig = [e for e in ev if e.get('cat') == 'migration']
assert len(mig) == 4 and all(e['ph'] == 'X' and e['dur'] == 30 for e in mig), mig
assert d['otherData']['merged'] is False
PY

# spans that overlap on one GPU (demo: prefetch migrations beginning inside fault
# migrations) go to lanes of their own, so every track's spans nest, as Perfetto
# and chrome://tracing need; the check fails the exporter that put them on one track
"$T/gen" demo "$T/demo.rec" || fail "record_gen demo" "failed"
expect_exit 0 $G trace report -i "$T/demo.rec" --format chrome
printf '%s\n' "$OUT" >"$T/demo.json"
$PC chrome "$T/demo.json" >"$T/cj3" && ok "chrome: overlapping spans on lanes, every track's spans nest" ||
	fail "chrome nesting" "$(head -5 "$T/cj3")"
grep -q '"args":{"name":"GPU 0: NVIDIA H100 80GB HBM3 (GPU-[0-9a-f-]*) (overlapping spans, lane 2)"}' "$T/demo.json" &&
	ok "chrome: a lane is named after its GPU's track" || fail "lane name" "$(grep -o 'lane [0-9]*' "$T/demo.json" | head -2)"
# the strict check itself fails what the format refuses (so it can fail)
for bad in 'nan {"traceEvents":[{"name":"a","ph":"i","ts":NaN,"pid":1,"tid":1}]}' \
	'dupkey {"traceEvents":[{"name":"a","name":"b","ph":"i","ts":1,"pid":1,"tid":1}]}' \
	'nophase {"traceEvents":[{"name":"a","ts":1,"pid":1,"tid":1}]}' \
	'nodur {"traceEvents":[{"name":"a","ph":"X","ts":1,"pid":1,"tid":1}]}' \
	'scope {"traceEvents":[{"name":"a","ph":"i","s":"x","ts":1,"pid":1,"tid":1}]}' \
	'strpid {"traceEvents":[{"name":"a","ph":"i","ts":1,"pid":"1","tid":1}]}' \
	'meta {"traceEvents":[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{}}]}' \
	'toplevel {"traceEvents":[],"displayTimeUnit":"s"}' \
	'unnamed {"traceEvents":[{"name":"a","ph":"i","ts":1,"pid":1,"tid":1}]}' \
	'overlap {"traceEvents":[{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"p"}},{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"t"}},{"name":"a","ph":"X","ts":1,"dur":10,"pid":1,"tid":1},{"name":"b","ph":"X","ts":5,"dur":10,"pid":1,"tid":1}]}'; do
	printf '%s\n' "${bad#* }" >"$T/bad.json"
	$PC chrome "$T/bad.json" >/dev/null 2>&1 && fail "chrome check: ${bad%% *}" "passed" ||
		ok "chrome check refuses ${bad%% *}"
done

# --- CSV ----------------------------------------------------------------------------------
expect_exit 0 $G trace report -i "$T/p.rec" --format csv
printf '%s\n' "$OUT" >"$T/p.csv"
$PC csv "$T/p.csv" 35 >"$T/cc" && ok "csv: the header and 35 rows of 17 columns" || fail "csv" "$(cat "$T/cc")"
python3 - "$T/p.csv" >"$T/cc2" 2>&1 <<'PY' && ok "csv: names quoted and escaped, numbers exact" || fail "csv content" "$(cat "$T/cc2")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
f = [r for r in rows if r['event'] == 'fault']
assert f[0]['comm'] == 'py<&"\',\\x1b>' and f[0]['time_ns'] == '10000', f[0]
assert f[0]['address'] == '0x7f0000000000' and f[0]['gpu'] == '0', f[0]
assert f[0]['gpu_uuid'] == 'GPU-6d6f6465-6c67-5055-8000-000000000001', f[0]
m = [r for r in rows if r['event'] == 'migration']
assert m[0]['bytes'] == '2097152' and m[0]['latency_ns'] == '30000' and m[0]['direction'] == 'gpu', m[0]
PY

# --- -j and standard output ------------------------------------------------------------
for f in chrome csv; do
	expect_exit 2 $G -j trace report -i "$T/p.rec" --format $f
	expect_json "-j --format $f: refused as JSON"
done
expect_exit 2 $G trace report -i "$T/p.rec" --format chrome --svg -
expect_stderr_line "--svg - with --format chrome"
expect_exit 2 $G trace report -i "$T/p.rec" -i "$T/p.rec" -i "$T/p.rec" -i "$T/p.rec" -i "$T/p.rec"
expect_stderr_line "five records"

# --- a version-1 record still renders --------------------------------------------------
expect_exit 0 $G trace report -i "$T/v1.rec" --svg "$T/v1.svg"
why=$(xml "$T/v1.svg") && ok "v1: well-formed" || fail "v1 SVG" "$why"
grep -q 'A version-1 record: no allocations' "$T/v1.svg" && grep -q 'inferred from addresses' "$T/v1.svg" &&
	grep -q '>GPU 0<' "$T/v1.svg" && ok "v1: GPU N, ranges inferred, and said" || fail "v1 notes" "missing"

# --- bad input -------------------------------------------------------------------------
for k in empty single lost wide; do
	expect_exit 0 $G trace report -i "$T/$k.rec" --svg "$T/$k.svg"
	why=$(xml "$T/$k.svg") && ok "$k: SVG well-formed" || fail "$k SVG" "$why"
	expect_exit 0 $G trace report -i "$T/$k.rec" --format chrome
	printf '%s\n' "$OUT" >"$T/$k.json"
	$PC chrome "$T/$k.json" >/dev/null && ok "$k: chrome JSON valid" || fail "$k chrome" "$(head -c 300 "$T/$k.json")"
	expect_exit 0 $G trace report -i "$T/$k.rec" --format csv
done
grep -q 'Nothing to draw: the record holds no events' "$T/empty.svg" && ok "empty: said" || fail "empty" "not said"
$G trace report -i "$T/empty.rec" --format csv >"$T/empty.csv" && $PC csv "$T/empty.csv" 0 >/dev/null &&
	ok "empty: the CSV is its header alone" || fail "empty csv" "$(head -c 300 "$T/empty.csv")"
$G trace report -i "$T/wide.rec" --format csv >"$T/wide.csv" && grep -q ',0xffffffffffffffff,' "$T/wide.csv" &&
	grep -q ',0xe0000000000,' "$T/wide.csv" && ok "addresses over 2^47: exact in the CSV" ||
	fail "wide csv" "$(cut -d, -f7 "$T/wide.csv" | sort | tail -2)"
echo "fault 5000 0x7f0000000000 read 0 4242" >"$T/one"
$PC locate "$T/single.svg" "$T/one" >/dev/null && ok "single event: a time axis and a place for it" ||
	fail "single" "$($PC locate "$T/single.svg" "$T/one" 2>&1)"
grep -q 'data-name="lost"' "$T/lost.svg" && grep -q '2000, at most 1000 a column' "$T/lost.svg" &&
	ok "lost only: the lost strip with its count" || fail "lost only" "$(grep -m2 lost "$T/lost.svg")"
[ "$(grep -c 'class="seglabel"' "$T/wide.svg")" -le $((16 * 2)) ] &&
	grep -q '0xffffffffffe00000, 2.0 MiB' "$T/wide.svg" && grep -q 'ranges merged' "$T/wide.svg" &&
	ok "addresses over 2^47 to 2^64 - 1: 16 ranges, the top one kept, the rest merged and said" ||
	fail "wide" "$(grep -c seglabel "$T/wide.svg") labels"

: >"$T/zero"
head -c 300 "$T/p.rec" >"$T/trunc"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[168 + 40:168 + 44] = (300).to_bytes(4, "little"); open(sys.argv[2], "wb").write(b)' "$T/p.rec" "$T/badmeta"
for k in zero trunc badmeta; do
	for a in "--svg $T/x.svg" "--format chrome" "--format csv"; do
		expect_exit 1 $G trace report -i "$T/$k" $a
		expect_stderr_line "$k ($a)"
	done
done
[ ! -e "$T/x.svg" ] && ok "no SVG left behind by a refused record" || fail "x.svg" "written"

# --- the README's sample picture is what this gpuctl draws -------------------------------
"$T/gen" demo "$T/demo.rec" && "$G" trace report -i "$T/demo.rec" --svg "$T/demo.svg" >/dev/null &&
	cmp -s "$T/demo.svg" docs/trace-sample.svg && grep -q '(docs/trace-sample.svg)' README.md &&
	ok "README's sample picture: record_gen demo as this gpuctl draws it" ||
	fail "docs/trace-sample.svg" "stale: gpuctl trace report -i <(record_gen demo) --svg docs/trace-sample.svg"

# --- millions of events: bounded, and said -----------------------------------------------
"$T/gen" many "$T/m.rec" 2000000 || fail "record_gen many" "failed"
expect_exit 0 $G trace report -i "$T/m.rec" --svg "$T/m.svg" --format chrome
printf '%s\n' "$OUT" >"$T/m.json"
[ "$(wc -c <"$T/m.svg")" -lt 8000000 ] && ok "2 M events: the SVG stays under 8 MB ($(wc -c <"$T/m.svg") B)" ||
	fail "SVG size" "$(wc -c <"$T/m.svg")"
grep -q '2000002 events in all' "$T/m.svg" && ok "2 M events: the SVG says what a cell holds" || fail "m.svg note" "none"
[ "$(wc -c <"$T/m.json")" -lt 20000000 ] && ok "2 M events: the Chrome JSON stays under 20 MB ($(wc -c <"$T/m.json") B)" ||
	fail "chrome size" "$(wc -c <"$T/m.json")"
$PC chrome "$T/m.json" >/dev/null && grep -q '"merged":true' "$T/m.json" &&
	grep -q 'gpuctl: 2000002 events merged into bins of' "$T/m.json" &&
	ok "2 M events: valid, and says it merged them" || fail "chrome merged" "$(head -c 300 "$T/m.json")"
rm -f "$T/m.rec"
summary
