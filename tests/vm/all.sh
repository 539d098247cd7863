#!/bin/sh
# tests/vm/all.sh [TEST...] — run VM test scripts one after another inside ONE
# guest (started by tests/vm/run; tests/run does this).  Default: tests/vm/t_*.sh.
#
# Each test runs as `sh TEST` in its own session (setsid) under a time limit
# ($VM_TEST_TIMEOUT seconds, default 300), with stdin = /dev/null.  Its output
# is framed by marker lines that tests/run parses:
#     @@GPUCTL_TEST_BEGIN <path>@@
#     ... the test's own output, ending with "N passed, N failed" ...
#     @@GPUCTL_TEST_END <path> rc=<exit status>@@
# Between tests the state is reset: every gpuctl policy is unloaded, the bpffs
# pins under /sys/fs/bpf/gpuctl are removed, processes the test left behind are
# killed, and the model module is reloaded so each test starts from a fresh model.
# With GPUCTL_SAN_DIR set (make test-asan: gpuctl-asan, whose ASAN_OPTIONS and
# UBSAN_OPTIONS log_path point into that directory), a sanitizer report
# written during a test is printed after the test's summary with a
# "FAIL sanitizer: ..." line, which tests/run counts as one more failure.
# all.sh exits 0 when every test exited 0, else 1.

cd "$(dirname "$0")/../.." || exit 125
T=${VM_TEST_TIMEOUT:-300}

model_loaded() { [ -n "${MODEL_NAME:-}" ] && [ -d "/sys/module/$MODEL_NAME" ]; }

reset_state() {
	for obj in prefetch replay evict sched trace; do
		gpuctl "$obj" unload >/dev/null 2>&1
	done
	rm -rf /sys/fs/bpf/gpuctl
	[ "${NO_MODEL:-0}" = 1 ] && return 0
	[ -n "${MODEL_NAME:-}" ] && [ -n "${MODEL_KO:-}" ] || return 0
	# struct_ops .unreg runs after the last reference drops: retry rmmod.
	i=0
	while model_loaded; do
		rmmod "$MODEL_NAME" 2>/dev/null && break
		i=$((i + 1))
		if [ $i -ge 40 ]; then
			echo "vm: warning: after $1: $MODEL_NAME still in use, not reloaded" \
				"(refcnt $(cat /sys/module/$MODEL_NAME/refcnt 2>/dev/null))"
			return 1
		fi
		sleep 0.25
	done
	insmod "$MODEL_KO" || echo "vm: error: after $1: insmod $MODEL_KO failed"
}

# san_check TEST: report the sanitizer logs TEST left; 1 when there were some
san_check() {
	[ -n "${GPUCTL_SAN_DIR:-}" ] || return 0
	found=0
	for f in "$GPUCTL_SAN_DIR"/*; do
		[ -f "$f" ] || continue
		found=$((found + 1))
		echo "---- sanitizer report $(basename "$f") (during $1):"
		head -n 60 "$f"
		rm -f "$f"
	done
	[ $found = 0 ] && return 0
	echo "FAIL sanitizer: $found report(s) from gpuctl during $1"
	return 1
}
[ -n "${GPUCTL_SAN_DIR:-}" ] && mkdir -p "$GPUCTL_SAN_DIR"

if [ $# -eq 0 ]; then
	set -- tests/vm/t_*.sh
	[ -e "$1" ] || { echo "vm: no tests/vm/t_*.sh"; exit 0; }
fi

all_ok=0
for t in "$@"; do
	echo "@@GPUCTL_TEST_BEGIN $t@@"
	if [ -f "$t" ]; then
		setsid timeout -k 5 "$T" sh "$t" </dev/null &
		pid=$!
		wait $pid
		rc=$?
		# anything the test left running (same session/process group)
		kill -s KILL -$pid 2>/dev/null
		[ $rc -eq 143 ] || [ $rc -eq 137 ] && echo "vm: $t: killed after ${T}s time limit?"
		san_check "$t" || rc=1
	else
		echo "vm: no such test: $t"
		rc=127
	fi
	echo "@@GPUCTL_TEST_END $t rc=$rc@@"
	[ $rc -eq 0 ] || all_ok=1
	reset_state "$t"
done
exit $all_ok
