// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_model.c - a small, faithful model of nvidia-uvm's fault path, for the
 * gpuctl test VM.
 *
 * It registers the real struct_ops types and kfuncs (uvm_bpf_ext.c, the
 * very file the kernel patch adds to the driver) and drives them the way
 * the driver does:
 *   - a managed range of 2 MiB VA blocks of 512 x 4 KiB pages, data on the
 *     CPU until a GPU fault migrates it;
 *   - faults gathered into batches of batch_size fault buffer entries,
 *     duplicates coalesced, serviced block by block, then a replay decision
 *     (uvm_perf_fault_replay_policy, or BPF under policy 4);
 *   - the tree prefetcher of uvm_perf_prefetch.c (uvm_model_prefetch.c);
 *   - GPU memory of gpu_chunks 2 MiB root chunks on used/unused lists,
 *     eviction from the head of the used list, re-faults after eviction,
 *     with the eviction hooks.
 * User space (tests/model/uvmsim) feeds accesses and reads counters
 * through /dev/nvidia-uvm, alias /dev/uvm_model (uvm_model_uapi.h), which
 * also serves the 580 driver's user ABI (uvm_model_uvmdev.c); the tools
 * device reports the model's faults and migrations (uvm_model_tools.c).
 * The files and their calls: uvm_model.h.
 */
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "uvm_model.h"
#include "uvm_model_rm.h"
#include "uvm_model_events.h"

#define THRASHING_EVICTIONS 2	/* block evictions before re-faults thrash */

struct uvm_model model;

/*
 * The driver's replay policy parameter, same name and values: 0 BLOCK,
 * 1 BATCH, 2 BATCH_FLUSH (default), 3 ONCE, 4 EBPF (decide_replay).  The
 * driver reads it at load (S_IRUGO); the model also lets tests write it
 * in /sys/module/uvm_model/parameters/, and uvmsim reset sets it.
 */
static unsigned int uvm_perf_fault_replay_policy = UVM_MODEL_REPLAY_BATCH_FLUSH;

static int replay_policy_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v > UVM_MODEL_REPLAY_EBPF)
		return -EINVAL;
	WRITE_ONCE(uvm_perf_fault_replay_policy, v);
	return 0;
}

static const struct kernel_param_ops replay_policy_ops = {
	.set = replay_policy_set,
	.get = param_get_uint,
};
module_param_cb(uvm_perf_fault_replay_policy, &replay_policy_ops,
		&uvm_perf_fault_replay_policy, 0644);
MODULE_PARM_DESC(uvm_perf_fault_replay_policy,
		 "Replay policy: 0 block, 1 batch, 2 batch+flush (default), 3 once, 4 eBPF");

static const struct uvm_model_config default_config = {
	.va_blocks = 512,
	.gpu_chunks = 0,
	.batch_size = 256,
	.replay_policy = UVM_MODEL_REPLAY_KEEP,
	.threshold = 51,
	.big_page_pages = 16,
	.prefetch = 1,
};

/* --- GPU memory: root chunks, used list, eviction (uvm_pmm_gpu.c) ----- */

static void chunk_info(uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info)
{
	uvm_va_block_t *blk = chunk->va_block;

	info->chunk_addr = chunk->address;
	info->va_block_start = blk ? blk->start : 0;
	info->owner_pid = blk ? model.pid[blk->tenant] : 0;
	info->gpu_index = 0;
}

int uvm_pmm_bpf_chunk_move(uvm_gpu_chunk_t *chunk, struct list_head *used_list,
			   bool to_head)
{
	if (used_list != &model.used || !chunk->va_block || list_empty(&chunk->list))
		return -EINVAL;
	if (to_head)
		list_move(&chunk->list, &model.used);
	else
		list_move_tail(&chunk->list, &model.used);
	return 0;
}

