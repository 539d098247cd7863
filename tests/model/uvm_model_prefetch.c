// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_model_prefetch.c - the tree prefetcher of uvm_perf_prefetch.c: bitmap
 * tree over resident | faulted pages, fault granularity grown to 64 KiB big
 * pages unless thrashing, compute_prefetch_region() with the occupancy
 * threshold and the clamp to max_prefetch_region, with the BPF hooks where
 * the kernel patch puts them; and its decision-cost bench.
 */
#include <linux/bitmap.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/sched.h>

#include "uvm_model.h"

/* Range of leaves under the node of level_idx that covers leaf. */
static uvm_va_block_region_t tree_range(const uvm_perf_prefetch_bitmap_tree_t *tree,
					int level_idx, uvm_page_index_t leaf)
{
	unsigned int leaves = 1u << ((tree->level_count - 1) - level_idx);
	unsigned int start = leaf & ~(leaves - 1);
	unsigned int end = min_t(unsigned int, start + leaves, tree->leaf_count);

	return uvm_va_block_region(start, end);
}

static uvm_va_block_region_t compute_prefetch_region(uvm_page_index_t page_index,
						     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
						     uvm_va_block_region_t max_prefetch_region)
{
	uvm_va_block_region_t prefetch_region = uvm_va_block_region(0, 0);
	uvm_page_index_t leaf = page_index - max_prefetch_region.first + bitmap_tree->offset;
	int action = UVM_BPF_ACTION_DEFAULT;
	int level;

	model.stats.decisions++;
	if (uvm_bpf_prefetch_attached()) {
		action = uvm_bpf_call_before_compute_prefetch(page_index, bitmap_tree,
							      &max_prefetch_region,
							      &prefetch_region);
		if (action == UVM_BPF_ACTION_BYPASS)
			model.stats.act_bypass++;
		else if (action == UVM_BPF_ACTION_ENTER_LOOP)
			model.stats.act_enter_loop++;
		else
			model.stats.act_default++;
	} else {
		model.stats.decisions_native++;
	}

	if (action != UVM_BPF_ACTION_BYPASS) {
		for (level = bitmap_tree->level_count - 1; level >= 0; level--) {
			uvm_va_block_region_t subregion = tree_range(bitmap_tree, level, leaf);
			NvU16 counter = mask_region_weight(&bitmap_tree->pages, subregion);

			if (action == UVM_BPF_ACTION_ENTER_LOOP) {
				model.stats.tree_iters++;
				uvm_bpf_call_on_tree_iter(bitmap_tree, &max_prefetch_region,
							  &subregion, counter,
							  &prefetch_region);
			} else if (counter * 100 > region_pages(subregion) * model.cfg.threshold) {
				prefetch_region = subregion;
			}
		}
	}

	/* Clamp to the pages of the block, as the driver does. */
	if (prefetch_region.outer) {
		prefetch_region.first += max_prefetch_region.first;
		if (prefetch_region.first < bitmap_tree->offset) {
			prefetch_region.first = bitmap_tree->offset;
		} else {
			prefetch_region.first -= bitmap_tree->offset;
			if (prefetch_region.first < max_prefetch_region.first)
				prefetch_region.first = max_prefetch_region.first;
		}

		prefetch_region.outer += max_prefetch_region.first;
		if (prefetch_region.outer < bitmap_tree->offset) {
			prefetch_region.outer = bitmap_tree->offset;
		} else {
			prefetch_region.outer -= bitmap_tree->offset;
			if (prefetch_region.outer > max_prefetch_region.outer)
				prefetch_region.outer = max_prefetch_region.outer;
		}
		/* A policy's region can lie wholly outside: then nothing. */
		if (prefetch_region.first >= prefetch_region.outer)
			prefetch_region = uvm_va_block_region(0, 0);
	}

	return prefetch_region;
}

static void tree_init(uvm_perf_prefetch_bitmap_tree_t *tree, uvm_va_block_t *blk,
		      uvm_va_block_region_t max_region)
{
	bitmap_or(tree->pages.bitmap, blk->resident.bitmap, blk->faulted.bitmap, PAGES);
	tree->offset = 0;
	tree->leaf_count = region_pages(max_region);
	tree->level_count = ilog2(roundup_pow_of_two(tree->leaf_count)) + 1;
}

