/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evict_common.bpf.h - what every gpuctl eviction policy shares: the ABI
 * types (struct uvm_evict_ops), a params array gpuctl fills and `evict set`
 * updates, per-CPU counters `evict show` sums, and the process table the
 * priority and quota policies read (pid -> level or share), which gpuctl
 * fills from `pid PID VALUE` and `cgroup PATH VALUE` arguments; their
 * names and sizes are evict.h's.
 *
 * The driver evicts from the head of the used list; policies only reorder
 * it with the move kfuncs, the driver keeps the final say.
 */
#ifndef EVICT_COMMON_BPF_H
#define EVICT_COMMON_BPF_H

#include "policy_common.bpf.h"
#include "evict.h"

/* Moves chunk to the head (next victim) or the tail; counts what moved. */
static __always_inline void move_head(uvm_gpu_chunk_t *chunk, struct list_head *used)
{
	if (!bpf_uvm_evict_move_head(chunk, used))
		stat_add(EV_STAT_MOVED, 1);
}

static __always_inline void move_tail(uvm_gpu_chunk_t *chunk, struct list_head *used)
{
	if (!bpf_uvm_evict_move_tail(chunk, used))
		stat_add(EV_STAT_MOVED, 1);
}

#ifdef EVICT_WITH_PIDS
/* pid (tgid) -> policy value (a priority level, a share in %). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EV_PIDS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} pids SEC(".maps");

static __always_inline __u32 pid_value(__u32 pid, __u32 def)
{
	__u32 *v = bpf_map_lookup_elem(&pids, &pid);

	return v ? *v : def;
}
#endif

#endif
