// SPDX-License-Identifier: GPL-2.0
/*
 * stride: a constant stride across 2 MiB blocks: the next strides ahead
 * (the same idea as the struct_ops stride policy, per block).
 */
#include "engine_common.bpf.h"
#include "pfengine_abi.h"

PFE_ENGINE("a constant stride across 2 MiB blocks: migrate the next strides");

PFE_PARAM(confidence, 2, 1, 16, "faults at the same block stride before prefetching");
PFE_PARAM(degree, 4, 1, 64, "strides ahead to migrate");
PFE_PARAM(max_stride, 64, 1, 65536, "largest stride followed, in 2 MiB blocks");

PFE_COUNTER(strides_detected);
PFE_COUNTER(stride);

__s64 last = -1;	/* last distinct block */
__s64 cur;		/* the stride in blocks, 0: none yet */
__s64 reached;		/* the farthest block requested along the stride */
__u64 hits;

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);
	__s64 b, d, ms = (__s64)max_stride;

	if (!e || !pfe_is_fault(e))
		return 0;
	b = block_of(e->addr);
	if (b == last)
		return 0;
	d = last < 0 ? 0 : b - last;
	last = b;
	if (d == 0 || d > ms || d < -ms) {
		hits = 0;
		cur = 0;
		return 0;
	}
	if (d != cur) {
		cur = d;
		hits = 1;
		reached = b;
	} else {
		hits++;
	}
	if (hits < confidence)
		return 0;
	if (hits == confidence) {
		strides_detected++;
		stride = (__u64)cur;
	}
	for (__u64 k = 1; k <= 64 && k <= degree; k++) {
		__s64 t = b + (__s64)k * cur;

		if ((t - reached) * (cur > 0 ? 1 : -1) <= 0)
			continue;	/* asked for already */
		add_blocks(e, t, t);
		reached = t;
	}
	return 0;
}

SEC("syscall")
int pfe_batch(void *ctx)
{
	return pfe_for_each(one);
}