static void evict_chunk(uvm_gpu_chunk_t *chunk)
{
	uvm_va_block_t *blk = chunk->va_block;
	struct uvm_evict_chunk_info info;

	chunk_info(chunk, &info);
	if (uvm_bpf_evict_attached())
		uvm_bpf_call_chunk_release(chunk, &info);

	uvm_model_ev_evict(chunk, blk->start, (NvU64)mask_weight(&blk->resident) << UVM_MODEL_PAGE_SHIFT);
	model.stats.evictions++;
	model.stats.pages_evicted += mask_weight(&blk->resident);
	model.stats.tenant[blk->tenant].chunks_evicted++;
	bitmap_or(blk->evicted.bitmap, blk->evicted.bitmap, blk->resident.bitmap, PAGES);
	bitmap_zero(blk->resident.bitmap, PAGES);
	bitmap_zero(blk->prefetched.bitmap, PAGES);
	blk->evictions++;
	blk->chunk = NULL;
	chunk->va_block = NULL;
	list_move_tail(&chunk->list, &model.unused);
}

/* The victim is the head of the used list; the policy may reorder first. */
static uvm_gpu_chunk_t *evict_pick(void)
{
	struct uvm_evict_chunk_info info;
	uvm_gpu_chunk_t *cand;
	int skips;

	for (skips = 0;; skips++) {
		cand = list_first_entry(&model.used, uvm_gpu_chunk_t, list);
		if (skips == UVM_BPF_EVICT_MAX_SKIPS || !uvm_bpf_evict_attached())
			break;
		chunk_info(cand, &info);
		uvm_bpf_call_evict_prepare(cand, &info, &model.used);
		if (list_first_entry(&model.used, uvm_gpu_chunk_t, list) == cand)
			break;
	}
	return cand;
}

static void evict_one(void)
{
	evict_chunk(evict_pick());
}

static void block_get_chunk(uvm_va_block_t *blk)
{
	struct uvm_evict_chunk_info info;
	uvm_gpu_chunk_t *chunk;

	if (blk->chunk || !model.chunks)
		return;
	if (list_empty(&model.unused))
		evict_one();
	chunk = list_first_entry(&model.unused, uvm_gpu_chunk_t, list);
	chunk->va_block = blk;
	blk->chunk = chunk;
	list_move_tail(&chunk->list, &model.used);
	model.stats.chunks_used++;
	if (uvm_bpf_evict_attached()) {
		chunk_info(chunk, &info);
		uvm_bpf_call_chunk_activate(chunk, &info, &model.used);
	}
}

static void block_chunk_used(uvm_va_block_t *blk)
{
	struct uvm_evict_chunk_info info;

	if (!blk->chunk)
		return;
	if (uvm_bpf_evict_attached()) {
		chunk_info(blk->chunk, &info);
		if (uvm_bpf_call_chunk_used(blk->chunk, &info, &model.used) ==
		    UVM_BPF_EVICT_HANDLED)
			return;
	}
	list_move_tail(&blk->chunk->list, &model.used);
}

/* --- UVM_MIGRATE (uvm_migrate.c): whole pages, block by block ---------- */

static void block_free_chunk(uvm_va_block_t *blk)
{
	uvm_gpu_chunk_t *chunk = blk->chunk;
	struct uvm_evict_chunk_info info;

	if (!chunk)
		return;
	if (uvm_bpf_evict_attached()) {
		chunk_info(chunk, &info);
		uvm_bpf_call_chunk_release(chunk, &info);
	}
	blk->chunk = NULL;
	chunk->va_block = NULL;
	list_move_tail(&chunk->list, &model.unused);
}

