// SPDX-License-Identifier: GPL-2.0
/*
 * adaptive: the driver's tree walk with the occupancy threshold in a map.
 * `gpuctl prefetch load adaptive` keeps running and moves the threshold
 * with the host-to-device throughput (the other PF_ADAPTIVE_* parameters
 * are its bands, read by gpuctl only).
 */
#include "prefetch_common.bpf.h"
#include "prefetch.h"

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(adaptive_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	return decide(UVM_BPF_ACTION_ENTER_LOOP, 0);
}

SEC("struct_ops/uvm_prefetch_on_tree_iter")
int BPF_PROG(adaptive_on_tree_iter, uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *current_region, unsigned int counter,
	     uvm_va_block_region_t *prefetch_region)
{
	if (!occupied(counter, current_region, param(PF_ADAPTIVE_THRESHOLD)))
		return 0;
	bpf_uvm_set_va_block_region(prefetch_region, current_region->first,
				    current_region->outer);
	return 1;
}

SEC(".struct_ops.link")
struct uvm_gpu_ext adaptive = {
	.uvm_prefetch_before_compute = (void *)adaptive_before_compute,
	.uvm_prefetch_on_tree_iter = (void *)adaptive_on_tree_iter,
};
