/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfengine_abi.h - the prefetch engine's BPF ABI, version PFE_ABI_VERSION:
 * the whole contract between gpuctl's engine (cmd/pfengine/bpfrun.c) and an
 * engine policy, built in (bpf/engine_*.bpf.c) or a user's own object.
 *
 * An engine policy is one program of type BPF_PROG_TYPE_SYSCALL, SEC("syscall"),
 * that the engine runs with BPF_PROG_TEST_RUN once per batch of events.  The
 * batch and the answers live in the global `pfe_io` (the program's mmap'ed
 * global data, found by its BTF name): the engine writes ev[0..nev), the
 * program writes req[0..nreq).  Loop over a batch with bpf_loop (a plain loop
 * over 256 events exceeds the verifier's budget).
 *
 * Events: GPU faults (the address, the GPU of the process that faulted, the
 * access, the driver's time, the managed allocation around the address),
 * completions of earlier requests (DONE: with the request's cookie),
 * managed allocations as the process makes them (ALLOC) and frees them
 * (FREE), events the engine lost (GAP), and the CPU pulling back memory the
 * engine moved to a GPU (PULL: the first CPU fault in an allocation within
 * a second of each move into it).  Kinds are only ever added: a
 * program skips kinds it does not know.  Requests: a range and a
 * destination, a GPU of the process by index or the CPU.  The engine caps
 * each request (GPU free memory, --max-bytes) and carries it out with
 * UVM_MIGRATE on the process's own UVM file.
 *
 * Parameters: PFE_PARAM(name, default, min, max, doc): a __u64 global the
 * command line sets by name (`KEY VALUE`, `prefetch set -p PID KEY VALUE`).
 * Counters: PFE_COUNTER(name): a __u64 global that `prefetch show` prints by
 * its BTF name.  Nothing else needs naming in C.
 *
 * Interest: PFE_WANTS(mask of PFE_W_*) says which events the policy needs;
 * the engine turns the driver's fault recording off while none of them can
 * come (it is the cost of watching: the driver records every fault it is
 * asked for).  An object without PFE_WANTS gets every event (PFE_W_ALL).
 *
 * A minimal policy (the one-line build is in gpuctl-prefetch(8)):
 *
 *	#include "pfengine_abi.h"
 *	PFE_ENGINE("move each faulting 2 MiB block and the next one");
 *	PFE_COUNTER(asked);
 *	static long one(__u32 i, void *c)
 *	{
 *		struct pfe_event *e = pfe_ev(i);
 *		if (e && pfe_is_fault(e)) {
 *			pfe_req(e->addr & ~(PFE_BLOCK - 1), 2 * PFE_BLOCK, e->gpu, 0);
 *			asked++;
 *		}
 *		return 0;
 *	}
 *	SEC("syscall") int batch(void *ctx) { return pfe_for_each(one); }
 */
#ifndef GPUCTL_PFENGINE_ABI_H
#define GPUCTL_PFENGINE_ABI_H

#include <linux/types.h>

#define PFE_ABI_VERSION 1
#define PFE_BATCH 256		/* most events in one run (a power of 2) */
#define PFE_MAX_REQS 256	/* most requests one run may answer (a power of 2) */
#define PFE_BLOCK_SHIFT 21	/* UVM's VA block: 2 MiB */
#define PFE_BLOCK (1ull << PFE_BLOCK_SHIFT)

enum pfe_kind {
	PFE_EV_FAULT = 1,	/* a GPU fault */
	PFE_EV_DONE = 2,	/* an earlier request was carried out (or not: no PFE_F_OK) */
	PFE_EV_ALLOC = 3,	/* a managed allocation was made: [ext_start, ext_end) */
	PFE_EV_FREE = 4,	/* a managed allocation (or part of one) was freed: [ext_start, ext_end) */
	PFE_EV_GAP = 5,		/* events lost: len of them, between ext_start and ext_end (ns) */
	PFE_EV_PULL = 6,	/* the CPU faulted in an allocation the engine moved to a GPU:
				 * its first CPU fault within 1 s of that move (addr, access, ts) */
};

/* PFE_WANTS: what a policy needs (the engine's interest switch). */
enum pfe_want {
	PFE_W_FAULTS = 0x1,	/* every GPU fault */
	PFE_W_FIRST_FAULT = 0x2,/* the first GPU fault of each allocation (and faults outside them) */
	PFE_W_ALLOCS = 0x4,	/* ALLOC and FREE */
	PFE_W_ALL = 0x7,	/* what an object without PFE_WANTS gets (ABI 1 as first made) */
	PFE_W_PULLS = 0x8,	/* PULL: the driver records CPU faults only while some
				 * allocation the engine moved (< 1 s ago) waits for its first */
};

enum pfe_access {		/* FAULT: what the GPU did, PULL: the CPU (gpuctl trace's words) */
	PFE_ACC_NONE = 0,
	PFE_ACC_READ = 1,
	PFE_ACC_WRITE = 2,
	PFE_ACC_ATOMIC = 3,
	PFE_ACC_PREFETCH = 4,
};

enum pfe_flag {
	PFE_F_DUPLICATE = 0x01,	/* FAULT: the same page again in the same fault batch */
	PFE_F_MANAGED = 0x02,	/* ext_start/ext_end hold the managed allocation around addr */
	PFE_F_OK = 0x04,	/* DONE: the driver moved it */
};

#define PFE_GPU_NONE 0xffff	/* event: no GPU known */
#define PFE_DST_CPU 0xfffe	/* request: to the CPU (system memory) */
#define PFE_DST_WATCH 0xfffd	/* request: nothing moves; the allocations in the range are
				 * watched for the CPU's next fault (a PULL) again, as after a
				 * move to a GPU (DONE follows, len 0) */

struct pfe_event {
	__u64 addr;		/* FAULT: the address; DONE: the request's; ALLOC/FREE: ext_start */
	__u64 len;		/* DONE: bytes asked of the driver (after capping); GAP: events lost */
	__u64 ts_ns;		/* CLOCK_MONOTONIC_RAW, ns (the driver's fault clock) */
	__u64 ext_start;	/* the managed allocation around addr (PFE_F_MANAGED) */
	__u64 ext_end;
	__u32 kind;		/* enum pfe_kind */
	__u32 cookie;		/* DONE: the request's cookie */
	__u16 gpu;		/* FAULT: the process's GPU index; DONE: the destination;
				 * ALLOC/FREE: --gpu's, else the process's first GPU;
				 * PULL: PFE_GPU_NONE */
	__u8 access;		/* enum pfe_access */
	__u8 flags;		/* enum pfe_flag */
	__u32 pad;
};

struct pfe_request {
	__u64 addr;		/* the range to move (the engine rounds to pages) */
	__u64 len;
	__u16 dst;		/* a GPU index of the process, PFE_DST_CPU or PFE_DST_WATCH */
	__u16 pad;
	__u32 cookie;		/* handed back in the request's DONE event */
};

_Static_assert(sizeof(struct pfe_event) == 56, "pfe_event: ABI 1");
_Static_assert(sizeof(struct pfe_request) == 24, "pfe_request: ABI 1");

struct pfe_io {
	__u32 abi;		/* engine: PFE_ABI_VERSION */
	__u32 nev;		/* engine: events in ev[] */
	__u32 nreq;		/* program: requests in req[] (the engine zeroes it) */
	__u32 ngpus;		/* engine: the GPUs of the process (indexes 0..ngpus-1) */
	__u64 now_ns;		/* engine: the time of this run (CLOCK_MONOTONIC_RAW) */
	struct pfe_event ev[PFE_BATCH];
	struct pfe_request req[PFE_MAX_REQS];
};

_Static_assert(sizeof(struct pfe_io) == 24 + 256 * 56 + 256 * 24, "pfe_io: ABI 1");

/* What PFE_PARAM leaves in .rodata for the engine: limits and a line of doc. */
struct pfe_param_info {
	__u64 def, min, max;
	char doc[104];
};

/* The sections the engine reads by name (bpfrun.c). */
#define PFE_SEC_PARAMS ".data.pfe_params"
#define PFE_SEC_CTRS ".data.pfe_ctr"
#define PFE_PARAM_INFO_PREFIX "pfe_pi_"

#if defined(__bpf__) || defined(__BPF__)
#include <bpf/bpf_helpers.h>

/*
 * Once per object: the ABI version the engine checks before it loads, a
 * line that says what the policy does, and the batch.
 */
#define PFE_ENGINE(doc_line)							\
	const volatile __u32 pfe_abi_version SEC(".rodata") = PFE_ABI_VERSION;	\
	const char pfe_doc[] SEC(".rodata") = doc_line;				\
	struct pfe_io pfe_io SEC(".data.pfe_io");				\
	char _license[] SEC("license") = "GPL"

#define PFE_WANTS(mask) const volatile __u32 pfe_wants SEC(".rodata") = (mask)

#define PFE_PARAM(name, def, lo, hi, doc_line)					\
	__u64 name SEC(PFE_SEC_PARAMS) = (def);					\
	const struct pfe_param_info pfe_pi_##name SEC(".rodata") =		\
		{ (def), (lo), (hi), doc_line }

#define PFE_COUNTER(name) __u64 name SEC(PFE_SEC_CTRS) = 0

extern struct pfe_io pfe_io;

/* Event i of the batch, or NULL past its end (keeps the verifier in bounds). */
static __always_inline struct pfe_event *pfe_ev(__u32 i)
{
	if (i >= pfe_io.nev || i >= PFE_BATCH)
		return (void *)0;
	return &pfe_io.ev[i & (PFE_BATCH - 1)];
}

static __always_inline int pfe_is_fault(const struct pfe_event *e)
{
	return e->kind == PFE_EV_FAULT && !(e->flags & PFE_F_DUPLICATE);
}

/* A global function: the verifier checks it once, not at each call. */
__attribute__((noinline)) int __pfe_req(__u64 addr, __u64 len, __u32 dst, __u32 cookie, __u32 merge)
{
	__u32 n = pfe_io.nreq;
	struct pfe_request *r;

	if (!len)
		return 0;
	if (merge && n > 0 && n <= PFE_MAX_REQS) {
		r = &pfe_io.req[(n - 1) & (PFE_MAX_REQS - 1)];
		if (r->dst == dst && r->addr + r->len == addr) {
			r->len += len;
			return 0;
		}
	}
	if (n >= PFE_MAX_REQS)
		return -1;
	r = &pfe_io.req[n & (PFE_MAX_REQS - 1)];
	r->addr = addr;
	r->len = len;
	r->dst = dst;
	r->pad = 0;
	r->cookie = cookie;
	pfe_io.nreq = n + 1;
	return 0;
}

/*
 * Asks for [addr, addr + len) to go to dst; merged with the request before
 * when they touch (same destination; the cookie of the first stays).
 * 0, or -1 when the batch's requests are full.
 */
#define pfe_req(addr, len, dst, cookie) __pfe_req(addr, len, dst, cookie, 1)
/* The same, never merged: one DONE event per call. */
#define pfe_req_one(addr, len, dst, cookie) __pfe_req(addr, len, dst, cookie, 0)

/* Room for more requests in this batch. */
static __always_inline int pfe_req_room(void)
{
	return pfe_io.nreq < PFE_MAX_REQS;
}

/* Runs fn(i, NULL) over the batch's events; the program's return value. */
#define pfe_for_each(fn)							\
	({ __u32 __n = pfe_io.nev < PFE_BATCH ? pfe_io.nev : PFE_BATCH;	\
	   bpf_loop(__n, fn, (void *)0, 0); 0; })

#endif /* bpf */

#endif
