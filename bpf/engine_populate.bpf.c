// SPDX-License-Identifier: GPL-2.0
/*
 * populate: the first GPU fault in a managed allocation moves the whole
 * allocation (from the fault on): first touches of fresh allocations, and
 * buffers the CPU wrote, in one go.  It needs an allocation's first fault
 * only (the engine turns the driver's fault recording off while every
 * allocation has had one), and the allocations as they are made and freed:
 * an address freed and mapped again is a new allocation.
 *
 * When to move a new allocation (eager):
 *   1  (the default) as soon as it is made, before any fault;
 *   0  on its first GPU fault.
 * Moving at creation is right for an allocation the GPU touches first, and
 * measured no worse for one the CPU writes first: the CPU's first write
 * to a chunk the GPU holds brings the chunk back at once, which costs less
 * than the CPU populating fresh pages a few at a time.  On the H100 eager 1
 * was as fast as eager 0 or faster on every workload measured, whole
 * program and GPU phase (issue 40's table, 543f5eb: the 8 GiB sweep's wall
 * 4065 vs 5435 ms, CuPy's 8511 vs 9178 ms, PyTorch without caching 380 vs
 * 725 ms a step).  A per-size rule that held back sizes the CPU wrote
 * after their eager move (eager 2, the default until then) lost to eager 1
 * on cpumix, the workload built for it to win (wall 0.907x [0.83-0.96] of
 * eager 2's), and was level with it on sweep, CuPy, PyTorch and GraphSAGE
 * (bench/results/engine-ab-2026-11-26-h100-session9.md); it is gone.
 * cpu_pulls still counts the allocations the CPU wrote after their move.
 *
 * trail 1: an allocation moved when made that the CPU then writes (a PULL
 * with a write) is followed: each PULL says where the CPU's write front is,
 * and what lies lag_mb behind it (finished) moves back to the GPU while the
 * CPU writes the rest.  Each move watches the allocation for the CPU's next
 * fault again; where there is nothing to move yet the policy asks for the
 * watch alone (PFE_DST_WATCH).  A PULL behind what was moved (the CPU came
 * back) ends it for that allocation.
 *
 * ahead_mb N: the other side of the CPU's write front.  Each PULL with a
 * write asks for what lies up to N MiB ahead of the front to come to the
 * CPU in one call (what is not there yet), so the CPU writes on into pages
 * it holds instead of faulting them back a few at a time; the move watches
 * the allocation again, and the CPU's next fault past it moves the window
 * on.  A PULL behind what was brought ahead (the CPU came back) ends it for
 * that allocation.  With trail 1 both follow the front: what is finished
 * goes to the GPU, what comes next to the CPU.  On by default (256 MiB):
 * on an H100 it made the CPU-written workloads' whole programs 1.15-1.57x
 * faster than without (cupy, sweep, cpumix), their GPU phases within noise,
 * and it acts on nothing the CPU does not write after an eager move.
 */
#include "engine_common.bpf.h"
#include "pfengine_abi.h"

PFE_ENGINE("a managed allocation moves to the GPU when made; where the CPU then writes it, what lies ahead comes back in bulk");

PFE_PARAM(max_mb, 16384, 2, 1048576, "most MiB of one allocation moved on its first fault");
PFE_PARAM(chunk_mb, 256, 2, 65536, "MiB per migrate call (the fault's side first)");
PFE_PARAM(min_kb, 64, 4, 1048576, "allocations smaller than this are left to faults");
PFE_PARAM(hold_ms, 10, 0, 60000, "least time between two populations of one allocation");
PFE_PARAM(eager, 1, 0, 1, "1: an allocation moves when made; 0: on its first GPU fault");
PFE_PARAM(trail, 0, 0, 1, "1: while the CPU writes an allocation moved when made, move what it has finished back");
PFE_PARAM(lag_mb, 64, 2, 65536, "trail: MiB behind the CPU's write front left to it");
PFE_PARAM(ahead_mb, 256, 0, 65536, "MiB ahead of the CPU's write front brought to the CPU in one call (0: none)");
PFE_WANTS(PFE_W_FIRST_FAULT | PFE_W_ALLOCS | PFE_W_PULLS);

PFE_COUNTER(allocations);
PFE_COUNTER(unmanaged_faults);
PFE_COUNTER(repopulated);
PFE_COUNTER(eager_moved);
PFE_COUNTER(freed);
PFE_COUNTER(cpu_pulls);		/* the CPU wrote an allocation just moved when made */
PFE_COUNTER(trail_moves);	/* trail: moves of what the CPU finished */
PFE_COUNTER(trail_bytes);
PFE_COUNTER(trail_stops);	/* trail: allocations the CPU came back to */
PFE_COUNTER(ahead_moves);	/* ahead_mb: moves to the CPU ahead of its write front */
PFE_COUNTER(ahead_bytes);
PFE_COUNTER(ahead_stops);	/* ahead_mb: allocations the CPU came back to */

