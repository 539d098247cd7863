/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy_common.bpf.h - what every gpuctl struct_ops policy shares: the
 * driver's ABI, a params array gpuctl fills at load and `set` updates, and
 * per-CPU counters `show` sums (their sizes and names: policy_abi.h; each
 * family's header names the slots).
 */
#ifndef POLICY_COMMON_BPF_H
#define POLICY_COMMON_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "uvm_bpf_ext.h"
#include "policy_abi.h"

char LICENSE[] SEC("license") = "GPL";

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

/*
 * A parameter (an index of the family's enum); gpuctl writes every slot at
 * load.  The lookup of an index below PARAM_MAX cannot fail; the verifier
 * wants the check.
 */
static __always_inline __u64 param(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&params, &idx);

	return v ? *v : 0;
}

#endif