/* Pages [first, outer) of blk to the GPU or back to the CPU. */
static void migrate_block(uvm_va_block_t *blk, unsigned int first, unsigned int outer,
			  bool to_gpu, unsigned int gpu)
{
	uvm_page_mask_t m;
	unsigned int n;

	bitmap_zero(m.bitmap, PAGES);
	bitmap_set(m.bitmap, first, outer - first);
	/* resident on another GPU: all of it moves (the block follows its last GPU) */
	if (to_gpu && blk->gpu != gpu && !bitmap_empty(blk->resident.bitmap, PAGES))
		blk->gpu = gpu;
	else if (to_gpu)
		bitmap_andnot(m.bitmap, m.bitmap, blk->resident.bitmap, PAGES);
	else
		bitmap_and(m.bitmap, m.bitmap, blk->resident.bitmap, PAGES);
	n = mask_weight(&m);
	if (!n)
		return;
	if (to_gpu) {
		block_get_chunk(blk);
		bitmap_or(blk->resident.bitmap, blk->resident.bitmap, m.bitmap, PAGES);
		bitmap_andnot(blk->evicted.bitmap, blk->evicted.bitmap, m.bitmap, PAGES);
		bitmap_andnot(blk->remote_mapped.bitmap, blk->remote_mapped.bitmap, m.bitmap, PAGES);
		model.stats.pages_migrated_user += n;
		blk->gpu = gpu;
		if (gpu < 4)
			model.stats.pages_migrated_user_gpu[gpu] += n;
		model.pages_migrated_total += n;
		block_chunk_used(blk);
	} else {
		bitmap_andnot(blk->resident.bitmap, blk->resident.bitmap, m.bitmap, PAGES);
		model.stats.pages_migrated_to_cpu += n;
		if (bitmap_empty(blk->resident.bitmap, PAGES))
			block_free_chunk(blk);
	}
	bitmap_andnot(blk->prefetched.bitmap, blk->prefetched.bitmap, m.bitmap, PAGES);
	uvm_model_ev_migrate_user(blk->start + ((NvU64)find_first_bit(m.bitmap, PAGES) <<
						UVM_MODEL_PAGE_SHIFT),
				  (NvU64)n << UVM_MODEL_PAGE_SHIFT, to_gpu);
}

void uvm_model_migrate_pages(NvU64 first, NvU64 n, bool to_gpu, unsigned int gpu)
{
	NvU64 p = first, end = first + n;

	model.stats.user_migrations++;
	while (p < end) {
		NvU64 b = p / PAGES;
		unsigned int outer = min_t(NvU64, PAGES, end - b * PAGES);

		migrate_block(&model.blocks[b], p % PAGES, outer, to_gpu, gpu);
		p = (b + 1) * PAGES;
		cond_resched();
	}
}

/* --- fault batches and replays (uvm_gpu_replayable_faults.c) ---------- */

/*
 * Pages whose preferred location is the CPU stay there: the GPU's fault
 * maps them remotely (uvm_va_block_select_residency), and they are not
 * prefetched.  Takes them out of fresh and prefetch; how many of fresh.
 */
static unsigned int map_remote(uvm_va_block_t *blk, uvm_page_mask_t *fresh,
			       uvm_page_mask_t *prefetch)
{
	uvm_page_mask_t r;
	unsigned int n;

	if (!bitmap_and(r.bitmap, fresh->bitmap, blk->preferred_cpu.bitmap, PAGES)) {
		bitmap_andnot(prefetch->bitmap, prefetch->bitmap, blk->preferred_cpu.bitmap, PAGES);
		return 0;
	}
	n = mask_weight(&r);
	bitmap_or(blk->remote_mapped.bitmap, blk->remote_mapped.bitmap, r.bitmap, PAGES);
	bitmap_andnot(fresh->bitmap, fresh->bitmap, r.bitmap, PAGES);
	bitmap_andnot(prefetch->bitmap, prefetch->bitmap, blk->preferred_cpu.bitmap, PAGES);
	model.stats.pages_mapped_remote += n;
	return n;
}