/* Assume big pages: count whole 64 KiB pages with a fault and no thrashing. */
static void grow_fault_granularity(uvm_perf_prefetch_bitmap_tree_t *tree,
				   uvm_va_block_t *blk)
{
	unsigned int step = model.cfg.big_page_pages, p;

	if (!step)
		return;
	for (p = 0; p < PAGES; p += step) {
		uvm_va_block_region_t r = uvm_va_block_region(p, min_t(unsigned int, p + step, PAGES));

		if (mask_region_weight(&blk->faulted, r) &&
		    !mask_region_weight(&blk->thrashing, r))
			bitmap_set(tree->pages.bitmap, r.first, region_pages(r));
	}
}

/*
 * As in the driver: the block's thrashing pages, or NULL when it has none.
 * Policies trace it (fexit) to learn which blocks thrash.
 */
noinline const uvm_page_mask_t *uvm_perf_thrashing_get_thrashing_pages(uvm_va_block_t *va_block)
{
	return bitmap_empty(va_block->thrashing.bitmap, PAGES) ? NULL : &va_block->thrashing;
}

/*
 * Same name and first argument as the driver's, so that tracing programs
 * (fentry) can learn which block a decision is for.
 */
noinline void uvm_perf_prefetch_get_hint_va_block(uvm_va_block_t *va_block,
						  uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
						  uvm_page_mask_t *prefetch_pages)
{
	uvm_va_block_region_t max_region = uvm_va_block_region(0, PAGES);
	const uvm_page_mask_t *thrashing;
	uvm_page_mask_t faulted;
	unsigned int page;

	bitmap_zero(prefetch_pages->bitmap, PAGES);
	if (!model.cfg.prefetch)
		return;
	thrashing = uvm_perf_thrashing_get_thrashing_pages(va_block);

	tree_init(bitmap_tree, va_block, max_region);
	grow_fault_granularity(bitmap_tree, va_block);

	/* Faults on thrashing pages do not compute prefetch regions. */
	if (thrashing)
		bitmap_andnot(faulted.bitmap, va_block->faulted.bitmap,
			      thrashing->bitmap, PAGES);
	else
		bitmap_copy(faulted.bitmap, va_block->faulted.bitmap, PAGES);
	for_each_set_bit(page, faulted.bitmap, PAGES) {
		uvm_va_block_region_t r = compute_prefetch_region(page, bitmap_tree, max_region);

		if (region_pages(r))
			bitmap_set(prefetch_pages->bitmap, r.first, region_pages(r));
		if (r.outer == max_region.outer)
			break;
	}

	bitmap_andnot(prefetch_pages->bitmap, prefetch_pages->bitmap,
		      va_block->faulted.bitmap, PAGES);
	if (thrashing)
		bitmap_andnot(prefetch_pages->bitmap, prefetch_pages->bitmap,
			      thrashing->bitmap, PAGES);
}

/* Decision cost: the same compute_prefetch_region on a half-full block. */
void uvm_model_bench(struct uvm_model_bench *b)
{
	uvm_perf_prefetch_bitmap_tree_t tree;
	uvm_va_block_region_t max_region = uvm_va_block_region(0, PAGES);
	struct uvm_model_stats saved = model.stats;
	NvU64 i, t0;
	unsigned int sink = 0;

	bitmap_zero(tree.pages.bitmap, PAGES);
	for (i = 0; i < PAGES; i += 3)
		set_bit(i, tree.pages.bitmap);
	tree.offset = 0;
	tree.leaf_count = PAGES;
	tree.level_count = ilog2(PAGES) + 1;

	/* Timed in slices of 4096 decisions, rescheduling between slices. */
	b->ns = 0;
	for (i = 0; i < b->iterations;) {
		NvU64 end = min_t(NvU64, i + 4096, b->iterations);

		t0 = ktime_get_ns();
		for (; i < end; i++) {
			uvm_va_block_region_t r = compute_prefetch_region(i % PAGES, &tree, max_region);

			sink += r.outer;
		}
		b->ns += ktime_get_ns() - t0;
		cond_resched();
	}
	b->act_default = model.stats.act_default - saved.act_default;
	b->act_bypass = model.stats.act_bypass - saved.act_bypass;
	b->act_enter_loop = model.stats.act_enter_loop - saved.act_enter_loop;
	model.stats = saved;
	barrier_data(&sink);
}
