#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_watch_alt.sh - bench/watch_alt on the build host, no GPU, no BPF (the
# uprobe counter's probes: tests/vm/t_watch_alt.sh): the preload shim and
# the resolver against a fake libcuda.so.1 built here (tests/watch_alt/),
# called three ways (linked, cuGetProcAddress_v2 linked, and as the CUDA
# runtime does: dlopen + dlsym(handle, "cuGetProcAddress_v2")); the uprobe
# counter's refusals of bad arguments; walt.py on a fixed sample (paired
# ratios, their CI, a blind watcher); watch_alt_gpu.sh's dry run and a whole
# call against fakes (nvidia-smi, nvcc, a python3 that calls the fake
# driver, an engine, an uprobe counter).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

W=bench/watch_alt
T=$T_DIR
CF=(-std=gnu11 -O2 -Wall -Wextra -Werror -Ibench/watch_alt)

# --- the fake driver and its caller, built now ------------------------------------
mkdir -p "$T/lib"
if cc "${CF[@]}" -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$T/lib/libcuda.so.1" tests/watch_alt/fakecuda.c &&
	cc "${CF[@]}" -o "$T/callcuda" tests/watch_alt/callcuda.c "$T/lib/libcuda.so.1" -ldl &&
	cc "${CF[@]}" -shared -fPIC -fvisibility=hidden -o "$T/shim.so" $W/shim.c -ldl &&
	cc "${CF[@]}" -o "$T/resolve" $W/resolve.c -ldl; then
	ok "the fake libcuda, its caller, the shim and the resolver build (-Wall -Wextra -Werror)"
else
	fail "build" "a piece did not compile"
	summary
fi
export LD_LIBRARY_PATH=$T/lib

# --- the shim ---------------------------------------------------------------------
expect_exit 0 env LD_PRELOAD="$T/shim.so" WATCH_ALT_SHIM_OUT="$T/shim.jsonl" "$T/callcuda" link:4096 gpa:8192 \
	dl:12288 free dl:1048576
expect_out "the calls run through the shim" '^alloc dl 12288 0x7f0000400000 0$'
OUT=$(cat "$T/shim.jsonl")
expect_json "shim: its line"
expect_json_expr "shim: every call counted, by its path (link 1, proc 3: gpa and the runtime's dlsym way)" \
	'j["allocs"] == 4 and j["via"] == {"link": 1, "dlsym": 0, "proc": 3} and j["frees"] == 1'
expect_json_expr "shim: the sizes in call order, the bytes, the paths" \
	'[c[0] for c in j["calls"]] == [4096, 8192, 12288, 1048576] and j["alloc_bytes"] == 1073152 and [c[4] for c in j["calls"]] == ["link", "proc", "proc", "proc"]'
expect_json_expr "shim: the addresses the driver gave, monotonic stamps in order" \
	'[c[1] for c in j["calls"]] == [0x7f0000000000 + k * 0x200000 for k in range(4)] and all(a[2] <= b[2] for a, b in zip(j["calls"], j["calls"][1:])) and j["first_ns"] == j["calls"][0][2] and j["last_ns"] == j["calls"][3][2]'
expect_json_expr "shim: cuGetProcAddress asked 3 times for the allocation" 'j["proc_queries"] == 3 and j["recorded"] == 4'
# a failed call is counted as failed, its size not as bytes
rm -f "$T/shim.jsonl"
expect_exit 1 env LD_PRELOAD="$T/shim.so" WATCH_ALT_SHIM_OUT="$T/shim.jsonl" "$T/callcuda" dl:0 link:100
OUT=$(cat "$T/shim.jsonl")
expect_json_expr "shim: a refused allocation is counted as failed" \
	'j["allocs"] == 2 and j["alloc_failed"] == 1 and j["alloc_bytes"] == 100 and j["calls"][0][1] == 0'
# appended, one line a process; no variable, no file; a link refused
expect_exit 0 env LD_PRELOAD="$T/shim.so" WATCH_ALT_SHIM_OUT="$T/shim.jsonl" "$T/callcuda" link:1
[ "$(wc -l <"$T/shim.jsonl")" = 2 ] && ok "shim: a second process appends its own line" ||
	fail "shim append" "$(cat "$T/shim.jsonl")"
