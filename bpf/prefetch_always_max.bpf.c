// SPDX-License-Identifier: GPL-2.0
/*
 * always_max: on every fault prefetch the whole region the driver allows
 * (max_prefetch_region, the VA block's pages), ignoring occupancy.
 */
#include "prefetch_common.bpf.h"
#include "prefetch.h"

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(always_max_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	uvm_page_index_t first = max_prefetch_region->first;
	uvm_page_index_t outer = max_prefetch_region->outer;

	bpf_uvm_set_va_block_region(result_region, first, outer);
	return decide(UVM_BPF_ACTION_BYPASS, outer - first);
}

SEC(".struct_ops.link")
struct uvm_gpu_ext always_max = {
	.uvm_prefetch_before_compute = (void *)always_max_before_compute,
};