#define NEXTENTS 4096	/* a power of 2 */

enum { X_EAGER = 1, X_PULLED = 2, X_NOTRAIL = 4, X_NOAHEAD = 8 };

struct extent {
	__u64 start, end;	/* 0, 0: free slot */
	__u64 issued_ts;	/* when its population was asked for */
	__u64 done_ts;		/* when the last of it was done, 0: pending */
	__u64 pending;		/* requests not done yet */
	__u64 flags;		/* X_EAGER: moved when made; X_PULLED: the CPU wrote it since */
	__u64 trail_done;	/* trail: moved back up to here (0: nothing yet) */
	__u64 ahead_done;	/* ahead_mb: brought to the CPU up to here (0: nothing yet) */
	__u64 gpu;		/* where its move when made went */
};

struct extent ext[NEXTENTS];

static __always_inline __u32 slot_of(__u64 start)
{
	__u32 h = (__u32)((start >> 16) * 0x9E3779B1u) & (NEXTENTS - 1);

	/* a few probes; after that the first candidate is replaced */
	for (__u32 i = 0; i < 8; i++) {
		__u32 k = (h + i) & (NEXTENTS - 1);

		if (ext[k].start == start || !ext[k].end)
			return k;
	}
	return h;
}

/* Requests for [a, end) in chunks within *room, counted as pending on slot k. */
static __always_inline void chunks(__u32 k, __u64 a, __u64 end, __u16 gpu, __u64 *room)
{
	__u64 chunk = chunk_mb << 20;
	struct extent *x = &ext[k & (NEXTENTS - 1)];

	for (int i = 0; i < 64 && a < end && *room; i++) {
		__u64 n = end - a < chunk ? end - a : chunk;

		n = n < *room ? n : *room;
		if (pfe_req_one(a, n, gpu, k))
			break;
		x->pending++;
		a += n;
		*room -= n;
	}
}

/*
 * Whether allocation [s, end) is to be moved at time ts: new to us, or moved
 * before but faulted on since (and not within hold_ms).  *kp: its slot.
 */
static __always_inline int wanted(__u64 s, __u64 end, __u64 ts, __u32 *kp)
{
	struct extent *x;
	__u32 k;

	if (end - s < min_kb << 10)
		return 0;
	k = slot_of(s) & (NEXTENTS - 1);
	*kp = k;
	x = &ext[k];
	if (x->start != s || x->end != end) {
		x->start = s;
		x->end = end;
		x->issued_ts = x->done_ts = x->pending = x->flags = x->trail_done = 0;
		x->ahead_done = 0;
		allocations++;
		return 1;
	}
	if (x->pending)
		return 0;	/* being moved now */
	/* a fault from before the move ended: nothing new */
	if (ts <= x->done_ts || ts - x->issued_ts < hold_ms * 1000000ull)
		return 0;
	repopulated++;
	return 1;
}

/*
 * trail: a PULL in x, moved when made and written by the CPU since:
 * behind what was moved already, the CPU came back (trailing ends); a
 * write: [trail_done, front - lag) back to the GPU, or the watch alone when
 * that is empty; a read ahead: the watch alone.
 */
static __always_inline void trail_one(__u32 k, const struct pfe_event *e, __u64 *room)
{
	struct extent *x = &ext[k & (NEXTENTS - 1)];
	__u64 front = e->addr & ~(PFE_BLOCK - 1), lag = lag_mb << 20, done = x->trail_done;

	if (!done)
		done = x->start;
	if (front < done) {
		x->flags |= X_NOTRAIL;	/* the CPU came back to what was moved */
		trail_stops++;
		return;
	}
	/* a read ahead of what was moved: watched again, nothing moves */
	if (front >= done + lag + PFE_BLOCK &&
	    (e->access == PFE_ACC_WRITE || e->access == PFE_ACC_ATOMIC)) {
		__u64 n = front - lag - done;

		n = n < *room ? n : *room;
		if (n && !pfe_req_one(done, n, x->gpu, k)) {
			x->pending++;
			x->trail_done = done + n;
			trail_moves++;
			trail_bytes += n;
			return;
		}
	}
	if (!pfe_req_one(x->start, x->end - x->start, PFE_DST_WATCH, k))
		x->pending++;
}

/*
 * ahead_mb: a write PULL in x at the front: [front + a block, front +
 * ahead_mb) to the CPU, less what came already; 0 when nothing was
 * asked for (the caller then asks for the watch).  Behind what came ahead:
 * the CPU came back, it ends for x.
 */