mkdir "$T/cwd"
(cd "$T/cwd" && env -u WATCH_ALT_SHIM_OUT LD_PRELOAD="$T/shim.so" "$T/callcuda" link:1 >/dev/null 2>&1)
[ -z "$(ls -A "$T/cwd")" ] && [ "$(wc -l <"$T/shim.jsonl")" = 2 ] &&
	ok "shim: without WATCH_ALT_SHIM_OUT nothing is written" || fail "shim unset" "$(ls -A "$T/cwd")"
ln -s "$T/elsewhere" "$T/shim.link"
expect_exit 0 env LD_PRELOAD="$T/shim.so" WATCH_ALT_SHIM_OUT="$T/shim.link" "$T/callcuda" link:1
[ ! -e "$T/elsewhere" ] && ok "shim: a link as the report is refused (O_NOFOLLOW)" || fail "shim link" "written"
expect_exit 0 env LD_PRELOAD="$T/shim.so" WATCH_ALT_SHIM_OUT="$T/quiet.jsonl" sh -c 'true; true'
[ ! -e "$T/quiet.jsonl" ] && ok "shim: processes that never reach the driver write no line" || fail "shim quiet" "$(cat "$T/quiet.jsonl")"
# Python's ctypes looks functions up with dlsym(handle, name): the dlsym way
expect_exit 0 env LD_PRELOAD="$T/shim.so" WATCH_ALT_SHIM_OUT="$T/py.jsonl" python3 -c '
import ctypes
lib = ctypes.CDLL("libcuda.so.1")
d = ctypes.c_ulonglong(0)
assert lib.cuMemAllocManaged(ctypes.byref(d), ctypes.c_size_t(777), 1) == 0 and d.value == 0x7f0000000000
assert lib.cuMemFree_v2(d) == 0'
OUT=$(cat "$T/py.jsonl")
expect_json_expr "shim in python: ctypes' call counted by the dlsym way, one line" \
	'j["allocs"] == 1 and j["via"]["dlsym"] == 1 and j["frees"] == 1 and j["calls"][0][:2] == [777, 0x7f0000000000] and j["lookups"] == 2'
# without the cuGetProcAddress wrap the runtime's calls are not seen: the
# test above is not one the shim passes by symbol interposition alone
cc "${CF[@]}" -DWATCH_ALT_SHIM_NO_GPA -shared -fPIC -fvisibility=hidden -o "$T/shim-nogpa.so" $W/shim.c -ldl
rm -f "$T/nogpa.jsonl"
expect_exit 0 env LD_PRELOAD="$T/shim-nogpa.so" WATCH_ALT_SHIM_OUT="$T/nogpa.jsonl" "$T/callcuda" link:4096 gpa:8192 dl:12288
OUT=$(cat "$T/nogpa.jsonl")
expect_json_expr "shim built without the cuGetProcAddress wrap: blind to the runtime's way" \
	'j["allocs"] == 1 and j["via"]["proc"] == 0'

