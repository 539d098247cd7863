// SPDX-License-Identifier: GPL-2.0
/* A real policy's state: a 65536-entry LRU map of blocks (within the engine's cap). */
#include <linux/bpf.h>
#include "pfengine_abi.h"

PFE_ENGINE("a 65536-entry LRU map of blocks");

struct blk {
	__u64 last_ns, faults, moved, flags;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct blk);
} blocks SEC(".maps");

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);
	struct blk b = {}, *p;
	__u64 a;

	if (!e || !pfe_is_fault(e))
		return 0;
	a = e->addr & ~(PFE_BLOCK - 1);
	p = bpf_map_lookup_elem(&blocks, &a);
	if (!p) {
		b.last_ns = bpf_ktime_get_ns();
		bpf_map_update_elem(&blocks, &a, &b, BPF_ANY);
		return 0;
	}
	p->faults++;
	return 0;
}

SEC("syscall")
int batch(void *ctx)
{
	return pfe_for_each(one);
}
