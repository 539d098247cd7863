/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uvm_model_uapi.h - ioctls of /dev/uvm_model, the UVM model of the
 * gpuctl test VM.  Shared by the module and its user-space driver uvmsim.
 */
#ifndef __UVM_MODEL_UAPI_H__
#define __UVM_MODEL_UAPI_H__

#include <linux/ioctl.h>
#include <linux/types.h>

#define UVM_MODEL_PAGE_SHIFT 12
#define UVM_MODEL_BLOCK_SHIFT 21
#define UVM_MODEL_MAX_BLOCKS 65536
#define UVM_MODEL_MAX_TENANTS 8

/*
 * Where the range lives in every process's address space: offset X of the
 * range is address UVM_MODEL_VA_BASE + X in events, and what a process
 * maps of it from /dev/nvidia-uvm (offset == address, as CUDA maps
 * managed memory) is its managed memory for UVM_MIGRATE and the hints.
 */
#define UVM_MODEL_VA_BASE 0x7e0000000000ULL
#define UVM_MODEL_MAX_MAPS 32	/* mappings per va_space */

/* Driver replay policies (uvm_perf_fault_replay_policy) and EBPF. */
enum {
	UVM_MODEL_REPLAY_BLOCK = 0,
	UVM_MODEL_REPLAY_BATCH = 1,
	UVM_MODEL_REPLAY_BATCH_FLUSH = 2,
	UVM_MODEL_REPLAY_ONCE = 3,
	UVM_MODEL_REPLAY_EBPF = 4,
};
/* reset: keep the module parameter uvm_perf_fault_replay_policy as it is */
#define UVM_MODEL_REPLAY_KEEP 0xffffffffu

struct uvm_model_config {
	__u32 va_blocks;	/* size of the managed range, in 2 MiB blocks */
	__u32 gpu_chunks;	/* GPU memory in 2 MiB root chunks; 0: unlimited */
	__u32 batch_size;	/* fault buffer entries per batch (driver: 256) */
	__u32 replay_policy;	/* UVM_MODEL_REPLAY_*: sets uvm_perf_fault_replay_policy */
	__u32 threshold;	/* prefetch occupancy threshold % (driver: 51) */
	__u32 big_page_pages;	/* fault granularity growth in pages (64K: 16); 0 off */
	__u32 prefetch;		/* 0 disables the prefetcher (uvm_perf_prefetch_enable) */
	__u32 migrate_us;	/* each UVM_MIGRATE call first sleeps this long, outside
				 * the model's lock (a driver's call that takes time: calls
				 * from several threads overlap); 0: none, at most 10 s */
};

enum {
	UVM_MODEL_ACCESS_READ = 0,
	UVM_MODEL_ACCESS_WRITE = 1,
};
/* uvm_model_access.type's bits 8..15: the GPU that accesses (0 .. gpus-1). */
#define UVM_MODEL_ACCESS_GPU_SHIFT 8
/*
 * uvm_model_access.type's bit 16: the CPU accesses, not a GPU.  A page the
 * GPU holds makes a CPU fault (a tools event) that moves all of its block's
 * GPU-resident pages back (the driver's CPU fault takes a large part back at
 * once); a page on the CPU already is not modelled further (no event).
 */
#define UVM_MODEL_ACCESS_CPU 0x10000u

struct uvm_model_access {
	__u64 addr;		/* offset in the managed range */
	__u32 tenant;		/* 0 .. UVM_MODEL_MAX_TENANTS-1 ("process") */
	__u32 type;		/* UVM_MODEL_ACCESS_* */
};

/*
 * warps: how many accesses run concurrently.  The accesses of one round of
 * warps do not see each other's migrations; the faults they raise are
 * serviced (a batch) when the round ends or batch_size entries are
 * buffered.  0: only batch_size closes a batch.
 */
struct uvm_model_accesses {
	__u64 ptr;		/* struct uvm_model_access[count] */
	__u32 count;
	__u32 warps;
};

struct uvm_model_tenant_stats {
	__u32 pid;		/* pid the tenant reports as its owner */
	__u32 pad;
	__u64 faults;		/* unique faulted pages serviced */
	__u64 refaults;		/* faults on pages evicted before */
	__u64 chunks_evicted;	/* this tenant's chunks taken by eviction */
};