static void service_block(uvm_va_block_t *blk)
{
	uvm_perf_prefetch_bitmap_tree_t tree;
	uvm_page_mask_t prefetch, fresh;
	unsigned int n;

	block_get_chunk(blk);
	uvm_perf_prefetch_get_hint_va_block(blk, &tree, &prefetch);

	bitmap_andnot(fresh.bitmap, blk->faulted.bitmap, blk->resident.bitmap, PAGES);
	n = mask_weight(&fresh);
	model.stats.faults += n;
	model.stats.tenant[blk->tenant].faults += n;
	n -= map_remote(blk, &fresh, &prefetch);
	model.stats.pages_migrated += n;
	model.batch_migrated += n;
	if (n)
		uvm_model_ev_migrate(blk->start + ((NvU64)find_first_bit(fresh.bitmap, PAGES) << UVM_MODEL_PAGE_SHIFT), (NvU64)n << UVM_MODEL_PAGE_SHIFT, false);

	bitmap_andnot(prefetch.bitmap, prefetch.bitmap, blk->resident.bitmap, PAGES);
	model.pages_migrated_total += n;
	n = mask_weight(&prefetch);
	model.pages_migrated_total += n;
	model.stats.pages_prefetched += n;
	if (n)
		uvm_model_ev_migrate(blk->start + ((NvU64)find_first_bit(prefetch.bitmap, PAGES) << UVM_MODEL_PAGE_SHIFT), (NvU64)n << UVM_MODEL_PAGE_SHIFT, true);
	model.stats.pages_migrated += n;
	model.batch_migrated += n;

	bitmap_or(blk->prefetched.bitmap, blk->prefetched.bitmap, prefetch.bitmap, PAGES);
	bitmap_or(blk->resident.bitmap, blk->resident.bitmap, fresh.bitmap, PAGES);
	bitmap_or(blk->resident.bitmap, blk->resident.bitmap, prefetch.bitmap, PAGES);
	bitmap_zero(blk->faulted.bitmap, PAGES);
	blk->in_batch = false;
	block_chunk_used(blk);
}

static void replay(void)
{
	uvm_model_ev_replay(model.stats.batches);
	model.stats.replays++;
	model.batches_since_replay = 0;
}

/* Whether the batch info describes ends with a replay, under policy. */
static bool replay_decide(struct uvm_fault_batch_info *info, unsigned int policy)
{
	int decision = UVM_BPF_REPLAY_DEFAULT;

	if (policy == UVM_MODEL_REPLAY_EBPF && uvm_bpf_replay_attached()) {
		model.stats.replay_bpf_calls++;
		decision = uvm_bpf_call_decide_replay(info, policy);
	}
	if (decision != UVM_BPF_REPLAY_DEFAULT)
		return decision == UVM_BPF_REPLAY_NOW;
	switch (policy) {
	case UVM_MODEL_REPLAY_BATCH:
	case UVM_MODEL_REPLAY_BATCH_FLUSH:
	case UVM_MODEL_REPLAY_EBPF:	/* nothing attached: BATCH */
		return true;
	default:	/* BLOCK replayed per block; ONCE when drained */
		return false;
	}
}

static unsigned int service_policy;

static void service_batch_blocks(void)
{
	NvU32 i;

	for (i = 0; i < model.batch_nblocks; i++) {
		service_block(&model.blocks[model.batch_blocks[i]]);
		if (service_policy == UVM_MODEL_REPLAY_BLOCK)
			replay();
	}
}

/* Services the pending batch; drained: the fault buffer is now empty. */
static void service_batch(NvU32 pending)
{
	unsigned int policy = READ_ONCE(uvm_perf_fault_replay_policy);
	struct uvm_fault_batch_info info;

	if (!model.batch_entries) {
		/* Nothing new, but deferred batches wait on a drained buffer. */
		if (!pending && model.batches_since_replay)
			replay();
		return;
	}

	model.batch_migrated = 0;
	service_policy = policy;	/* the blocks are serviced inside service_fault_batch() */
	uvm_model_ev_service_batch(model.stats.batches + 1, model.batch_entries, model.batch_duplicates, service_batch_blocks);

	model.stats.batches++;
	model.batches_since_replay++;
	info = (struct uvm_fault_batch_info){
		.batch_id = model.stats.batches,
		.num_faults = model.batch_entries,
		.num_duplicates = model.batch_duplicates,
		.num_throttled = model.batch_throttled,
		.num_pages_migrated = model.batch_migrated,
		.batches_since_replay = model.batches_since_replay,
		.fault_buffer_pending = pending,
	};
	model.batch_nblocks = 0;
	model.batch_entries = 0;
	model.batch_duplicates = 0;
	model.batch_throttled = 0;

	if (replay_decide(&info, policy))
		replay();
	/* The GPU must not wait forever: a drained buffer always replays. */
	if (!pending && model.batches_since_replay)
		replay();
	if (model.batches_since_replay && policy != UVM_MODEL_REPLAY_BLOCK)
		model.stats.batches_deferred++;
}

