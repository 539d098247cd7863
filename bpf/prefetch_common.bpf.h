/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prefetch_common.bpf.h - what every gpuctl prefetch policy shares on top
 * of policy_common.bpf.h: the names of its counter slots and decide().
 */
#ifndef PREFETCH_COMMON_BPF_H
#define PREFETCH_COMMON_BPF_H

#include "policy_common.bpf.h"

/* Counter slots; gpuctl prints them under these names. */
enum {
	STAT_DEFAULT = 0,	/* decisions left to the driver */
	STAT_BYPASS = 1,	/* decisions answered by the policy */
	STAT_ENTER_LOOP = 2,	/* decisions taken walking the tree */
	STAT_PAGES = 3,		/* pages the policy asked for */
	STAT_POLICY = 4,	/* first policy-specific slot */
};

/* The driver's tree walk, with the threshold as a parameter. */
static __always_inline int occupied(unsigned int counter, const uvm_va_block_region_t *r,
				     __u64 percent)
{
	return (__u64)counter * 100 > (__u64)(r->outer - r->first) * percent;
}

/* Counts the action and returns it: `return decide(STAT_BYPASS, pages);` */
static __always_inline int decide(int action, __u64 pages)
{
	stat_add(action, 1);
	if (pages)
		stat_add(STAT_PAGES, pages);
	return action;
}

#endif
