# SPDX-License-Identifier: GPL-2.0
# bench/mps/common.sh - sourced by the co-location benches (static_gpu.sh,
# coloc_mps_gpu.sh, target_gpu.sh): gpuctl with a time limit, a log line,
# the monotonic clock the workloads stamp with, and the end of a call (every
# process the bench started, woken and killed; its policy and watcher gone;
# an MPS daemon it set up by hand quit).  Needs GPUCTL; ALL: the pids.
G() { timeout 30 "$GPUCTL" "$@"; }
log() { echo "== $(date +%T)${T_START:+ +$((SECONDS - T_START))s} $*"; }
mono() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }
ALL=""
# bench_end [PIPE_DIR]: the processes, the policy, the daemon on PIPE_DIR (if any), the watcher
bench_end() {
	for p in $ALL; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	G sched stop >/dev/null 2>&1
	[ -n "${1:-}" ] &&
		printf 'quit\n' | CUDA_MPS_PIPE_DIRECTORY=$1 timeout 10 nvidia-cuda-mps-control >/dev/null 2>&1
	[ -n "${1:-}" ] && sleep 1 && G sched stop >/dev/null 2>&1
	G sched unload >/dev/null 2>&1
}