static void thrashing_detected(uvm_va_block_t *blk, unsigned int page)
{
	if (!test_and_set_bit(page, blk->thrashing.bitmap)) {
		model.stats.thrashing_pages++;
		uvm_model_ev_thrashing(blk->start + ((NvU64)page << UVM_MODEL_PAGE_SHIFT),
				       UVM_PAGE_SIZE_4K);
	}
}

/* A CPU access (UVM_MODEL_ACCESS_CPU): a fault when the GPU holds the page. */
static void cpu_access(const struct uvm_model_access *a)
{
	uvm_va_block_t *blk = &model.blocks[a->addr >> UVM_MODEL_BLOCK_SHIFT];
	unsigned int page = (a->addr >> UVM_MODEL_PAGE_SHIFT) & (PAGES - 1);

	if (!test_bit(page, blk->resident.bitmap))
		return;
	model.stats.cpu_faults++;
	uvm_model_ev_cpu_fault(a->addr, (a->type & 0xff) == UVM_MODEL_ACCESS_WRITE);
	migrate_block(blk, 0, PAGES, false, blk->gpu);
}

static void access_one(const struct uvm_model_access *a, NvU32 pending)
{
	NvU64 block = a->addr >> UVM_MODEL_BLOCK_SHIFT;
	unsigned int page = (a->addr >> UVM_MODEL_PAGE_SHIFT) & (PAGES - 1);
	uvm_va_block_t *blk = &model.blocks[block];

	if (a->type & UVM_MODEL_ACCESS_CPU) {
		cpu_access(a);
		return;
	}
	model.stats.accesses++;
	if (test_bit(page, blk->resident.bitmap)) {
		if (test_and_clear_bit(page, blk->prefetched.bitmap))
			model.stats.prefetch_hits++;
		return;
	}
	/* Accessed-by the GPU, or mapped where it prefers to stay: no fault. */
	if (test_bit(page, blk->accessed_by.bitmap) || test_bit(page, blk->remote_mapped.bitmap)) {
		model.stats.remote_accesses++;
		return;
	}

	model.stats.fault_entries++;
	model.batch_entries++;
	uvm_model_fault_gpu = min_t(unsigned int, a->type >> UVM_MODEL_ACCESS_GPU_SHIFT,
				    uvm_model_ngpus() - 1);
	uvm_model_ev_fault(a->addr, (a->type & 0xff) == UVM_MODEL_ACCESS_WRITE, test_bit(page, blk->faulted.bitmap), model.stats.batches + 1);
	if (test_bit(page, blk->faulted.bitmap)) {
		model.stats.duplicates++;
		model.batch_duplicates++;
	} else {
		if (!blk->in_batch) {
			blk->in_batch = true;
			if (!blk->chunk)
				blk->tenant = a->tenant;
			model.batch_blocks[model.batch_nblocks++] = block;
		}
		set_bit(page, blk->faulted.bitmap);
		if (test_and_clear_bit(page, blk->evicted.bitmap)) {
			model.stats.refaults++;
			model.stats.tenant[a->tenant].refaults++;
			if (blk->evictions >= THRASHING_EVICTIONS)
				thrashing_detected(blk, page);
		}
		if (test_bit(page, blk->thrashing.bitmap))
			model.batch_throttled++;
	}

	if (model.batch_entries >= model.cfg.batch_size)
		service_batch(pending);
}

/* --- configuration and the device ------------------------------------ */

static void model_free(void)
{
	vfree(model.blocks);
	kfree(model.chunks);
	kfree(model.batch_blocks);
	model.blocks = NULL;
	model.chunks = NULL;
	model.batch_blocks = NULL;
}