# --- the resolver -----------------------------------------------------------------
expect_exit 0 "$T/resolve" libcuda.so.1 cuMemAllocManaged
E=$(nm "$T/lib/libcuda.so.1" | awk '$3 == "cuMemAllocManaged" { print $1 }')
P=$(nm "$T/lib/libcuda.so.1" | awk '$3 == "alloc_impl" { print $1 }')
E=$(printf '%#x' $((16#${E:-0}))) P=$(printf '%#x' $((16#${P:-0})))	# the fake's text is mapped at its file offset
[ "$OUT" = "$T/lib/libcuda.so.1	$E	$P" ] &&
	ok "resolve: the file, the export's offset, and cuGetProcAddress's (another function)" ||
	fail "resolve" "'$OUT', not '$T/lib/libcuda.so.1	$E	$P'"
expect_exit 0 "$T/resolve" --cuda-version 11020 "$T/lib/libcuda.so.1" cuMemFree_v2
expect_out "resolve: a function cuGetProcAddress does not know by that name: -" "^$T/lib/libcuda.so.1	0x[0-9a-f]+	-$"
expect_exit 1 "$T/resolve" libcuda.so.1 cuNoSuch && expect_stderr_line "resolve: no such symbol"
expect_exit 1 "$T/resolve" "$T/nope.so" cuMemAllocManaged && expect_stderr_line "resolve: no such library"
expect_exit 2 "$T/resolve" libcuda.so.1 && expect_stderr_line "resolve: usage"
expect_exit 2 "$T/resolve" --cuda-version x libcuda.so.1 cuMemAllocManaged && expect_stderr_line "resolve: bad version"

# --- the uprobe counter's refusals (no BPF needed) ----------------------------------
U=$W/bin/watch-alt-uprobe
if [ -x "$U" ]; then
	for a in "-- true" "--lib $T/lib/libcuda.so.1" "--lib $T/lib/libcuda.so.1 -p 1 -- true" \
		"--lib $T/lib/libcuda.so.1 -p x" "--lib $T/lib/libcuda.so.1 --offset -3 -- true" \
		"--lib $T/lib/libcuda.so.1 --no-symbol -- true" "--lib $T/lib/libcuda.so.1 --" "--bogus" \
		"--lib $T/lib/libcuda.so.1 --offset 1 --offset 2 --offset 3 --offset 4 -- true"; do
		# shellcheck disable=SC2086
		expect_exit 2 "$U" $a && expect_stderr_line "uprobe: $a"
	done
	expect_exit 1 "$U" --lib "$T/nope.so.1" --out "$T/u.json" -- true && expect_stderr_line "uprobe: no such library"
	[ ! -e "$T/u.json" ] && ok "uprobe: no report after a failure" || fail "uprobe report" "written"
else
	fail "uprobe counter" "$U is not built (make bench-watch-alt)"
fi

# --- walt.py: a fixed sample ---------------------------------------------------------
S=$T/sample.jsonl
{
	echo '{"meta": {"gpu": "H100", "steps": "2", "warmup": "1"}}'
	for r in 1 2 3 4; do
		a=$((1000 + r * 10))
		printf '{"round": %d, "config": "alone", "status": "ok", "value": %d, "wall_s": 10.0, "seen": null, "setup_s": 5.0}\n' $r $a
		printf '{"round": %d, "config": "none", "status": "ok", "value": %s, "wall_s": 11.0, "seen": 1244, "setup_s": 6.0}\n' $r \
			"$(awk -v a=$a -v r=$r 'BEGIN { print a * (1.05 + (r % 2) * 0.02) }')"
		printf '{"round": %d, "config": "shim", "status": "ok", "value": %d, "wall_s": 10.0, "seen": 0, "watch": [{"allocs": 0, "lookups": 3}]}\n' $r $a
		printf '{"round": %d, "config": "uprobe", "status": "%s", "value": %d, "wall_s": 10.1, "seen": 1250, "rc": 0}\n' \
			$r "$([ $r = 4 ] && echo timeout || echo ok)" $a
	done
} >"$S"
expect_exit 0 python3 $W/walt.py summary "$S"
expect_out "summary: none's step ratio, its mean and CI (t, 3 df)" \
	'^\| none / alone \| step_ms \| 4 \| 1\.060 \| 1\.060 \| \[1\.042, 1\.078\] \| above 1 \|$'
expect_out "summary: none's wall ratio" '^\| none / alone \| wall_s \| 4 \| 1\.100 \| 1\.100 \| \[1\.100, 1\.100\] \| above 1 \|$'
expect_out "summary: the shim that saw nothing is blind, not cheap" \
	'^\| shim \| 4 / 4 \| .*\*\*blind\*\*: saw no allocation \(it reached the driver: 12 lookups\) \|$'
expect_out "summary: none's setup ratio (the workload's seconds before its first step)" '^\| none / alone \| setup_s \| 4 \| 1\.200 \| 1\.200 \| \[1\.200, 1\.200\] \| above 1 \|$'
expect_out "summary: the blind shim's pairs are marked" '^\| shim / alone \(blind\) \| step_ms \| 4 \| 1\.000 '
expect_out "summary: a timed-out run is out of the pairs" '^\| uprobe / alone \| step_ms \| 3 \| 1\.000 '
expect_out "summary: the allocations seen" '^\| none \| 4 / 4 \| 1086\.35 \| 11\.00 \| 1244 \| saw allocations in 4 of 4 runs \|$'
expect_out "summary: the failed run listed" '^- round 4 uprobe: timeout'
echo '{"meta": {}}' >"$T/empty.jsonl"
expect_exit 1 python3 $W/walt.py summary "$T/empty.jsonl" && expect_stderr_line "summary: no run"
expect_exit 2 python3 $W/walt.py summary && expect_stderr_line "summary: usage"
expect_exit 2 python3 $W/walt.py record --out "$T/x.jsonl" --round 1 --config bogus && expect_stderr_line "record: bad config"
[ ! -e "$T/x.jsonl" ] && ok "record: nothing written on a refusal" || fail "record refusal" "written"

# --- the device call: dry run, refusals, a whole call against fakes ------------------
expect_exit 0 $W/watch_alt_gpu.sh --dry-run
expect_out "dry run: ok" '^watch_alt dry run: ok$'
expect_out "dry run: rounds rotate" '^round 2: none shim uprobe alone $'
expect_out "dry run: the shim preloaded" '^shim: env LD_PRELOAD=\$W/libwatchalt-shim.so WATCH_ALT_SHIM_OUT=\$W/shim.jsonl python3 bench/ab/workloads/torch_train.py --so \$W/alloc.so --steps 2 --warmup 1$'
expect_out "dry run: at least 10 rounds fit the default budget" '^budget 540s .*about 1[0-9] rounds'
WATCH_ALT_BUDGET=561 expect_exit 2 $W/watch_alt_gpu.sh && expect_stderr_line "BUDGET over 560"
WATCH_ALT_STEPS=0 expect_exit 2 $W/watch_alt_gpu.sh --dry-run && expect_stderr_line "STEPS 0"
expect_exit 2 $W/watch_alt_gpu.sh --bogus && expect_stderr_line "bad argument"
. tests/watch_alt/fakes.sh
watch_alt_fakes "$T/f" "$T/callcuda"
before=$(ls -d /tmp/walt.* 2>/dev/null | wc -l)
AB_BIN="$T/f/ab" WATCH_ALT_UPROBE="$T/f/uprobe" PYTHON="$T/f/py" PATH="$T/f/path:$PATH" OUT="$T/o" \
	WATCH_ALT_BUDGET=60 WATCH_ALT_ROUNDS=2 expect_exit 0 $W/watch_alt_gpu.sh
R=$T/o/watch-alt/results.jsonl
OUT=$(grep -c '"config"' "$R" 2>/dev/null)
[ "$OUT" = 8 ] && ok "fake call: 2 rounds of 4 runs" || fail "fake call runs" "$OUT lines: $(cat "$T/o/watch-alt/log.txt")"
OUT=$(sed -n 's/.*"config": "\([a-z]*\)".*"round": \([0-9]\).*/\2\1/p' "$R" | tr '\n' ' ')
[ "$OUT" = "1alone 1none 1shim 1uprobe 2none 2shim 2uprobe 2alone " ] && ok "fake call: the order rotates" ||
	fail "fake call order" "$OUT"
OUT=$(python3 -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if "config" in d:
        print(d["config"], d["status"], d["value"], d["seen"], d["wall_s"] > 0, d["setup_s"])' "$R" | sort -u | tr '\n' ';')
[ "$OUT" = "alone ok 20.0 None True 3.5;none ok 20.0 5 True 3.5;shim ok 20.0 2 True 3.5;uprobe ok 20.0 3 True 3.5;" ] &&
	ok "fake call: each run's step, wall time and allocations seen (the real shim in the fake's process)" ||
	fail "fake call lines" "$OUT"
grep -q -- "^--lib $T/lib/libcuda.so.1 --offset 0x[0-9a-f]* --out " "$T/f/uprobe.args" &&
	ok "fake call: the uprobe at the resolved library and cuGetProcAddress's offset" ||
	fail "fake call uprobe args" "$(cat "$T/f/uprobe.args")"
grep -q 'uprobe preflight: attached and detached$' "$T/o/watch-alt/log.txt" && ok "fake call: the uprobe preflight logged" ||
	fail "fake call preflight" "$(grep preflight "$T/o/watch-alt/log.txt")"
grep -q 'shim and resolver: built here with cc$' "$T/o/watch-alt/log.txt" && ok "fake call: the shim built with the machine's cc" ||
	fail "fake call cc" "$(grep 'shim and' "$T/o/watch-alt/log.txt")"
grep -q '^| shim / alone | step_ms | 2 | 1.000 ' "$T/o/watch-alt/summary.md" && ok "fake call: the summary" ||
	fail "fake call summary" "$(cat "$T/o/watch-alt/summary.md")"
[ "$(ls -d /tmp/walt.* 2>/dev/null | wc -l)" = "$before" ] &&
	ok "fake call: its scratch folder removed" || fail "fake call scratch" "$(ls -d /tmp/walt.*)"
summary
