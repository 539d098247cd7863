/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prefetch_common.bpf.h - what every gpuctl prefetch policy shares:
 * the ABI types, a params array gpuctl fills and `prefetch set` updates,
 * and per-CPU counters of the decisions taken, which `prefetch show` sums.
 */
#ifndef PREFETCH_COMMON_BPF_H
#define PREFETCH_COMMON_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "uvm_bpf_ext.h"

char LICENSE[] SEC("license") = "GPL";

/* Counter slots; gpuctl prints them under these names. */
enum {
	STAT_DEFAULT = 0,	/* decisions left to the driver */
	STAT_BYPASS = 1,	/* decisions answered by the policy */
	STAT_ENTER_LOOP = 2,	/* decisions taken walking the tree */
	STAT_PAGES = 3,		/* pages the policy asked for */
	STAT_POLICY = 4,	/* first policy-specific slot */
	STAT_MAX = 8,
};

#define PARAM_MAX 8

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PARAM_MAX);
	__type(key, __u32);
	__type(value, __u64);
} params SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_add(__u32 slot, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);

	if (v)
		*v += n;
}

/* A parameter; gpuctl writes every one at load.  def only if unreadable. */
static __always_inline __u64 param(__u32 idx, __u64 def)
{
	__u64 *v = bpf_map_lookup_elem(&params, &idx);

	return v ? *v : def;
}

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
