// SPDX-License-Identifier: GPL-2.0
/*
 * thrashing: moves each faulting 2 MiB block (and the next ones) to the GPU
 * that faulted, but stops moving a block that bounces: one the engine moved
 * that the GPU faults on again (the CPU took it back, or it was evicted)
 * `bounces` times within `window_ms` is left alone for `hold_ms`, where the
 * driver's own fault handling (remote mapping, its thrashing detection)
 * serves it better than a migration that is undone again.
 */
#include "engine_common.bpf.h"
#include "pfengine_abi.h"

PFE_ENGINE("move faulting blocks ahead, but leave alone a block that bounces between CPU and GPU");

PFE_PARAM(degree, 2, 1, 64, "blocks moved per fault (the faulting one and those after it)");
PFE_PARAM(bounces, 3, 1, 64, "moves undone within window_ms before a block is left alone");
PFE_PARAM(window_ms, 1000, 1, 600000, "how long bounces are counted");
PFE_PARAM(hold_ms, 2000, 1, 3600000, "how long a bouncing block is left alone");

PFE_COUNTER(moved);
PFE_COUNTER(bounced);
PFE_COUNTER(held);
PFE_COUNTER(left_alone);

#define NBLOCKS 8192	/* a power of 2 */

struct block {
	__s64 b;		/* the block, 0: free */
	__u64 done_ts;		/* its last move ended, 0: not moved (or pending) */
	__u64 pending;
	__u64 first_bounce_ts, nbounce;
	__u64 held_until;
};

struct block tab[NBLOCKS];

static __always_inline __u32 slot_of(__s64 b)
{
	return (__u32)((__u64)b * 0x9E3779B97F4A7C15ull >> 40) & (NBLOCKS - 1);
}

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);
	struct block *x;
	__s64 b, hi;
	__u32 k;

	if (!e)
		return 0;
	if (e->kind == PFE_EV_DONE) {
		x = &tab[e->cookie & (NBLOCKS - 1)];
		if (x->pending && x->b == block_of(e->addr)) {
			x->pending = 0;
			x->done_ts = (e->flags & PFE_F_OK) ? e->ts_ns : 0;
		}
		return 0;
	}
	if (!pfe_is_fault(e))
		return 0;
	b = block_of(e->addr);
	k = slot_of(b);
	x = &tab[k & (NBLOCKS - 1)];
	if (x->b != b) {
		x->b = b;
		x->done_ts = x->pending = x->first_bounce_ts = x->nbounce = x->held_until = 0;
	}
	if (x->pending)
		return 0;
	if (e->ts_ns < x->held_until) {
		left_alone++;
		return 0;
	}
	if (x->done_ts && e->ts_ns > x->done_ts) {
		/* moved here before, faulted on again: it went away */
		bounced++;
		if (!x->nbounce || e->ts_ns - x->first_bounce_ts > window_ms * 1000000ull) {
			x->first_bounce_ts = e->ts_ns;
			x->nbounce = 0;
		}
		if (++x->nbounce >= bounces) {
			x->held_until = e->ts_ns + hold_ms * 1000000ull;
			x->nbounce = 0;
			x->done_ts = 0;
			held++;
			return 0;
		}
	}
	hi = b + (__s64)degree - 1;
	{
		__u64 a = (__u64)b << PFE_BLOCK_SHIFT, z = ((__u64)hi + 1) << PFE_BLOCK_SHIFT;

		if (e->flags & PFE_F_MANAGED) {
			if (a < e->ext_start)
				a = e->ext_start;
			if (z > e->ext_end)
				z = e->ext_end;
		}
		if (a >= z || pfe_req_one(a, z - a, e->gpu, k))
			return 0;
	}
	x->pending = 1;
	x->done_ts = 0;
	moved++;
	return 0;
}

SEC("syscall")
int pfe_batch(void *ctx)
{
	return pfe_for_each(one);
}
