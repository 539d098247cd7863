/* SPDX-License-Identifier: GPL-2.0 */
/*
 * alloc_watch_abi.h - the allocation watcher (bpf/alloc_watch.bpf.c) and the
 * prefetch engines that read it (cmd/pfengine/allocw.c).
 *
 * One program pair, raw tracepoints on sys_enter/sys_exit, serves every
 * engine on the host: `targets` maps a watched process (tgid) to the ring
 * buffer of the engine that watches it, and only those processes' mmap,
 * munmap, mremap and mprotect calls are reported, at their return.  The
 * programs cost other syscalls one compare at entry and one load at exit;
 * attaching them at all puts every syscall of the host on the kernel's
 * tracepoint path (~120 ns a call: bench/results/alloc-watch-cost-*.md).
 */
#ifndef GPUCTL_ALLOC_WATCH_ABI_H
#define GPUCTL_ALLOC_WATCH_ABI_H

#include <linux/types.h>

#define AW_MAX_TARGETS 1024		/* processes watched at once, host-wide */
#define AW_MAX_CALLS 16384		/* mapping calls in flight, host-wide (threads inside one) */
#define AW_CALLS_PER_TARGET 512		/* of those, one watched process's share */
#define AW_RING_BYTES (256u << 10)	/* each engine's ring buffer */

/* x86_64 syscall numbers */
#define AW_NR_MMAP 9
#define AW_NR_MPROTECT 10
#define AW_NR_MUNMAP 11
#define AW_NR_MREMAP 25

enum aw_op {
	AW_MMAP = 1,		/* [addr, addr + len) mapped; AW_F_UVM: from /dev/nvidia-uvm */
	AW_MUNMAP = 2,		/* [addr, addr + len) unmapped */
	AW_MREMAP = 3,		/* [addr, addr + len) moved to [addr2, addr2 + len2) */
	AW_MPROTECT = 4,	/* [addr, addr + len) now has prot */
};

enum aw_flag {
	AW_F_UVM = 0x1,		/* the mapped file is the watched device (uvm_rdev) */
};

struct aw_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns() at the syscall's return */
	__u64 addr, len;	/* the range, page-aligned by the kernel's rules */
	__u64 addr2, len2;	/* AW_MREMAP: the new range */
	__u32 tgid;
	__u16 op;		/* enum aw_op */
	__u16 flags;		/* enum aw_flag */
	__u32 prot;		/* AW_MMAP, AW_MPROTECT: PROT_* */
	__u32 mflags;		/* AW_MMAP: MAP_* */
};
_Static_assert(sizeof(struct aw_event) == 56, "aw_event");

enum aw_target_flag {
	AW_T_NO_WAKE = 0x1,	/* post without waking the engine: it drains its ring on its
				 * own turns (its policy wants no ALLOC/FREE at once) */
};

/* targets' value: what the engine of that process wants told. */
struct aw_target {
	__u32 uvm_rdev;		/* the device number of its /dev/nvidia-uvm (new_encode_dev) */
	__u32 in_calls;		/* its threads' mapping calls in flight (the program counts) */
	__u32 flags;		/* enum aw_target_flag (0 from an engine that knows none) */
	__u32 _pad;
	/*
	 * events lost (the program counts): its ring buffer had no room, or a
	 * call was not followed -- more of its threads inside a mapping call at
	 * once than AW_CALLS_PER_TARGET, or the host's AW_MAX_CALLS taken.  So
	 * one watched process with thousands of threads in mmap cannot take
	 * the calls of another's engine, and every call missed is counted.
	 */
	__u64 lost;
};
_Static_assert(sizeof(struct aw_target) == 24, "aw_target");

#endif
