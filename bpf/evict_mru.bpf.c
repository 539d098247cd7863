// SPDX-License-Identifier: GPL-2.0
/*
 * mru: evict the most recently used chunk.  Every chunk the driver
 * activates or uses goes to the head of the used list, the next victim:
 * a cyclic scan larger than GPU memory then keeps most of its chunks
 * resident instead of evicting each one just before it is needed again.
 */
#include "evict_common.bpf.h"
#include "evict.h"

SEC("struct_ops/chunk_activate")
int BPF_PROG(mru_activate, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_ACTIVATE, 1);
	move_head(chunk, used_list);
	return UVM_BPF_EVICT_HANDLED;
}

SEC("struct_ops/chunk_used")
int BPF_PROG(mru_used, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_USED, 1);
	move_head(chunk, used_list);
	return UVM_BPF_EVICT_HANDLED;
}

SEC(".struct_ops.link")
struct uvm_evict_ops mru = {
	.chunk_activate = (void *)mru_activate,
	.chunk_used = (void *)mru_used,
};