static int model_reset(const struct uvm_model_config *cfg)
{
	NvU32 i;

	if (!cfg->va_blocks || cfg->va_blocks > UVM_MODEL_MAX_BLOCKS ||
	    cfg->gpu_chunks > UVM_MODEL_MAX_BLOCKS ||
	    !cfg->batch_size || cfg->batch_size > 65536 ||
	    (cfg->replay_policy > UVM_MODEL_REPLAY_EBPF &&
	     cfg->replay_policy != UVM_MODEL_REPLAY_KEEP) ||
	    cfg->threshold < 1 || cfg->threshold > 100 ||
	    cfg->big_page_pages > PAGES ||
	    (cfg->big_page_pages & (cfg->big_page_pages - 1)) ||
	    cfg->migrate_us > 10000000)
		return -EINVAL;

	/* The chunks go back as when the VA space goes: policies see them go. */
	if (model.chunks && uvm_bpf_evict_attached()) {
		struct uvm_evict_chunk_info info;
		uvm_gpu_chunk_t *chunk;

		list_for_each_entry(chunk, &model.used, list) {
			chunk_info(chunk, &info);
			uvm_bpf_call_chunk_release(chunk, &info);
		}
	}
	model_free();
	memset(&model.stats, 0, sizeof(model.stats));
	model.cfg = *cfg;
	if (cfg->replay_policy != UVM_MODEL_REPLAY_KEEP)
		WRITE_ONCE(uvm_perf_fault_replay_policy, cfg->replay_policy);
	model.cfg.replay_policy = READ_ONCE(uvm_perf_fault_replay_policy);
	model.batch_nblocks = model.batch_entries = 0;
	model.batch_duplicates = model.batch_throttled = 0;
	model.batches_since_replay = 0;
	INIT_LIST_HEAD(&model.used);
	INIT_LIST_HEAD(&model.unused);

	model.blocks = vzalloc(array_size(cfg->va_blocks, sizeof(*model.blocks)));
	model.batch_blocks = kcalloc(cfg->batch_size, sizeof(NvU32), GFP_KERNEL);
	if (cfg->gpu_chunks)
		model.chunks = kcalloc(cfg->gpu_chunks, sizeof(*model.chunks), GFP_KERNEL);
	if (!model.blocks || !model.batch_blocks || (cfg->gpu_chunks && !model.chunks)) {
		model_free();
		return -ENOMEM;
	}
	for (i = 0; i < cfg->va_blocks; i++) {
		model.blocks[i].start = (NvU64)i << UVM_MODEL_BLOCK_SHIFT;
		model.blocks[i].end = model.blocks[i].start + UVM_VA_BLOCK_SIZE - 1;
	}
	for (i = 0; i < cfg->gpu_chunks; i++) {
		model.chunks[i].address = (NvU64)i << UVM_MODEL_BLOCK_SHIFT;
		list_add_tail(&model.chunks[i].list, &model.unused);
	}
	return 0;
}

#define ACCESS_CHUNK 4096

