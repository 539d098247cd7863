/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe_abi.h - the uprobe counter (bench/watch_alt/uprobe.bpf.c) and its
 * loader (bench/watch_alt/uprobe.c): issue 40's "uprobe on the CUDA
 * library's managed-allocation calls".
 *
 * Each attach point (the exported symbol, or a file offset such as the one
 * cuGetProcAddress hands the runtime) is a uprobe and a uretprobe with the
 * point's number as the BPF cookie.  The entry keeps the call's arguments
 * (cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned flags)) by
 * thread and point; the return posts one wu_event with the address the call
 * wrote to *dptr.  Only the watched process (target_tgid) traps at all: the
 * kernel installs a pid-filtered uprobe's breakpoint in that process only.
 */
#ifndef WATCH_ALT_UPROBE_ABI_H
#define WATCH_ALT_UPROBE_ABI_H

#include <linux/types.h>

#define WU_MAX_POINTS 4			/* attach points at once */
#define WU_MAX_PENDING 8192		/* calls in flight (threads x points) */
#define WU_RING_BYTES (1u << 20)	/* the event ring */

struct wu_event {
	__u64 t_entry, t_return;	/* bpf_ktime_get_ns() at entry and at return */
	__u64 size;			/* the size argument */
	__u64 addr;			/* *dptr after a successful call, else 0 */
	__u32 tid;
	__s32 rc;			/* the CUresult returned */
	__u32 point;			/* the attach point (the cookie) */
	__u32 _pad;
};
_Static_assert(sizeof(struct wu_event) == 48, "wu_event");

/* x86_64 struct pt_regs offsets */
#define WU_REGS_AX 80
#define WU_REGS_SI 104
#define WU_REGS_DI 112

#endif
