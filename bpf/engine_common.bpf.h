/* SPDX-License-Identifier: GPL-2.0 */
/* What the built-in engine policies share (bpf/engine_*.bpf.c). */
#ifndef GPUCTL_ENGINE_COMMON_BPF_H
#define GPUCTL_ENGINE_COMMON_BPF_H

#include "pfengine_abi.h"

static __always_inline __s64 block_of(__u64 addr)
{
	return (__s64)(addr >> PFE_BLOCK_SHIFT);
}

/*
 * Blocks [lo, hi] (inclusive) as one request to the fault's GPU, cut to the
 * managed allocation around the fault when the engine knows it (when it does
 * not, the driver refuses what is not managed memory, and the engine counts it).
 */
static __always_inline void add_blocks(const struct pfe_event *e, __s64 lo, __s64 hi)
{
	__u64 a = (__u64)lo << PFE_BLOCK_SHIFT, b = ((__u64)hi + 1) << PFE_BLOCK_SHIFT;

	if (lo < 0 || hi < lo)
		return;
	if (e->flags & PFE_F_MANAGED) {
		if (a < e->ext_start)
			a = e->ext_start;
		if (b > e->ext_end)
			b = e->ext_end;
		if (a >= b)
			return;
	}
	pfe_req(a, b - a, e->gpu, 0);
}

#endif