static long model_access(const struct uvm_model_accesses *req)
{
	struct uvm_model_access *buf;
	const struct uvm_model_access __user *src = u64_to_user_ptr(req->ptr);
	NvU32 done = 0, n, i, in_round = 0;
	long ret = 0;

	if (!model.blocks)
		return -ENODEV;
	buf = kvmalloc_array(ACCESS_CHUNK, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	while (done < req->count) {
		n = min_t(NvU32, req->count - done, ACCESS_CHUNK);
		if (copy_from_user(buf, src + done, n * sizeof(*buf))) {
			ret = -EFAULT;
			break;
		}
		for (i = 0; i < n; i++) {
			if ((buf[i].addr >> UVM_MODEL_BLOCK_SHIFT) >= model.cfg.va_blocks ||
			    buf[i].tenant >= UVM_MODEL_MAX_TENANTS) {
				ret = -EINVAL;
				break;
			}
			access_one(&buf[i], req->count - done - i - 1);
			if (req->warps && ++in_round == req->warps) {
				service_batch(req->count - done - i - 1);
				in_round = 0;
			}
		}
		if (ret)
			break;
		done += n;
		cond_resched();
	}
	/* End of the stream: the fault buffer drains. */
	service_batch(0);
	kvfree(buf);
	return ret;
}

static void model_stats(struct uvm_model_stats *out)
{
	NvU32 i;

	*out = model.stats;
	out->chunks_used = 0;
	if (model.chunks)
		for (i = 0; i < model.cfg.gpu_chunks; i++)
			out->chunks_used += model.chunks[i].va_block != NULL;
	for (i = 0; i < UVM_MODEL_MAX_TENANTS; i++)
		out->tenant[i].pid = model.pid[i];
	out->replay_policy = READ_ONCE(uvm_perf_fault_replay_policy);
	out->va_blocks = model.cfg.va_blocks;
	for (i = 0; model.blocks && i < model.cfg.va_blocks; i++) {
		out->pages_accessed_by += mask_weight(&model.blocks[i].accessed_by);
		out->pages_read_dup += mask_weight(&model.blocks[i].read_dup);
		out->pages_preferred_gpu += mask_weight(&model.blocks[i].preferred_gpu);
		out->pages_preferred_cpu += mask_weight(&model.blocks[i].preferred_cpu);
	}
}

/*
 * Hook cost at its call site: the same code the fault path runs, with the
 * attached policy or, with none, the driver's native path.
 */
static long model_hook_bench(struct uvm_model_hook_bench *b)
{
	struct uvm_model_stats saved = model.stats;
	struct uvm_fault_batch_info info = { .num_faults = 256 };
	struct uvm_evict_chunk_info cinfo;
	uvm_gpu_chunk_t *chunk;
	unsigned int sink = 0;
	NvU64 i, t0;

	if (b->hook >= UVM_MODEL_HOOK_MAX || !b->iterations || b->iterations > 100000000ULL)
		return -EINVAL;
	if (b->hook != UVM_MODEL_HOOK_DECIDE_REPLAY &&
	    (!model.chunks || list_empty(&model.used)))
		return -ENODATA;
	switch (b->hook) {
	case UVM_MODEL_HOOK_DECIDE_REPLAY:
		b->attached = uvm_bpf_replay_attached();
		break;
	default:
		b->attached = uvm_bpf_evict_attached();
	}

	t0 = ktime_get_ns();
	for (i = 0; i < b->iterations; i++) {
		switch (b->hook) {
		case UVM_MODEL_HOOK_DECIDE_REPLAY:
			info.batch_id = i;
			info.num_duplicates = i & 63;
			info.batches_since_replay = 1 + (i & 3);
			info.fault_buffer_pending = (i & 7) ? 128 : 0;
			sink += replay_decide(&info, UVM_MODEL_REPLAY_EBPF);
			break;
		case UVM_MODEL_HOOK_CHUNK_USED:
			chunk = list_first_entry(&model.used, uvm_gpu_chunk_t, list);
			block_chunk_used(chunk->va_block);
			break;
		case UVM_MODEL_HOOK_CHUNK_ACTIVATE:
			chunk = list_last_entry(&model.used, uvm_gpu_chunk_t, list);
			if (uvm_bpf_evict_attached()) {
				chunk_info(chunk, &cinfo);
				sink += uvm_bpf_call_chunk_activate(chunk, &cinfo, &model.used);
			}
			break;
		case UVM_MODEL_HOOK_EVICT_PREPARE:
			sink += evict_pick()->address != 0;
			break;
		}
	}
	b->ns = ktime_get_ns() - t0;
	model.stats = saved;
	barrier_data(&sink);
	return 0;
}


/* The model's own ioctls (uvm_model_uapi.h), on /dev/nvidia-uvm or /dev/uvm_model. */
long uvm_model_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	union {
		struct uvm_model_config cfg;
		struct uvm_model_accesses acc;
		struct uvm_model_bench bench;
		struct uvm_model_trigger trig;
		struct uvm_model_tenant tenant;
		struct uvm_model_hook_bench hbench;
	} u;
	struct uvm_model_stats *stats;
	char *buf;
	long ret = 0;

	if (_IOC_SIZE(cmd) > sizeof(u) && cmd != UVM_MODEL_IOC_STATS)
		return -ENOTTY;
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&u, uarg, _IOC_SIZE(cmd)))
		return -EFAULT;

	mutex_lock(&model.lock);
	uvm_model_ev_current(file);
	switch (cmd) {
	case UVM_MODEL_IOC_RESET:
		ret = model_reset(&u.cfg);
		break;
	case UVM_MODEL_IOC_ACCESS:
		ret = model_access(&u.acc);
		break;
	case UVM_MODEL_IOC_STATS:
		stats = kmalloc(sizeof(*stats), GFP_KERNEL);
		if (!stats) {
			ret = -ENOMEM;
			break;
		}
		model_stats(stats);
		if (copy_to_user(uarg, stats, sizeof(*stats)))
			ret = -EFAULT;
		kfree(stats);
		break;
	case UVM_MODEL_IOC_BENCH:
		if (!u.bench.iterations || u.bench.iterations > 100000000ULL) {
			ret = -EINVAL;
			break;
		}
		uvm_model_bench(&u.bench);
		if (copy_to_user(uarg, &u.bench, sizeof(u.bench)))
			ret = -EFAULT;
		break;
	case UVM_MODEL_IOC_TRIGGER:
		if (u.trig.len > 4096) {
			ret = -EINVAL;
			break;
		}
		buf = memdup_user(u64_to_user_ptr(u.trig.ptr), u.trig.len);
		if (IS_ERR(buf)) {
			ret = PTR_ERR(buf);
			break;
		}
		u.trig.ret = uvm_bpf_test_trigger(buf, u.trig.len);
		kfree(buf);
		if (copy_to_user(uarg, &u.trig, sizeof(u.trig)))
			ret = -EFAULT;
		break;
	case UVM_MODEL_IOC_HOOK_BENCH:
		ret = model_hook_bench(&u.hbench);
		if (!ret && copy_to_user(uarg, &u.hbench, sizeof(u.hbench)))
			ret = -EFAULT;
		break;
	case UVM_MODEL_IOC_TENANT:
		if (u.tenant.tenant >= UVM_MODEL_MAX_TENANTS)
			ret = -EINVAL;
		else
			model.pid[u.tenant.tenant] = u.tenant.pid;
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&model.lock);
	return ret;
}

