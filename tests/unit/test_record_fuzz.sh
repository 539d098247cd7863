#!/bin/sh
# A short bounded libFuzzer run over the trace record reader (tests/fuzz).
# Seeds: a valid record from the queue unit test, plus junk.  FUZZ_TIME
# seconds (default 10).  Skipped (counted as passed with a note) without clang.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuctl-fz.XXXXXX")
trap 'rm -rf "$T"' EXIT
if ! command -v clang >/dev/null; then
	echo "# clang missing: fuzz run skipped"
	echo "0 passed, 0 failed"
	exit 0
fi
fail() { echo "FAIL $1"; echo "0 passed, 1 failed"; exit 1; }
clang -g -O1 -fsanitize=fuzzer,address,undefined -Icmd -Icmd/lib -Icmd/trace -Ibpf tests/fuzz/record_fuzz.c cmd/trace/record.c \
	-o "$T/fz" 2>"$T/err" || fail "build: $(head -c 400 "$T/err")"
${CC:-cc} -std=gnu11 -O1 -Icmd -Icmd/lib -Ibpf -o "$T/tq" tests/unit/trace_queue_test.c \
	cmd/trace/ut_queue.c cmd/trace/ut_session.c cmd/trace/record.c cmd/lib/borrow.c 2>"$T/err" || fail "seed builder: $(head -c 400 "$T/err")"
mkdir -p "$T/corpus"
"$T/tq" "$T/corpus/valid" >/dev/null
printf 'GPUCTLTR' >"$T/corpus/magic"
head -c 100 "$T/corpus/valid" >"$T/corpus/short"
if "$T/fz" -max_total_time="${FUZZ_TIME:-10}" -rss_limit_mb=1024 -timeout=5 \
	-artifact_prefix="$T/" "$T/corpus" >"$T/log" 2>&1; then
	echo "ok   fuzz record reader: $(grep -o 'Done [0-9]* runs' "$T/log" | tail -n 1)"
	echo "1 passed, 0 failed"
else
	tail -n 30 "$T/log"
	fail "fuzz record reader crashed (artifact above)"
fi
