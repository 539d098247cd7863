// SPDX-License-Identifier: GPL-2.0
/*
 * fifo: evict chunks in the order they were first populated.  A chunk goes
 * to the tail when activated (the driver's default) and stays where it is
 * when used again, so the head is always the oldest.
 */
#include "evict_common.bpf.h"
#include "evict.h"

SEC("struct_ops/chunk_activate")
int BPF_PROG(fifo_activate, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_ACTIVATE, 1);
	return UVM_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/chunk_used")
int BPF_PROG(fifo_used, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_USED, 1);
	return UVM_BPF_EVICT_HANDLED;	/* no promotion */
}

SEC(".struct_ops.link")
struct uvm_evict_ops fifo = {
	.chunk_activate = (void *)fifo_activate,
	.chunk_used = (void *)fifo_used,
};