static struct dentry *model_debugfs;

static int __init uvm_model_init(void)
{
	int ret, i;

	mutex_init(&model.lock);
	for (i = 0; i < UVM_MODEL_MAX_TENANTS; i++)
		model.pid[i] = 1000 + i;
	ret = model_reset(&default_config);
	if (ret)
		return ret;
	ret = uvm_bpf_ext_init();
	if (ret)
		pr_warn("uvm_model: running without BPF hooks\n");
	ret = uvm_model_uvmdev_init();	/* /dev/nvidia-uvm, /dev/uvm_model */
	if (ret)
		goto out_free;
	ret = uvm_model_tools_init();	/* /dev/nvidia-uvm-tools */
	if (ret)
		goto out_uvmdev;
	ret = uvm_model_rm_init();	/* /dev/uvm_model_rm (uvm_model_rm.c) */
	if (ret)
		goto out_tools;
	/* The transfer counter the adaptive prefetch loop reads (no NVML here). */
	model_debugfs = debugfs_create_dir("uvm_model", NULL);
	debugfs_create_u64("pages_migrated", 0444, model_debugfs, &model.pages_migrated_total);
	return 0;

out_tools:
	uvm_model_tools_exit();
out_uvmdev:
	uvm_model_uvmdev_exit();
out_free:
	model_free();
	return ret;
}

static void __exit uvm_model_exit(void)
{
	debugfs_remove_recursive(model_debugfs);
	uvm_model_rm_exit();
	uvm_model_tools_exit();
	uvm_model_uvmdev_exit();
	model_free();
}

module_init(uvm_model_init);
module_exit(uvm_model_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("UVM model for gpuctl tests: nvidia-uvm's fault path with its BPF hooks");
