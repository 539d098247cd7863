/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uvm_model.h - the model's state and the calls between its files:
 *   uvm_model_main.c      fault batches, GPU memory, eviction, reset, access
 *   uvm_model_prefetch.c  the tree prefetcher (uvm_perf_prefetch.c)
 *   uvm_model_uvmdev.c    /dev/nvidia-uvm (alias /dev/uvm_model): the 580
 *                         user ABI (cmd/drv/uvm_ioctl.h) and the model ioctls
 *   uvm_model_tools.c     /dev/nvidia-uvm-tools (cmd/drv/uvm_tools.h)
 *   uvm_model_events.c    the stock driver's trace points
 *   uvm_model_rm.c        /dev/uvm_model_rm, the RM escapes
 */
#ifndef __UVM_MODEL_H__
#define __UVM_MODEL_H__

#include <linux/fs.h>
#include <linux/mutex.h>

#include "uvm_bpf_ext.h"
#include "uvm_pmm_gpu.h"
#include "uvm_model_uapi.h"

#define PAGES PAGES_PER_UVM_VA_BLOCK

/*
 * The model's one GPU: processor id value 1 (GPU 0), and its UUID as
 * nvidia-smi would print it: GPU-6d6f6465-6c67-5055-8000-000000000001.
 */
#define UVM_MODEL_GPU_UUID { 0x6d, 0x6f, 0x64, 0x65, 0x6c, 0x67, 0x50, 0x55, \
			     0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }

/*
 * The model's GPUs (module parameter gpus=N, 1..UVM_MODEL_MAX_GPUS): GPU i
 * has UVM_MODEL_GPU_UUID with its last byte i + 1 (GPU 0 keeps the UUID
 * above), PCI bus id 0000:<i+1>:00.0 (nvidia-smi's index = i), name
 * "NVIDIA Model GPU".  The RM side (uvm_model_rm_gpu.c) owns the parameter.
 */
/* NVIDIA's limit (NV_MAX_DEVICES: RM's attached list, UVM's UUID table V1) */
#define UVM_MODEL_MAX_GPUS	32
#define UVM_MODEL_GPU_UUID_I(i) { 0x6d, 0x6f, 0x64, 0x65, 0x6c, 0x67, 0x50, 0x55, \
				  0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 + (i) }
extern unsigned int uvm_model_gpus;
/* The UVM side: how many GPUs (uvm_model_gpus, clamped), the GPU of the access being served. */
unsigned int uvm_model_ngpus(void);
extern unsigned int uvm_model_fault_gpu;

/* Named as in the driver so that tracing programs find the same fields. */
typedef struct uvm_va_block_struct {
	NvU64 start;
	NvU64 end;
	uvm_page_mask_t resident;	/* resident on the GPU */
	uvm_page_mask_t prefetched;	/* prefetched, not touched since */
	uvm_page_mask_t evicted;	/* evicted, not faulted since */
	uvm_page_mask_t faulted;	/* faulted in the current batch */
	uvm_page_mask_t thrashing;
	uvm_page_mask_t accessed_by;	/* hint: the GPU maps these remotely */
	uvm_page_mask_t read_dup;	/* hint: read duplication */
	uvm_page_mask_t preferred_gpu;	/* hint: preferred location the GPU */
	uvm_page_mask_t preferred_cpu;	/* hint: preferred location the CPU */
	uvm_page_mask_t remote_mapped;	/* on the CPU, mapped by the GPU */
	uvm_gpu_chunk_t *chunk;
	NvU32 tenant;
	NvU32 evictions;
	bool in_batch;
	NvU8 gpu;			/* the GPU its resident pages are on */
} uvm_va_block_t;

struct uvm_model {
	struct mutex lock;
	struct uvm_model_config cfg;
	struct uvm_model_stats stats;
	uvm_va_block_t *blocks;
	uvm_gpu_chunk_t *chunks;
	struct list_head used;
	struct list_head unused;
	NvU32 *batch_blocks;		/* blocks faulted in this batch, in order */
	NvU32 batch_nblocks;
	NvU32 batch_entries;
	NvU32 batch_duplicates;
	NvU32 batch_throttled;
	NvU32 batch_migrated;
	NvU32 batches_since_replay;
	NvU32 pid[UVM_MODEL_MAX_TENANTS];
	NvU64 pages_migrated_total;	/* since load, not zeroed by reset */
	atomic_t migrating;		/* UVM_MIGRATE calls in their migrate_us now */
};
extern struct uvm_model model;

static inline uvm_va_block_region_t uvm_va_block_region(uvm_page_index_t first,
							uvm_page_index_t outer)
{
	return (uvm_va_block_region_t){ .first = first, .outer = outer };
}

static inline unsigned int region_pages(uvm_va_block_region_t r)
{
	return r.outer - r.first;
}

static inline unsigned int mask_weight(const uvm_page_mask_t *m)
{
	return bitmap_weight(m->bitmap, PAGES);
}

/* Pages set in [r.first, r.outer): a word at a time, as the driver's helper. */
static inline unsigned int mask_region_weight(const uvm_page_mask_t *m,
				       uvm_va_block_region_t r)
{
	unsigned int i = r.first, n = 0, bit, len;
	unsigned long v;

	while (i < r.outer) {
		bit = i % BITS_PER_LONG;
		len = min_t(unsigned int, BITS_PER_LONG - bit, r.outer - i);
		v = m->bitmap[i / BITS_PER_LONG] >> bit;
		if (len < BITS_PER_LONG)
			v &= (1UL << len) - 1;
		n += hweight_long(v);
		i += len;
	}
	return n;
}

/* uvm_model_main.c, under model.lock */
long uvm_model_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
/* Makes pages [first, first + n) of the range resident on the GPU (to_gpu) or the CPU. */
void uvm_model_migrate_pages(NvU64 first, NvU64 n, bool to_gpu, unsigned int gpu);


/* uvm_model_prefetch.c */
void uvm_perf_prefetch_get_hint_va_block(uvm_va_block_t *va_block,
					 uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
					 uvm_page_mask_t *prefetch_pages);
const uvm_page_mask_t *uvm_perf_thrashing_get_thrashing_pages(uvm_va_block_t *va_block);
void uvm_model_bench(struct uvm_model_bench *b);

/* uvm_model_uvmdev.c */
int uvm_model_uvmdev_init(void);
void uvm_model_uvmdev_exit(void);
bool uvm_model_file_is_uvm(struct file *file);

/* uvm_model_tools.c */
int uvm_model_tools_init(void);
void uvm_model_tools_exit(void);

#endif
