// SPDX-License-Identifier: GPL-2.0
/*
 * stride: per VA block, remember the last faulting page and the distance
 * to the one before.  After `confidence` faults at the same distance,
 * prefetch the next `degree` strides (one region, at most max_pages),
 * bypassing the tree; otherwise, and for strides shorter than a big page,
 * leave the decision to the driver.  With `budget` (the default) the degree
 * shrinks so that no more pages move per access than the driver's default
 * would move (a 64 KiB big page).
 */
#include "prefetch_common.bpf.h"
#include "prefetch.h"
#include "prefetch_block.bpf.h"

#define BIG_PAGE 16	/* 4 KiB pages in the driver's 64 KiB big page */

struct history {
	__s32 last;
	__s32 stride;
	__u32 repeats;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* VA block start */
	__type(value, struct history);
} history SEC(".maps");

/* delta is 1 to n strides, in the stride's direction (no signed division in BPF). */
static __always_inline int same_stride(__s32 delta, __s32 stride, __u64 n)
{
	__u32 d = delta > 0 ? delta : -delta, s = stride > 0 ? stride : -stride;

	if (!stride || (delta > 0) != (stride > 0))
		return 0;
	return d % s == 0 && d / s <= n;
}

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(stride_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	__u64 block = current_block();
	__s64 first, outer, span, degree = param(PF_STRIDE_DEGREE);
	struct history *h, fresh = { .last = page_index };
	__s32 delta;

	if (block == NO_BLOCK)
		return decide(UVM_BPF_ACTION_DEFAULT, 0);
	h = bpf_map_lookup_elem(&history, &block);
	if (!h) {
		bpf_map_update_elem(&history, &block, &fresh, BPF_ANY);
		return decide(UVM_BPF_ACTION_DEFAULT, 0);
	}
	delta = (__s32)page_index - h->last;
	if (delta == 0)
		return decide(UVM_BPF_ACTION_DEFAULT, 0);
	/*
	 * After a prefetch of degree strides the next fault is degree + 1
	 * strides away: that confirms the stride too.
	 */
	if (same_stride(delta, h->stride, degree + 1)) {
		h->repeats++;
		delta = h->stride;
	} else {
		h->stride = delta;
		h->repeats = 1;
	}
	h->last = page_index;
	/* Strides within a 64 KiB big page: the driver's growth covers them. */
	if (h->repeats < param(PF_STRIDE_CONFIDENCE) || (delta < BIG_PAGE && delta > -BIG_PAGE))
		return decide(UVM_BPF_ACTION_DEFAULT, 0);

	/*
	 * The next degree strides, in the stride's direction.  Under the page
	 * budget, no more strides than keep the pages migrated per access
	 * within the default's 64 KiB big page: (d - 1) * S + 2 <= 16 (d + 1).
	 */
	if (param(PF_STRIDE_BUDGET)) {
		__u32 s = delta > 0 ? delta : -delta;

		if (s > BIG_PAGE && (s + BIG_PAGE - 2) / (s - BIG_PAGE) < degree)
			degree = (s + BIG_PAGE - 2) / (s - BIG_PAGE);
	}
	span = (__s64)delta * degree;
	if (delta > 0) {
		first = page_index + delta;
		outer = page_index + span + 1;
	} else {
		first = page_index + span;
		outer = page_index + delta + 1;
	}
	if (first < max_prefetch_region->first)
		first = max_prefetch_region->first;
	if (outer > max_prefetch_region->outer)
		outer = max_prefetch_region->outer;
	span = param(PF_STRIDE_MAX_PAGES);
	if (outer - first > span) {
		if (delta > 0)
			outer = first + span;
		else
			first = outer - span;
	}
	if (first >= outer)
		first = outer = 0;
	stat_add(PF_STRIDE_STAT_DECISIONS, 1);
	bpf_uvm_set_va_block_region(result_region, first, outer);
	return decide(UVM_BPF_ACTION_BYPASS, outer - first);
}

SEC(".struct_ops.link")
struct uvm_gpu_ext stride = {
	.uvm_prefetch_before_compute = (void *)stride_before_compute,
};
