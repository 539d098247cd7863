// SPDX-License-Identifier: GPL-2.0
/*
 * thrashing: the driver's default prefetching, except in VA blocks where
 * the driver has detected thrashing within the last hold_ms: there prefetch
 * nothing, so that pages bouncing between processors are not dragged along.
 *
 * The driver asks uvm_perf_thrashing_get_thrashing_pages(va_block) while it
 * computes a block's prefetch hint; a non-NULL answer means the block has
 * thrashing pages.  An fexit program records such blocks.
 */
#include "prefetch_common.bpf.h"
#include "prefetch.h"
#include "prefetch_block.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* VA block start */
	__type(value, __u64);	/* last time thrashing was seen (ns) */
} thrashing_blocks SEC(".maps");

SEC("fexit/uvm_perf_thrashing_get_thrashing_pages")
int BPF_PROG(note_thrashing, struct uvm_va_block_struct *va_block, void *ret)
{
	__u64 start = va_block->start, now = bpf_ktime_get_ns();

	if (!ret)
		return 0;
	if (!bpf_map_lookup_elem(&thrashing_blocks, &start))
		stat_add(PF_THRASHING_STAT_FLAGGED, 1);
	bpf_map_update_elem(&thrashing_blocks, &start, &now, BPF_ANY);
	return 0;
}

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(thrashing_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	__u64 block = current_block(), *seen;

	seen = bpf_map_lookup_elem(&thrashing_blocks, &block);
	if (!seen || bpf_ktime_get_ns() - *seen > param(PF_THRASHING_HOLD_MS) * 1000000ULL)
		return decide(UVM_BPF_ACTION_DEFAULT, 0);
	stat_add(PF_THRASHING_STAT_SUPPRESSED, 1);
	bpf_uvm_set_va_block_region(result_region, 0, 0);
	return decide(UVM_BPF_ACTION_BYPASS, 0);
}

SEC(".struct_ops.link")
struct uvm_gpu_ext thrashing = {
	.uvm_prefetch_before_compute = (void *)thrashing_before_compute,
};
