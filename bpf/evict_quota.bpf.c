// SPDX-License-Identifier: GPL-2.0
/*
 * quota: a share of GPU memory per process.  gpuctl fills the pids table
 * (pid -> share in %) from `pid PID PERCENT` and `cgroup PATH PERCENT`;
 * other processes get `default_share`.  The policy counts each process's
 * resident chunks.  An eviction candidate whose owner holds less than its
 * share is moved to the tail (the victim comes from a process over its
 * share); a process over its share is not promoted when it uses a chunk.
 */
#define EVICT_WITH_PIDS
#include "evict_common.bpf.h"
#include "evict.h"

/* pid -> resident chunks */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EV_PIDS_MAX);
	__type(key, __u32);
	__type(value, __s64);
} usage SEC(".maps");

/* [0]: resident chunks of all processes */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64);
} total SEC(".maps");

/*
 * Chunks populated before the policy was loaded are released without
 * having been counted: the counts never go below zero.
 */
static __always_inline void account(__u32 pid, __s64 n)
{
	__s64 *u = bpf_map_lookup_elem(&usage, &pid), init = 1;
	__u32 k = 0;
	__s64 *t = bpf_map_lookup_elem(&total, &k);

	if (n < 0) {
		if (!u || *u <= 0)
			return;
		__sync_fetch_and_add(u, -1);
		if (t && *t > 0)
			__sync_fetch_and_add(t, -1);
		return;
	}
	if (u)
		__sync_fetch_and_add(u, 1);
	else
		bpf_map_update_elem(&usage, &pid, &init, BPF_NOEXIST);
	if (t)
		__sync_fetch_and_add(t, 1);
}

/* <0 under its share, 0 at it, >0 over it */
static __always_inline int vs_share(__u32 pid)
{
	__s64 *u = bpf_map_lookup_elem(&usage, &pid), *t;
	__u64 share = pid_value(pid, (__u32)param(EV_QUOTA_DEFAULT_SHARE));
	__u32 k = 0;
	__s64 mine, all;

	t = bpf_map_lookup_elem(&total, &k);
	mine = u ? *u : 0;
	all = t ? *t : 0;
	if (mine * 100 < (__s64)share * all)
		return -1;
	return mine * 100 > (__s64)share * all;
}

SEC("struct_ops/chunk_activate")
int BPF_PROG(quota_activate, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_ACTIVATE, 1);
	account(info->owner_pid, 1);
	return UVM_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/chunk_release")
int BPF_PROG(quota_release, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info)
{
	stat_add(EV_QUOTA_STAT_RELEASE, 1);
	account(info->owner_pid, -1);
	return UVM_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/chunk_used")
int BPF_PROG(quota_used, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_USED, 1);
	if (vs_share(info->owner_pid) > 0) {
		stat_add(EV_QUOTA_STAT_OVER_QUOTA, 1);
		return UVM_BPF_EVICT_HANDLED;
	}
	return UVM_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/evict_prepare")
int BPF_PROG(quota_prepare, uvm_gpu_chunk_t *candidate, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_PREPARE, 1);
	if (vs_share(info->owner_pid) < 0) {
		move_tail(candidate, used_list);
		stat_add(EV_QUOTA_STAT_PROTECTED, 1);
	}
	return UVM_BPF_EVICT_DEFAULT;
}

SEC(".struct_ops.link")
struct uvm_evict_ops quota = {
	.chunk_activate = (void *)quota_activate,
	.chunk_used = (void *)quota_used,
	.chunk_release = (void *)quota_release,
	.evict_prepare = (void *)quota_prepare,
};
