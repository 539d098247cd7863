/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uvm_bpf_ext.h - the BPF struct_ops ABI of nvidia-uvm.
 *
 * This one header is shared by three builds:
 *   - the NVIDIA driver (kernel-patch/ adds it to kernel-open/nvidia-uvm),
 *   - the UVM model module of the gpuctl test VM (tests/model),
 *   - the BPF policies of gpuctl (bpf/), compiled with clang -target bpf.
 *
 * Three struct_ops types, each registered on its own, single instance:
 *   struct uvm_gpu_ext            prefetch decisions (compute_prefetch_region)
 *   struct uvm_fault_policy_ops   fault replay decisions (one per fault batch)
 *   struct uvm_evict_ops          ordering of the GPU root chunk eviction list
 *
 * The kernel keeps the final say: every region a policy sets is clamped to
 * the block's max_prefetch_region, and an eviction policy can only reorder
 * the used list, never pin or drop chunks.
 */
#ifndef __UVM_BPF_EXT_H__
#define __UVM_BPF_EXT_H__

/*
 * Version of this ABI (the types, their members, the kfuncs and the meaning
 * of the return values below). It is in the module's BTF as an enum, so
 * gpuctl probe can tell which ABI a loaded nvidia-uvm carries. Bump it with
 * any change a BPF program built against an older copy of this header could
 * notice; the driver-version adaptations of the hook sites do not change it.
 */
enum uvm_bpf_ext_abi {
	UVM_BPF_EXT_ABI_VERSION = 1,
};

/* Prefetch actions returned by uvm_prefetch_before_compute(). */
enum uvm_bpf_action {
	UVM_BPF_ACTION_DEFAULT = 0,	/* the driver's 51 % bitmap-tree walk */
	UVM_BPF_ACTION_BYPASS = 1,	/* result_region is the answer */
	UVM_BPF_ACTION_ENTER_LOOP = 2,	/* walk the tree, ask on_tree_iter */
};

/* Replay decisions returned by decide_replay(). */
enum uvm_bpf_replay {
	UVM_BPF_REPLAY_DEFER = -1,	/* no replay at this point */
	UVM_BPF_REPLAY_DEFAULT = 0,	/* the module parameter's policy */
	UVM_BPF_REPLAY_NOW = 1,		/* replay after this batch */
};

enum uvm_bpf_evict {
	UVM_BPF_EVICT_DEFAULT = 0,	/* driver moves the chunk to the tail */
	UVM_BPF_EVICT_HANDLED = 1,	/* policy placed the chunk itself */
};

#define UVM_BPF_EVICT_MAX_SKIPS 8

/* uvm_perf_fault_replay_policy value that routes decisions to BPF. */
#define UVM_PERF_FAULT_REPLAY_POLICY_EBPF_VALUE 4

#if defined(__bpf__)
/*
 * BPF side: the driver types the hooks take, laid out as the driver lays
 * them out.  Programs read them through the trusted pointers the hooks
 * pass; the verifier checks every access against the module's BTF.
 */
typedef unsigned char NvU8;
typedef unsigned short NvU16;
typedef unsigned int NvU32;
typedef unsigned long long NvU64;
typedef NvU16 uvm_page_index_t;

typedef struct {
	uvm_page_index_t first;
	uvm_page_index_t outer;
} uvm_va_block_region_t;

typedef struct {
	unsigned long bitmap[512 / 64];
} uvm_page_mask_t;

typedef struct {
	uvm_page_mask_t pages;
	uvm_page_index_t offset;
	NvU16 leaf_count;
	NvU8 level_count;
} uvm_perf_prefetch_bitmap_tree_t;

/*
 * Complete (if minimal) types: libbpf matches kfunc prototypes against the
 * module's BTF and refuses forward declarations.  CO-RE relocates the
 * members read.
 */
struct list_head {
	struct list_head *next, *prev;
} __attribute__((preserve_access_index));

struct uvm_gpu_chunk_struct {
	NvU64 address;
} __attribute__((preserve_access_index));
typedef struct uvm_gpu_chunk_struct uvm_gpu_chunk_t;

#define UVM_BPF_KFUNC(ret, name, ...) extern ret name(__VA_ARGS__) __ksym
#else
#include "uvm_perf_prefetch.h"
#include "uvm_pmm_gpu.h"
#define UVM_BPF_KFUNC(ret, name, ...) ret name(__VA_ARGS__)
#endif

