/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prefetch_common.bpf.h - what every gpuctl prefetch policy shares on top
 * of policy_common.bpf.h: the ABI with gpuctl (prefetch.h) and decide().
 */
#ifndef PREFETCH_COMMON_BPF_H
#define PREFETCH_COMMON_BPF_H

#include "policy_common.bpf.h"
#include "prefetch.h"

/* decide() counts an action in the slot of the same number. */
_Static_assert(PF_STAT_DEFAULT == UVM_BPF_ACTION_DEFAULT && PF_STAT_BYPASS == UVM_BPF_ACTION_BYPASS &&
	       PF_STAT_ENTER_LOOP == UVM_BPF_ACTION_ENTER_LOOP, "prefetch: action slots");

/* The driver's tree walk, with the threshold as a parameter. */
static __always_inline int occupied(unsigned int counter, const uvm_va_block_region_t *r,
				     __u64 percent)
{
	return (__u64)counter * 100 > (__u64)(r->outer - r->first) * percent;
}

/* Counts the action and returns it: `return decide(UVM_BPF_ACTION_BYPASS, pages);` */
static __always_inline int decide(int action, __u64 pages)
{
	stat_add(action, 1);
	if (pages)
		stat_add(PF_STAT_PAGES, pages);
	return action;
}

#endif
