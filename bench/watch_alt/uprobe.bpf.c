// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe.bpf.c - the uprobe counter's programs (uprobe_abi.h says what is
 * shared): wu_entry on a cuMemAllocManaged entry, wu_return at its return.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "uprobe_abi.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid = 0;	/* 0: any process (the kernel filters by pid already) */

__u64 entries[WU_MAX_POINTS];	/* calls entered, by point */
__u64 lost;			/* returns not posted: the ring was full */
__u64 untracked;		/* entries not kept: WU_MAX_PENDING calls in flight */

struct wu_key {
	__u64 pid_tgid;
	__u64 point;
};

struct wu_pending {
	__u64 t_entry, dptr, size;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WU_MAX_PENDING);
	__type(key, struct wu_key);
	__type(value, struct wu_pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, WU_RING_BYTES);
} events SEC(".maps");

static __always_inline __u64 reg(void *ctx, int off)
{
	return *(__u64 *)((char *)ctx + off);
}

/* The call's key, or 0 when it is not the watched process's. */
static __always_inline int key_of(void *ctx, struct wu_key *k)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 point = bpf_get_attach_cookie(ctx);

	if ((target_tgid && (__u32)(id >> 32) != target_tgid) || point >= WU_MAX_POINTS)
		return 0;
	k->pid_tgid = id;
	k->point = point;
	return 1;
}

SEC("uprobe")
int wu_entry(struct pt_regs *ctx)
{
	struct wu_key k = {};
	struct wu_pending p;

	if (!key_of(ctx, &k))
		return 0;
	__sync_fetch_and_add(&entries[k.point & (WU_MAX_POINTS - 1)], 1);
	p.t_entry = bpf_ktime_get_ns();
	p.dptr = reg(ctx, WU_REGS_DI);
	p.size = reg(ctx, WU_REGS_SI);
	if (bpf_map_update_elem(&pending, &k, &p, BPF_ANY))
		__sync_fetch_and_add(&untracked, 1);
	return 0;
}

SEC("uretprobe")
int wu_return(struct pt_regs *ctx)
{
	struct wu_key k = {};
	struct wu_pending *p;
	struct wu_event *e;
	__u64 dptr;

	if (!key_of(ctx, &k))
		return 0;
	p = bpf_map_lookup_elem(&pending, &k);
	if (!p)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost, 1);
		bpf_map_delete_elem(&pending, &k);
		return 0;
	}
	e->t_entry = p->t_entry;
	e->size = p->size;
	dptr = p->dptr;
	e->t_return = bpf_ktime_get_ns();
	e->rc = (__s32)reg(ctx, WU_REGS_AX);
	e->tid = (__u32)k.pid_tgid;
	e->point = (__u32)k.point;
	e->_pad = 0;
	e->addr = 0;
	if (e->rc == 0 && dptr && bpf_probe_read_user(&e->addr, sizeof(e->addr), (void *)dptr))
		e->addr = 0;
	bpf_map_delete_elem(&pending, &k);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
