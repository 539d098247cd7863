// SPDX-License-Identifier: GPL-2.0
/* A user's own prefetch policy, as `prefetch load file` takes it: on every
 * fault prefetch the half of the block the fault is in. */
#include "prefetch_common.bpf.h"

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(half_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	uvm_page_index_t first = page_index < 256 ? 0 : 256;

	bpf_uvm_set_va_block_region(result_region, first, first + 256);
	return decide(UVM_BPF_ACTION_BYPASS, 256);
}

SEC(".struct_ops.link")
struct uvm_gpu_ext user_half = {
	.uvm_prefetch_before_compute = (void *)half_before_compute,
};
