# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tests/watch_alt/fakes.sh - sourced by tests/unit/test_watch_alt.sh:
# watch_alt_fakes DIR CALLCUDA makes the stand-ins of a GPU machine for
# bench/watch_alt/watch_alt_gpu.sh: DIR/path (nvidia-smi; nvcc, which makes
# an empty alloc.so), DIR/ab (gpuctl-tree: runs `-- CMD`, its output on
# stderr, then {"allocs": 5} on stdout; BUILD), DIR/uprobe (its arguments to
# DIR/uprobe.args, runs `-- CMD`, writes {"allocs": 3} to --out) and DIR/py
# (the workload: CALLCUDA link:4096 dl:8192 against the fake driver on
# LD_LIBRARY_PATH, then a BENCH step_ms 20.0 line).
watch_alt_fakes() {
	local F=$1
	mkdir -p "$F/path" "$F/ab"
	cat >"$F/path/nvidia-smi" <<'EOS'
#!/bin/bash
echo "NVIDIA Fake 80GB, 580.159.04, 80000, 81559"
EOS
	cat >"$F/path/nvcc" <<'EOS'
#!/bin/bash
while [ $# -gt 0 ]; do [ "$1" = -o ] && { : >"$2"; shift; }; shift; done
EOS
	cat >"$F/ab/gpuctl-tree" <<'EOS'
#!/bin/bash
[ "$1" = --version ] && { echo "gpuctl fake"; exit 0; }
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
"$@" >&2
echo '{"allocs": 5, "policy": "none"}'
EOS
	cat >"$F/uprobe" <<EOS
#!/bin/bash
echo "\$*" >>"$F/uprobe.args"
while [ \$# -gt 0 ] && [ "\$1" != -- ]; do [ "\$1" = --out ] && out=\$2; shift; done
shift
"\$@"
rc=\$?
echo '{"tool": "watch-alt-uprobe", "allocs": 3}' >"\$out"
exit \$rc
EOS
	cat >"$F/py" <<EOS
#!/bin/bash
"$2" link:4096 dl:8192 >/dev/null || exit 1
l='BENCH {"metric": "step_ms", "value": 20.0, "steps": [20.0, 20.0], "setup_s": 3.5}'
echo "\$l"
[ -n "\${BENCH_METRIC_FILE:-}" ] && echo "\$l" >>"\$BENCH_METRIC_FILE"
exit 0
EOS
	chmod +x "$F/path/nvidia-smi" "$F/path/nvcc" "$F/ab/gpuctl-tree" "$F/uprobe" "$F/py"
	printf 'ref_name=main\nref_sha=abc1234\ntree_sha=def5678\n' >"$F/ab/BUILD"
}
