// SPDX-License-Identifier: GPL-2.0
/*
 * priority: protect the GPU memory of chosen processes.  gpuctl fills the
 * pids table (pid -> level) from `pid PID LEVEL` and `cgroup PATH LEVEL`.
 *   high    when a high chunk is the eviction candidate it is moved to the
 *           tail, so the victim comes from another process (the driver
 *           gives up after UVM_BPF_EVICT_MAX_SKIPS and evicts the head);
 *   low     chunks are not promoted when used: they age in the order they
 *           were populated and leave before others;
 *   normal  (processes not in the table) the driver's LRU.
 */
#define EVICT_WITH_PIDS
#include "evict_common.bpf.h"
#include "evict.h"

SEC("struct_ops/chunk_activate")
int BPF_PROG(priority_activate, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_ACTIVATE, 1);
	return UVM_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/chunk_used")
int BPF_PROG(priority_used, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_USED, 1);
	if (pid_value(info->owner_pid, EV_PRIO_NORMAL) == EV_PRIO_LOW) {
		stat_add(EV_PRIORITY_STAT_LOW_AGED, 1);
		return UVM_BPF_EVICT_HANDLED;
	}
	return UVM_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/evict_prepare")
int BPF_PROG(priority_prepare, uvm_gpu_chunk_t *candidate, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_PREPARE, 1);
	if (pid_value(info->owner_pid, EV_PRIO_NORMAL) == EV_PRIO_HIGH) {
		move_tail(candidate, used_list);
		stat_add(EV_PRIORITY_STAT_PROTECTED, 1);
	}
	return UVM_BPF_EVICT_DEFAULT;
}

SEC(".struct_ops.link")
struct uvm_evict_ops priority = {
	.chunk_activate = (void *)priority_activate,
	.chunk_used = (void *)priority_used,
	.evict_prepare = (void *)priority_prepare,
};
