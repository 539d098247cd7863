#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The trace record reader and report against hostile files.
#   1. tests/fuzz/record_gen writes a corpus of structured mutations (huge
#      and negative-looking values, counts, timestamps out of order, control
#      bytes in strings, odd sizes, truncation) of sane records.
#   2. gpuctl trace report runs on each, text and -j, every format (the
#      SVG, chrome and csv too): exit 0 or 1, and then one error line;
#      stdout bounded by the file's size; no control byte on stdout, stderr
#      or in the SVG; no sanitizer report (with
#      gpuctl-asan where it is built, `make gpuctl-asan`).
#   3. a bounded libFuzzer run (tests/fuzz/record_fuzz.c: the whole report,
#      in-process, ASan+UBSan) seeded with that corpus, FUZZ_TIME seconds
#      (default 10); skipped with a note without clang.
# FUZZ_FILES: corpus size (default 80).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
T=$T_DIR
G=$GPUCTL
[ -x ./gpuctl-asan ] && [ "${GPUCTL_ASAN:-1}" != 0 ] && [ ./gpuctl-asan -nt ./gpuctl ] && G=$(pwd)/gpuctl-asan
echo "# report runs with $G"

if ! ${CC:-cc} -std=gnu11 -O1 -Wall -Wextra -Werror -Icmd -Icmd/lib -Ibpf -o "$T/gen" \
	tests/fuzz/record_gen.c 2>"$T/err"; then
	fail "build record_gen" "$(head -c 400 "$T/err")"
	summary
fi
mkdir -p "$T/corpus"
"$T/gen" corpus "$T/corpus" "${FUZZ_FILES:-80}" 0x5eed || { fail "record_gen corpus" "failed"; summary; }
"$T/gen" sample "$T/corpus/sample"
"$T/gen" tsg "$T/corpus/tsg"
for k in overflow ctrl gaps; do "$T/gen" craft $k "$T/corpus/craft-$k"; done
printf 'GPUCTLTR' >"$T/corpus/magic"
: >"$T/corpus/empty"

# check FILE MODE ARGS...: one report run and what must hold of it.
check() {
	f=$1 mode=$2
	shift 2
	rm -f "$T/h.svg"
	"$G" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	why=
	nerr=$(grep -c '' "$T/err")
	case $rc/$nerr in
	0/0) ;;
	1/1) grep -q '^Error: ' "$T/err" || why="stderr is not an Error line" ;;
	1/0) [ "$mode" = json ] && tail -n 1 "$T/out" | grep -q '^{"error":' ||
		why="exit 1 without an error" ;;
	*) why="exit $rc with $nerr lines on stderr: $(head -c 300 "$T/err")" ;;
	esac
	[ "$(wc -c <"$T/out")" -le "$BOUND" ] || why="$(wc -c <"$T/out") bytes of output for $SIZE"
	# newlines and printable ASCII only, on stdout, stderr and in the SVG
	[ "$(cat "$T/out" "$T/err" $([ -f "$T/h.svg" ] && echo "$T/h.svg") |
		LC_ALL=C tr -d '\n\040-\176' | wc -c)" = 0 ] || why="control bytes in the output"
	if [ -n "$why" ]; then
		BAD=$((BAD + 1))
		[ "$BAD" -le 5 ] && fail "report $(basename "$f") ($*)" "$why"
		cp "$f" "$T/failed-$(basename "$f")"
	fi
	RUNS=$((RUNS + 1))
}

BAD=0 RUNS=0
for f in "$T"/corpus/*; do
	SIZE=$(wc -c <"$f")
	BOUND=$((8 * SIZE + 65536))
	check "$f" text trace report -i "$f"
	check "$f" text trace report -i "$f" --format events --sort bytes --top 3
	check "$f" text trace report -i "$f" --format model
	check "$f" text trace report -i - --svg "$T/h.svg" <"$f"
	check "$f" json -j trace report -i "$f" --sort address
	check "$f" json -j trace report -i "$f" --format events
	check "$f" text trace report -i "$f" --format csv
	# the Chrome format names each process and track once: up to a GPU name (256
	# bytes, escaped) a new one
	BOUND=$((32 * SIZE + 65536))
	check "$f" text trace report -i "$f" -i "$T/corpus/sample" --format chrome --svg "$T/h.svg"
done
[ $BAD = 0 ] && ok "report on $RUNS hostile inputs: exit 0/1, one error line, bounded, no control bytes" ||
	fail "report on hostile inputs" "$BAD of $RUNS runs broke a rule (first 5 above)"

# --- the libFuzzer run ------------------------------------------------------------
if ! command -v clang >/dev/null; then
	echo "# clang missing: fuzz run skipped"
	summary
fi
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-Icmd -Icmd/lib -Icmd/drv -Ibpf tests/fuzz/record_fuzz.c cmd/trace/record.c cmd/trace/summary.c \
	cmd/trace/events.c cmd/trace/report.c cmd/trace/recload.c cmd/trace/heat.c cmd/trace/svg.c \
	cmd/trace/svg_axes.c cmd/trace/export.c cmd/lib/output.c cmd/lib/json_writer.c \
	cmd/lib/text.c cmd/lib/safefile.c cmd/lib/units.c cmd/drv/rm.c -o "$T/fz" 2>"$T/err"; then
	fail "build the fuzzer" "$(head -c 400 "$T/err")"
	summary
fi
mkdir -p "$T/work"
if "$T/fz" -max_total_time="${FUZZ_TIME:-10}" -rss_limit_mb=1024 -timeout=5 -close_fd_mask=3 \
	-artifact_prefix="$T/" "$T/work" "$T/corpus" >"$T/log" 2>&1; then
	ok "fuzz trace report: $(grep -o 'Done [0-9]* runs' "$T/log" | tail -n 1)"
else
	tail -n 30 "$T/log"
	fail "fuzz trace report" "crashed or broke a rule (artifact above)"
fi
summary
