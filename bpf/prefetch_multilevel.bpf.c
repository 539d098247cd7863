// SPDX-License-Identifier: GPL-2.0
/*
 * multilevel: walk the tree; the occupancy band of each subregion decides
 * how large a region it may grant: above `high` % any size (up to
 * large_pages), above `mid` % up to medium_pages, above `low` % up to
 * small_pages.  The largest granted subregion wins, as in the driver.
 */
#include "prefetch_common.bpf.h"

enum { P_HIGH, P_MID, P_LOW, P_LARGE, P_MEDIUM, P_SMALL };
enum { STAT_LARGE = STAT_POLICY, STAT_MEDIUM, STAT_SMALL };

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(multilevel_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	return decide(UVM_BPF_ACTION_ENTER_LOOP, 0);
}

SEC("struct_ops/uvm_prefetch_on_tree_iter")
int BPF_PROG(multilevel_on_tree_iter, uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *current_region, unsigned int counter,
	     uvm_va_block_region_t *prefetch_region)
{
	__u64 pages = current_region->outer - current_region->first;
	__u32 band;

	if (occupied(counter, current_region, param(P_HIGH, 90)) &&
	    pages <= param(P_LARGE, 512))
		band = STAT_LARGE;
	else if (occupied(counter, current_region, param(P_MID, 60)) &&
		 pages <= param(P_MEDIUM, 128))
		band = STAT_MEDIUM;
	else if (occupied(counter, current_region, param(P_LOW, 30)) &&
		 pages <= param(P_SMALL, 32))
		band = STAT_SMALL;
	else
		return 0;
	stat_add(band, 1);
	bpf_uvm_set_va_block_region(prefetch_region, current_region->first,
				    current_region->outer);
	return 1;
}

SEC(".struct_ops.link")
struct uvm_gpu_ext multilevel = {
	.uvm_prefetch_before_compute = (void *)multilevel_before_compute,
	.uvm_prefetch_on_tree_iter = (void *)multilevel_on_tree_iter,
};