static __always_inline int ahead_one(__u32 k, const struct pfe_event *e)
{
	struct extent *x = &ext[k & (NEXTENTS - 1)];
	__u64 front = e->addr & ~(PFE_BLOCK - 1), from = front + PFE_BLOCK;
	__u64 to = front + (ahead_mb << 20);

	if (e->access != PFE_ACC_WRITE && e->access != PFE_ACC_ATOMIC)
		return 0;
	if (to < x->ahead_done) {
		x->flags |= X_NOAHEAD;	/* a write a whole window behind: the CPU came back */
		ahead_stops++;
		return 0;
	}
	from = from > x->ahead_done ? from : x->ahead_done;
	to = to < x->end ? to : x->end;
	if (from >= to || pfe_req_one(from, to - from, PFE_DST_CPU, k))
		return 0;
	x->pending++;
	x->ahead_done = to;
	ahead_moves++;
	ahead_bytes += to - from;
	/* the watch after the move: the CPU's next fault past it moves the window on */
	if (!pfe_req_one(x->start, x->end - x->start, PFE_DST_WATCH, k))
		x->pending++;
	return 1;
}

/* The CPU's first fault in an allocation since the engine moved it when made. */
static __always_inline void pulled(const struct pfe_event *e)
{
	struct extent *x;

	if (!(e->flags & PFE_F_MANAGED) || (e->access != PFE_ACC_WRITE && e->access != PFE_ACC_ATOMIC))
		return;		/* a read: the CPU takes a result, it did not make the data */
	x = &ext[slot_of(e->ext_start) & (NEXTENTS - 1)];
	if (x->start != e->ext_start || !(x->flags & X_EAGER) || (x->flags & X_PULLED))
		return;
	x->flags |= X_PULLED;
	cpu_pulls++;
}

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);
	__u64 from, room = max_mb << 20;
	struct extent *x;
	__u32 k;

	if (!e)
		return 0;
	if (e->kind == PFE_EV_DONE) {
		x = &ext[e->cookie & (NEXTENTS - 1)];
		if (x->end && e->addr >= x->start && e->addr < x->end && x->pending) {
			if (--x->pending == 0)
				x->done_ts = e->ts_ns;
		}
		return 0;
	}
	if (e->kind == PFE_EV_PULL) {
		pulled(e);
		k = slot_of(e->ext_start);
		x = &ext[k & (NEXTENTS - 1)];
		if (x->start != e->ext_start || !(x->flags & X_PULLED))
			return 0;
		if (ahead_mb && !(x->flags & X_NOAHEAD) && !ahead_one(k, e) && !trail &&
		    !(x->flags & X_NOAHEAD)) {
			/* nothing came ahead (a read, or all there yet): the watch alone */
			if (!pfe_req_one(x->start, x->end - x->start, PFE_DST_WATCH, k))
				x->pending++;
		}
		if (trail && !(x->flags & X_NOTRAIL))
			trail_one(k, e, &room);
		return 0;
	}
	if (e->kind == PFE_EV_FREE || e->kind == PFE_EV_ALLOC) {
		/* whatever was known at this address is gone: a new allocation comes */
		x = &ext[slot_of(e->ext_start) & (NEXTENTS - 1)];
		if (x->start == e->ext_start) {
			x->start = x->end = 0;
			freed += e->kind == PFE_EV_FREE;
		}
	}
	if (e->kind == PFE_EV_ALLOC) {
		if (!eager || !wanted(e->ext_start, e->ext_end, e->ts_ns, &k))
			return 0;
		chunks(k, e->ext_start, e->ext_end, e->gpu, &room);
		x = &ext[k & (NEXTENTS - 1)];
		x->issued_ts = e->ts_ns;
		x->done_ts = 0;
		x->flags = X_EAGER;
		x->gpu = e->gpu;
		eager_moved++;
		return 0;
	}
	if (!pfe_is_fault(e))
		return 0;
	if (!(e->flags & PFE_F_MANAGED)) {
		unmanaged_faults++;
		return 0;
	}
	if (!wanted(e->ext_start, e->ext_end, e->ts_ns, &k))
		return 0;
	/* from the fault's block to the end, then what lies before it */
	from = e->addr & ~(PFE_BLOCK - 1);
	if (from < e->ext_start)
		from = e->ext_start;
	chunks(k, from, e->ext_end, e->gpu, &room);
	chunks(k, e->ext_start, from, e->gpu, &room);
	x = &ext[k & (NEXTENTS - 1)];
	x->issued_ts = e->ts_ns;
	x->done_ts = 0;
	return 0;
}

SEC("syscall")
int pfe_batch(void *ctx)
{
	return pfe_for_each(one);
}