/*
 * Summary of one serviced fault batch, the context of decide_replay().
 * All counts are of this batch unless named otherwise.
 */
struct uvm_fault_batch_info {
	NvU64 batch_id;			/* per GPU, increments every batch */
	NvU32 gpu_index;
	NvU32 num_faults;		/* fault buffer entries fetched */
	NvU32 num_duplicates;		/* entries coalesced as duplicates */
	NvU32 num_throttled;		/* faults throttled by thrashing */
	NvU32 num_invalid_prefetch;	/* invalid prefetch faults */
	NvU32 num_pages_migrated;	/* pages migrated servicing the batch */
	NvU32 batches_since_replay;	/* batches serviced since last replay */
	NvU32 fault_buffer_pending;	/* entries left in the fault buffer */
};

/* What an eviction hook learns about the chunk it is called for. */
struct uvm_evict_chunk_info {
	NvU64 chunk_addr;		/* GPU physical address of the root chunk */
	NvU64 va_block_start;		/* VA of the block it backs, 0 if none */
	NvU32 owner_pid;		/* tgid of the VA space's creator */
	NvU32 gpu_index;
};

/* Prefetch: the members and their order are those of the gpu_ext seed. */
struct uvm_gpu_ext {
	int (*uvm_bpf_test_trigger_kfunc)(const char *buf, int len);
	int (*uvm_prefetch_before_compute)(uvm_page_index_t page_index,
					   uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
					   uvm_va_block_region_t *max_prefetch_region,
					   uvm_va_block_region_t *result_region);
	int (*uvm_prefetch_on_tree_iter)(uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
					 uvm_va_block_region_t *max_prefetch_region,
					 uvm_va_block_region_t *current_region,
					 unsigned int counter,
					 uvm_va_block_region_t *prefetch_region);
};

/* Replay: one decision per serviced batch. */
struct uvm_fault_policy_ops {
	int (*decide_replay)(struct uvm_fault_batch_info *batch,
			     int default_policy);
};

/*
 * Eviction: the used list is ordered least to most recently used and the
 * driver evicts from its head.  chunk_activate and chunk_used return
 * UVM_BPF_EVICT_DEFAULT to let the driver move the chunk to the tail, or
 * UVM_BPF_EVICT_HANDLED when the policy placed it (or chose to leave it).
 * evict_prepare sees the chunk about to be evicted; when the policy moves
 * it away from the head the driver looks at the new head, at most
 * UVM_BPF_EVICT_MAX_SKIPS times, then evicts the head regardless.
 */
struct uvm_evict_ops {
	int (*chunk_activate)(uvm_gpu_chunk_t *chunk,
			      struct uvm_evict_chunk_info *info,
			      struct list_head *used_list);
	int (*chunk_used)(uvm_gpu_chunk_t *chunk,
			  struct uvm_evict_chunk_info *info,
			  struct list_head *used_list);
	int (*chunk_release)(uvm_gpu_chunk_t *chunk,
			     struct uvm_evict_chunk_info *info);
	int (*evict_prepare)(uvm_gpu_chunk_t *candidate,
			     struct uvm_evict_chunk_info *info,
			     struct list_head *used_list);
};

UVM_BPF_KFUNC(void, bpf_uvm_set_va_block_region, uvm_va_block_region_t *region,
	      uvm_page_index_t first, uvm_page_index_t outer);
UVM_BPF_KFUNC(int, bpf_uvm_strstr, const char *str, NvU32 str__sz,
	      const char *substr, NvU32 substr__sz);
UVM_BPF_KFUNC(int, bpf_uvm_evict_move_head, uvm_gpu_chunk_t *chunk,
	      struct list_head *used_list);
UVM_BPF_KFUNC(int, bpf_uvm_evict_move_tail, uvm_gpu_chunk_t *chunk,
	      struct list_head *used_list);

#if !defined(__bpf__)
#include <linux/version.h>
#include <linux/rcupdate.h>

#if defined(CONFIG_BPF_SYSCALL) && defined(CONFIG_BPF_JIT) && \
	defined(CONFIG_DEBUG_INFO_BTF_MODULES) && \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define UVM_BPF_EXT_ENABLED 1
#else
#define UVM_BPF_EXT_ENABLED 0
#endif

extern const enum uvm_bpf_ext_abi uvm_bpf_ext_abi_version;

