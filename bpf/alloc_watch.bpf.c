// SPDX-License-Identifier: GPL-2.0
/*
 * alloc_watch: a watched process's mappings as it makes them, for the
 * prefetch engine (bpf/alloc_watch_abi.h says what is shared).
 *
 * sys_enter keeps the arguments of mmap, munmap, mremap and mprotect calls
 * of the processes in `targets`; sys_exit posts the call, if it succeeded,
 * on that process's engine's ring buffer (`rings`).  An mmap of the watched
 * device (/dev/nvidia-uvm, by device number) is flagged: a managed
 * allocation or CUDA's reservation of its address space (PROT_NONE).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "alloc_watch_abi.h"

#define EEXIST 17

char LICENSE[] SEC("license") = "GPL";

struct inode___aw {
	__u32 i_rdev;
} __attribute__((preserve_access_index));
struct file___aw {
	struct inode___aw *f_inode;
} __attribute__((preserve_access_index));
struct fdtable___aw {
	unsigned int max_fds;
	struct file___aw **fd;
} __attribute__((preserve_access_index));
struct files_struct___aw {
	struct fdtable___aw *fdt;
} __attribute__((preserve_access_index));
struct task_struct___aw {
	struct files_struct___aw *files;
} __attribute__((preserve_access_index));

/* x86_64 struct pt_regs offsets of the syscall arguments */
#define REGS_R8 72
#define REGS_R10 56
#define REGS_DX 96
#define REGS_SI 104
#define REGS_DI 112

struct call {
	__u64 a[5];		/* the syscall's first five arguments */
	__u32 nr;
	__u32 uvm_rdev;
	__u32 tflags;		/* the target's aw_target.flags */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AW_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct aw_target);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, AW_MAX_TARGETS);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_RINGBUF);
		__uint(max_entries, AW_RING_BYTES);
	});
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AW_MAX_CALLS);
	__type(key, __u64);
	__type(value, struct call);
} calls SEC(".maps");

/* Calls in flight (a hint: sys_exit of everything else reads only this). */
__u64 in_flight;

SEC("raw_tracepoint/sys_enter")
int aw_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	unsigned long regs = ctx->args[0];
	__u64 nr = ctx->args[1], id;
	struct aw_target *t;
	struct call c = {};
	__u32 tgid;
	long err;

	if (nr != AW_NR_MMAP && nr != AW_NR_MUNMAP && nr != AW_NR_MREMAP && nr != AW_NR_MPROTECT)
		return 0;
	id = bpf_get_current_pid_tgid();
	tgid = id >> 32;
	t = bpf_map_lookup_elem(&targets, &tgid);
	if (!t)
		return 0;
	c.nr = nr;
	c.uvm_rdev = t->uvm_rdev;
	c.tflags = t->flags;
	bpf_probe_read_kernel(&c.a[0], 8, (void *)(regs + REGS_DI));
	bpf_probe_read_kernel(&c.a[1], 8, (void *)(regs + REGS_SI));
	bpf_probe_read_kernel(&c.a[2], 8, (void *)(regs + REGS_DX));
	bpf_probe_read_kernel(&c.a[3], 8, (void *)(regs + REGS_R10));
	bpf_probe_read_kernel(&c.a[4], 8, (void *)(regs + REGS_R8));
	if (t->in_calls >= AW_CALLS_PER_TARGET) {
		__sync_fetch_and_add(&t->lost, 1);	/* over its share: missed, said */
		return 0;
	}
	err = bpf_map_update_elem(&calls, &id, &c, BPF_NOEXIST);
	if (err == -EEXIST) {
		bpf_map_update_elem(&calls, &id, &c, BPF_ANY);	/* the thread's last call, unfinished */
		return 0;
	}
	if (err) {
		__sync_fetch_and_add(&t->lost, 1);	/* the host's calls all taken */
		return 0;
	}
	__sync_fetch_and_add(&t->in_calls, 1);
	__sync_fetch_and_add(&in_flight, 1);
	return 0;
}

/* Whether fd of the current process is the device rdev (major << 20 | minor). */
static __always_inline int is_dev(long fd, __u32 rdev)
{
	struct task_struct___aw *task = (void *)bpf_get_current_task();
	struct fdtable___aw *fdt;
	struct file___aw **fds, *file;

	if (fd < 0 || !rdev)
		return 0;
	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || (unsigned long)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return 0;
	return BPF_CORE_READ(file, f_inode, i_rdev) == rdev;
}

SEC("raw_tracepoint/sys_exit")
int aw_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	long ret = (long)ctx->args[1];
	struct aw_event *e;
	struct aw_target *t;
	struct call *cp, c;
	void *ring;
	__u64 id;
	__u32 tgid;

	if (!in_flight)
		return 0;
	id = bpf_get_current_pid_tgid();
	cp = bpf_map_lookup_elem(&calls, &id);
	if (!cp)
		return 0;
	c = *cp;
	bpf_map_delete_elem(&calls, &id);
	__sync_fetch_and_add(&in_flight, -1);
	tgid = id >> 32;
	t = bpf_map_lookup_elem(&targets, &tgid);
	if (t && t->in_calls)	/* 0: its engine added it again meanwhile */
		__sync_fetch_and_add(&t->in_calls, -1);
	if (ret < 0 && ret > -4096)
		return 0;	/* refused: nothing changed */
	ring = bpf_map_lookup_elem(&rings, &tgid);
	if (!ring)
		return 0;
	e = bpf_ringbuf_reserve(ring, sizeof(*e), 0);
	if (!e) {
		if (t)
			__sync_fetch_and_add(&t->lost, 1);
		return 0;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->tgid = tgid;
	e->flags = 0;
	e->prot = e->mflags = 0;
	e->addr2 = e->len2 = 0;
	e->len = c.a[1];
	switch (c.nr) {
	case AW_NR_MMAP:
		e->op = AW_MMAP;
		e->addr = (__u64)ret;
		e->prot = c.a[2];
		e->mflags = c.a[3];
		if (is_dev((long)c.a[4], c.uvm_rdev))
			e->flags |= AW_F_UVM;
		break;
	case AW_NR_MUNMAP:
		e->op = AW_MUNMAP;
		e->addr = c.a[0];
		break;
	case AW_NR_MREMAP:
		e->op = AW_MREMAP;
		e->addr = c.a[0];
		e->addr2 = (__u64)ret;
		e->len2 = c.a[2];
		break;
	default:
		e->op = AW_MPROTECT;
		e->addr = c.a[0];
		e->prot = c.a[2];
		break;
	}
	bpf_ringbuf_submit(e, (c.tflags & AW_T_NO_WAKE) ? BPF_RB_NO_WAKEUP : 0);
	return 0;
}
