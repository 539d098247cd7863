#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/alloc_watch/cost.sh - what the engine's allocation watcher
# (bpf/alloc_watch.bpf.c, raw tracepoints on sys_enter/sys_exit) costs the
# rest of the host: a process it does not watch making syscalls, with no
# program attached, with two programs that do nothing (the kernel's syscall
# tracepoint path alone), and with the watcher.  Root, bpffs, built tree
# (build/alloc_watch.bpf.o); no GPU.  Uses farm-bench where present, else
# bash's time.  Rounds: ROUNDS (2), runs each: RUNS (5).
set -u
D=$(dirname "$(readlink -f "$0")")
R=$(cd "$D/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T/fs/p"; umount "$T/fs" 2>/dev/null; rm -rf "$T"' EXIT
cc -O2 -o "$T/sysloop" "$D/sysloop.c" || exit 1
clang -O2 -g -target bpf -I/usr/include/"$(uname -m)"-linux-gnu -c "$D/nop.bpf.c" -o "$T/nop.bpf.o" || exit 1
mkdir "$T/fs" && mount -t bpf bpf "$T/fs" || exit 1
attach() {	# attach off|nop|watcher
	rm -rf "$T/fs/p"
	case $1 in
	nop) bpftool prog loadall "$T/nop.bpf.o" "$T/fs/p" autoattach ;;
	watcher) bpftool prog loadall "$R/build/alloc_watch.bpf.o" "$T/fs/p" autoattach ;;
	esac
}
timeit() {
	if command -v farm-bench >/dev/null; then
		farm-bench -n "${RUNS:-5}" -- "$T/sysloop" "$@" 2>&1 | awk '/cpu s/ { print "cpu_s_median " $4 }'
	else
		/usr/bin/time -f 'cpu_s %U %S' "$T/sysloop" "$@" 2>&1
	fi
}
echo "host: $(uname -r), $(nproc) CPUs"
for r in $(seq "${ROUNDS:-2}"); do
	for st in off nop watcher; do
		attach $st
		echo "round $r $st getppid x5M: $(timeit s 5000000)"
		echo "round $r $st mmap+munmap x500k: $(timeit m 500000)"
	done
done
