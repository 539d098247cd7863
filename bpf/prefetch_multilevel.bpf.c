// SPDX-License-Identifier: GPL-2.0
/*
 * multilevel: walk the tree; the occupancy band of each subregion decides
 * how large a region it may grant: above `high` % any size (up to
 * large_pages), above `mid` % up to medium_pages, above `low` % up to
 * small_pages.  The largest granted subregion wins, as in the driver.
 */
#include "prefetch_common.bpf.h"
#include "prefetch.h"

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

	if (occupied(counter, current_region, param(PF_MULTILEVEL_HIGH)) &&
	    pages <= param(PF_MULTILEVEL_LARGE_PAGES))
		band = PF_MULTILEVEL_STAT_LARGE;
	else if (occupied(counter, current_region, param(PF_MULTILEVEL_MID)) &&
		 pages <= param(PF_MULTILEVEL_MEDIUM_PAGES))
		band = PF_MULTILEVEL_STAT_MEDIUM;
	else if (occupied(counter, current_region, param(PF_MULTILEVEL_LOW)) &&
		 pages <= param(PF_MULTILEVEL_SMALL_PAGES))
		band = PF_MULTILEVEL_STAT_SMALL;
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
