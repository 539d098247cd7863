// SPDX-License-Identifier: GPL-2.0
/*
 * lfu: keep the most frequently used data resident.  The driver only sees
 * faults, not hits, so a use is a VA block getting GPU memory: its first
 * fault or a re-fault after eviction (chunk_activate).  Counting the
 * fault batches of a block instead (chunk_used) would rank a block read
 * once from end to end, which faults in many batches, above a hot block
 * whose few pages stay resident.  Uses are counted per VA block, so a
 * block's count survives its eviction, and they decay: every `decay`
 * evictions all counts halve.  When the candidate at the head of
 * the used list was used at least `min_freq` times (after decay), it is
 * moved to the tail and the driver looks at the next head (at most
 * UVM_BPF_EVICT_MAX_SKIPS times): a one-pass scan evicts its own chunks
 * rather than the re-used ones.
 *
 * The counts are per CPU (chunk_activate is on the fault path: no shared
 * cache line is written there); evict_prepare sums them.
 */
#include "evict_common.bpf.h"
#include "evict.h"

#define MAX_CPUS 256

struct freq {
	__u32 count;
	__u32 epoch;	/* epoch of the last update: count decays from there */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);		/* va_block_start */
	__type(value, struct freq);
} freqs SEC(".maps");

/* [0]: decay epoch; [1]: evictions in this epoch.  Written only by
 * chunk_release, which the driver serializes with evictions. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} clock SEC(".maps");

static __always_inline __u32 epoch_now(void)
{
	__u32 k = 0;
	__u64 *e = bpf_map_lookup_elem(&clock, &k);

	return e ? (__u32)*e : 0;
}

static __always_inline __u32 decayed(const struct freq *f, __u32 now)
{
	__u32 age = now - f->epoch;

	return age >= 32 ? 0 : f->count >> age;
}

SEC("struct_ops/chunk_activate")
int BPF_PROG(lfu_activate, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	__u64 key = info->va_block_start;
	__u32 now = epoch_now();
	struct freq *f, init = { .count = 1, .epoch = now };

	stat_add(EV_STAT_ACTIVATE, 1);
	f = bpf_map_lookup_elem(&freqs, &key);
	if (!f) {
		bpf_map_update_elem(&freqs, &key, &init, BPF_NOEXIST);
	} else {
		f->count = decayed(f, now) + 1;
		f->epoch = now;
	}
	return UVM_BPF_EVICT_DEFAULT;
}

SEC("struct_ops/chunk_used")
int BPF_PROG(lfu_used, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	stat_add(EV_STAT_USED, 1);
	return UVM_BPF_EVICT_DEFAULT;	/* recency among equals: LRU */
}

SEC("struct_ops/evict_prepare")
int BPF_PROG(lfu_prepare, uvm_gpu_chunk_t *candidate, struct uvm_evict_chunk_info *info,
	     struct list_head *used_list)
{
	__u64 key = info->va_block_start;
	__u32 now = epoch_now(), cpu, sum = 0;
	struct freq *f;

	stat_add(EV_STAT_PREPARE, 1);
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		f = bpf_map_lookup_percpu_elem(&freqs, &key, cpu);
		if (!f)
			break;
		sum += decayed(f, now);
	}
	if (sum >= param(EV_LFU_MIN_FREQ)) {
		move_tail(candidate, used_list);
		stat_add(EV_LFU_STAT_PROTECTED, 1);
	}
	return UVM_BPF_EVICT_DEFAULT;
}

/* A chunk left GPU memory: the decay clock counts these. */
SEC("struct_ops/chunk_release")
int BPF_PROG(lfu_release, uvm_gpu_chunk_t *chunk, struct uvm_evict_chunk_info *info)
{
	__u32 k0 = 0, k1 = 1;
	__u64 *e = bpf_map_lookup_elem(&clock, &k0);
	__u64 *n = bpf_map_lookup_elem(&clock, &k1);

	if (e && n && ++*n >= param(EV_LFU_DECAY)) {
		*n = 0;
		*e += 1;
		stat_add(EV_LFU_STAT_DECAYS, 1);
	}
	return UVM_BPF_EVICT_DEFAULT;
}

SEC(".struct_ops.link")
struct uvm_evict_ops lfu = {
	.chunk_activate = (void *)lfu_activate,
	.chunk_used = (void *)lfu_used,
	.evict_prepare = (void *)lfu_prepare,
	.chunk_release = (void *)lfu_release,
};
