/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay_common.bpf.h - what every gpuctl replay policy shares: the ABI
 * types (struct uvm_fault_policy_ops), a params array gpuctl fills and
 * `replay set` updates, and per-CPU counters `replay show` sums.
 *
 * decide_replay() runs once per serviced fault batch, and only when the
 * driver's uvm_perf_fault_replay_policy is 4 (EBPF).
 */
#ifndef REPLAY_COMMON_BPF_H
#define REPLAY_COMMON_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "uvm_bpf_ext.h"

char LICENSE[] SEC("license") = "GPL";

/* Counter slots; gpuctl prints them under these names. */
enum {
	STAT_REPLAY = 0,	/* batches answered "replay now" */
	STAT_DEFER = 1,		/* batches answered "defer" */
	STAT_BATCHES = 2,	/* decisions taken */
	STAT_FAULTS = 3,	/* fault buffer entries of those batches */
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

/* A parameter, or def when gpuctl has not set it. */
static __always_inline __u64 param(__u32 idx, __u64 def)
{
	__u64 *v = bpf_map_lookup_elem(&params, &idx);

	return v && *v ? *v : def;
}

/* Counts the batch and the answer, returns it: `return decide(b, NOW);` */
static __always_inline int decide(struct uvm_fault_batch_info *batch, int decision)
{
	stat_add(STAT_BATCHES, 1);
	stat_add(STAT_FAULTS, batch->num_faults);
	stat_add(decision == UVM_BPF_REPLAY_NOW ? STAT_REPLAY : STAT_DEFER, 1);
	return decision;
}

#endif
