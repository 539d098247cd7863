// SPDX-License-Identifier: GPL-2.0
/*
 * probabilistic: walk the tree and grant each subregion with a probability
 * that grows with its occupancy, the block's estimated prefetch hit rate and
 * the aggressiveness parameter (100 = neutral, 0 = never, 200 = double).
 *
 * Hit rate, per VA block, as an EWMA in percent: a fault just past the end
 * of the block's last prefetched region (within `window` pages) means that
 * region was used up (a hit); a fault elsewhere means it was not.
 */
#include "prefetch_common.bpf.h"
#include "prefetch.h"
#include "prefetch_block.bpf.h"

struct block_state {
	__u32 hit_rate;		/* percent, EWMA */
	__u16 last_outer;	/* end of the last region granted */
	__u16 granted;		/* a region was granted since the last fault */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct block_state);
} blocks SEC(".maps");

/* Decision-local: the block being decided, per CPU (the walk is not preempted). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} deciding SEC(".maps");

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(probabilistic_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	struct block_state *b, fresh = { .hit_rate = 50 };
	__u64 block = current_block(), *d;
	__u32 zero = 0, sample;

	d = bpf_map_lookup_elem(&deciding, &zero);
	if (d)
		*d = block;
	b = bpf_map_lookup_elem(&blocks, &block);
	if (!b) {
		bpf_map_update_elem(&blocks, &block, &fresh, BPF_ANY);
		return decide(UVM_BPF_ACTION_ENTER_LOOP, 0);
	}
	if (b->granted) {
		sample = page_index >= b->last_outer &&
			 page_index < b->last_outer + param(PF_PROBABILISTIC_WINDOW) ? 100 : 0;
		b->hit_rate = (b->hit_rate * 7 + sample) / 8;
		b->granted = 0;
	}
	return decide(UVM_BPF_ACTION_ENTER_LOOP, 0);
}

SEC("struct_ops/uvm_prefetch_on_tree_iter")
int BPF_PROG(probabilistic_on_tree_iter, uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *current_region, unsigned int counter,
	     uvm_va_block_region_t *prefetch_region)
{
	__u64 pages = current_region->outer - current_region->first, p, *d;
	struct block_state *b = NULL;
	__u32 zero = 0, hit_rate = 50;

	if (!pages || counter * 2 <= pages)	/* never below half occupancy */
		return 0;
	d = bpf_map_lookup_elem(&deciding, &zero);
	if (d)
		b = bpf_map_lookup_elem(&blocks, d);
	if (b)
		hit_rate = b->hit_rate;
	/* occupancy % x (0.5 + hit rate) x aggressiveness / 100 */
	p = (__u64)counter * 100 / pages;
	p = p * (50 + hit_rate) / 100 * param(PF_PROBABILISTIC_AGGRESSIVENESS) / 100;
	if (bpf_get_prandom_u32() % 100 >= p) {
		stat_add(PF_PROBABILISTIC_STAT_DENIED, 1);
		return 0;
	}
	stat_add(PF_PROBABILISTIC_STAT_GRANTED, 1);
	if (b) {
		b->last_outer = current_region->outer;
		b->granted = 1;
	}
	bpf_uvm_set_va_block_region(prefetch_region, current_region->first,
				    current_region->outer);
	return 1;
}

SEC(".struct_ops.link")
struct uvm_gpu_ext probabilistic = {
	.uvm_prefetch_before_compute = (void *)probabilistic_before_compute,
	.uvm_prefetch_on_tree_iter = (void *)probabilistic_on_tree_iter,
};