/*
 * Register all three types; on failure the driver runs on its defaults.
 * Module BTF going away at unload unregisters them.
 */
int uvm_bpf_ext_init(void);

/* Calls the attached prefetch policy's uvm_bpf_test_trigger_kfunc. */
int uvm_bpf_test_trigger(const char *buf, int len);

/*
 * Provided by the memory manager (uvm_pmm_gpu.c): moves chunk to the head
 * or tail of used_list, under the list lock the eviction hooks run with.
 * -EINVAL unless chunk is on that used list.
 */
int uvm_pmm_bpf_chunk_move(uvm_gpu_chunk_t *chunk, struct list_head *used_list,
			   bool to_head);

#if UVM_BPF_EXT_ENABLED
extern struct uvm_gpu_ext __rcu *uvm_bpf_prefetch_ops;
extern struct uvm_fault_policy_ops __rcu *uvm_bpf_replay_ops;
extern struct uvm_evict_ops __rcu *uvm_bpf_evict_ops;

int uvm_bpf_call_before_compute_prefetch(uvm_page_index_t page_index,
					 uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
					 uvm_va_block_region_t *max_prefetch_region,
					 uvm_va_block_region_t *result_region);
void uvm_bpf_call_on_tree_iter(uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
			       uvm_va_block_region_t *max_prefetch_region,
			       uvm_va_block_region_t *current_region,
			       unsigned int counter,
			       uvm_va_block_region_t *prefetch_region);
int uvm_bpf_call_decide_replay(struct uvm_fault_batch_info *batch,
			       int default_policy);
int uvm_bpf_call_chunk_activate(uvm_gpu_chunk_t *chunk,
				struct uvm_evict_chunk_info *info,
				struct list_head *used_list);
int uvm_bpf_call_chunk_used(uvm_gpu_chunk_t *chunk,
			    struct uvm_evict_chunk_info *info,
			    struct list_head *used_list);
void uvm_bpf_call_chunk_release(uvm_gpu_chunk_t *chunk,
				struct uvm_evict_chunk_info *info);
void uvm_bpf_call_evict_prepare(uvm_gpu_chunk_t *candidate,
				struct uvm_evict_chunk_info *info,
				struct list_head *used_list);

/* The hot-path test: one RCU pointer read when nothing is attached. */
#define uvm_bpf_prefetch_attached() (rcu_access_pointer(uvm_bpf_prefetch_ops) != NULL)
#define uvm_bpf_replay_attached() (rcu_access_pointer(uvm_bpf_replay_ops) != NULL)
#define uvm_bpf_evict_attached() (rcu_access_pointer(uvm_bpf_evict_ops) != NULL)
#else
#define uvm_bpf_prefetch_attached() false
#define uvm_bpf_replay_attached() false
#define uvm_bpf_evict_attached() false
static inline int uvm_bpf_call_before_compute_prefetch(uvm_page_index_t page_index,
		uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
		uvm_va_block_region_t *max_prefetch_region,
		uvm_va_block_region_t *result_region)
{ return UVM_BPF_ACTION_DEFAULT; }
static inline void uvm_bpf_call_on_tree_iter(uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
		uvm_va_block_region_t *max_prefetch_region,
		uvm_va_block_region_t *current_region, unsigned int counter,
		uvm_va_block_region_t *prefetch_region) { }
static inline int uvm_bpf_call_decide_replay(struct uvm_fault_batch_info *batch,
		int default_policy)
{ return UVM_BPF_REPLAY_DEFAULT; }
static inline int uvm_bpf_call_chunk_activate(uvm_gpu_chunk_t *chunk,
		struct uvm_evict_chunk_info *info, struct list_head *used_list)
{ return UVM_BPF_EVICT_DEFAULT; }
static inline int uvm_bpf_call_chunk_used(uvm_gpu_chunk_t *chunk,
		struct uvm_evict_chunk_info *info, struct list_head *used_list)
{ return UVM_BPF_EVICT_DEFAULT; }
static inline void uvm_bpf_call_chunk_release(uvm_gpu_chunk_t *chunk,
		struct uvm_evict_chunk_info *info) { }
static inline void uvm_bpf_call_evict_prepare(uvm_gpu_chunk_t *candidate,
		struct uvm_evict_chunk_info *info, struct list_head *used_list) { }
#endif /* UVM_BPF_EXT_ENABLED */
#endif /* !__bpf__ */

#endif /* __UVM_BPF_EXT_H__ */