struct uvm_model_stats {
	__u64 accesses;
	__u64 fault_entries;	/* fault buffer entries, duplicates included */
	__u64 duplicates;
	__u64 faults;		/* unique faulted pages serviced */
	__u64 batches;
	__u64 replays;
	__u64 pages_migrated;	/* faulted + prefetched pages moved to the GPU */
	__u64 pages_prefetched;
	__u64 prefetch_hits;	/* prefetched pages touched before eviction */
	__u64 evictions;	/* root chunks evicted */
	__u64 pages_evicted;
	__u64 refaults;
	__u64 decisions;	/* compute_prefetch_region calls */
	__u64 decisions_native;	/* ... taken with no prefetch policy attached */
	__u64 act_default;	/* policy answers, by action */
	__u64 act_bypass;
	__u64 act_enter_loop;
	__u64 tree_iters;	/* on_tree_iter calls */
	__u64 chunks_used;	/* root chunks on the used list now */
	__u64 thrashing_pages;	/* pages flagged as thrashing now */
	struct uvm_model_tenant_stats tenant[UVM_MODEL_MAX_TENANTS];
	__u64 batches_deferred;	/* batches that ended without a replay */
	__u64 replay_bpf_calls;	/* decide_replay calls */
	__u64 replay_policy;	/* uvm_perf_fault_replay_policy now */
	/* The 580 user ABI on /dev/nvidia-uvm (uvm_model_uvmdev.c): */
	__u64 user_migrations;	/* UVM_MIGRATE calls that reached the pages */
	__u64 pages_migrated_user;	/* pages UVM_MIGRATE moved to the GPU */
	__u64 pages_migrated_to_cpu;	/* ... and back to the CPU */
	__u64 remote_accesses;	/* GPU accesses of accessed-by pages: no fault */
	__u64 va_blocks;	/* the configured range, in 2 MiB blocks */
	__u64 pages_accessed_by;	/* pages with each hint set now */
	__u64 pages_read_dup;
	__u64 pages_preferred_gpu;
	__u64 pages_preferred_cpu;
	__u64 pages_mapped_remote;	/* GPU faults on CPU-preferred pages: mapped, not moved */
	__u64 cpu_faults;		/* CPU accesses to pages a GPU held (each brings its block back) */
	__u64 pages_migrated_user_gpu[4];	/* pages_migrated_user by destination GPU */
	__u64 migrations_at_once_max;	/* UVM_MIGRATE calls in their migrate_us at once, at most */
};

/* Times compute_prefetch_region over iterations decisions. */
struct uvm_model_bench {
	__u64 iterations;	/* in */
	__u64 ns;		/* out: total time */
	__u64 act_default;	/* out: answers seen, by action */
	__u64 act_bypass;
	__u64 act_enter_loop;
};

struct uvm_model_trigger {
	__u64 ptr;		/* bytes handed to uvm_bpf_test_trigger_kfunc */
	__u32 len;
	__s32 ret;		/* out: the policy's return value */
};

struct uvm_model_tenant {
	__u32 tenant;
	__u32 pid;
};

/* Hooks timed by UVM_MODEL_IOC_HOOK_BENCH, at their call sites. */
enum {
	UVM_MODEL_HOOK_DECIDE_REPLAY = 0,	/* the replay decision of a batch */
	UVM_MODEL_HOOK_CHUNK_USED = 1,		/* a used chunk's list update */
	UVM_MODEL_HOOK_CHUNK_ACTIVATE = 2,	/* a new chunk's hook call */
	UVM_MODEL_HOOK_EVICT_PREPARE = 3,	/* choosing the victim */
	UVM_MODEL_HOOK_MAX,
};

/*
 * Times iterations runs of one hook's call site: with a policy attached
 * the hook, else the driver's native path.  Chunk hooks need chunks on the
 * used list (run a pattern with gpu_chunks first): -ENODATA otherwise.
 */
struct uvm_model_hook_bench {
	__u32 hook;		/* in: UVM_MODEL_HOOK_* */
	__u32 attached;		/* out: 1 when a BPF policy ran */
	__u64 iterations;	/* in */
	__u64 ns;		/* out: total time */
};

#define UVM_MODEL_IOC_MAGIC 'u'
#define UVM_MODEL_IOC_RESET	_IOW(UVM_MODEL_IOC_MAGIC, 1, struct uvm_model_config)
#define UVM_MODEL_IOC_ACCESS	_IOW(UVM_MODEL_IOC_MAGIC, 2, struct uvm_model_accesses)
#define UVM_MODEL_IOC_STATS	_IOR(UVM_MODEL_IOC_MAGIC, 3, struct uvm_model_stats)
#define UVM_MODEL_IOC_BENCH	_IOWR(UVM_MODEL_IOC_MAGIC, 4, struct uvm_model_bench)
#define UVM_MODEL_IOC_TRIGGER	_IOWR(UVM_MODEL_IOC_MAGIC, 5, struct uvm_model_trigger)
#define UVM_MODEL_IOC_TENANT	_IOW(UVM_MODEL_IOC_MAGIC, 6, struct uvm_model_tenant)
#define UVM_MODEL_IOC_HOOK_BENCH	_IOWR(UVM_MODEL_IOC_MAGIC, 7, struct uvm_model_hook_bench)

#endif
