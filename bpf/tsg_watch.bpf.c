// SPDX-License-Identifier: GPL-2.0
/*
 * tsg_watch: the TSG watcher behind `gpuctl sched`.
 *
 * Raw tracepoints on sys_enter/sys_exit decode the RM escapes a process
 * issues on an NVIDIA device file (NV_ESC_RM_ALLOC in its NVOS21 and NVOS64
 * forms, NV_ESC_RM_FREE, NV_ESC_RM_CONTROL, and each of them wrapped in
 * NV_ESC_IOCTL_XFER_CMD).  It records every TSG (class KEPLER_CHANNEL_GROUP_A)
 * that gets allocated, with pid, comm, fd, hClient and hTsg, in a pinned map,
 * and the scheduling controls the process issues on it later.  When a
 * scheduling policy is active it decides, at creation, the TSG's timeslice and
 * interleave level from the policy's rules (comm, pid, uid, cgroup, cgroup subtree, pod) and posts
 * the decision on a ring buffer for gpuctl to apply.
 *
 * It only sees what happens after it is attached: TSGs allocated earlier are
 * not in the table.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "tsg_watch.h"
#include "tsg_match.h"
#include "tsg_ctl.h"	/* which controls are recorded, how */
#include "rm.h"

char LICENSE[] SEC("license") = "GPL";

#define NR_IOCTL 16	/* x86_64 */

/* Which character device is NVIDIA's RM: set by gpuctl before load. */
const volatile __u32 dev_major = 195;
const volatile __u32 dev_minor = 255;
const volatile __u32 any_minor = 1;

/* The kernel types the fd check walks, resolved by CO-RE against vmlinux BTF. */
struct inode___tw {
	__u32 i_rdev;
} __attribute__((preserve_access_index));
struct file___tw {
	struct inode___tw *f_inode;
} __attribute__((preserve_access_index));
struct fdtable___tw {
	unsigned int max_fds;
	struct file___tw **fd;
} __attribute__((preserve_access_index));
struct files_struct___tw {
	struct fdtable___tw *fdt;
} __attribute__((preserve_access_index));
struct task_struct___tw {
	struct files_struct___tw *files;
	struct task_struct___tw *group_leader;
	char comm[16];
} __attribute__((preserve_access_index));

/* x86_64 struct pt_regs offsets of the syscall arguments. */
#define REGS_DI 112
#define REGS_SI 104
#define REGS_DX 96

struct pending {
	__u64 arg;	/* user pointer to the RM struct */
	__u32 nr;	/* NV_ESC_RM_* */
	__u32 size;	/* its size */
	__s32 fd;
	__u32 xfer;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TSG_MAX);
	__type(key, struct tsg_key);
	__type(value, struct tsg_info);
} tsgs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct policy);
} policy SEC(".maps");

/* META_* slots (tsg_watch.h), written by gpuctl except the next ID. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, META_NR);
	__type(key, __u32);
	__type(value, __u64);
} meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TSG_WATCH_RINGBUF);
} events SEC(".maps");

/* Scratch for building a tsg_info (too big for the stack with the rest). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tsg_info);
} scratch SEC(".maps");

static __always_inline void stat_inc(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline int is_rm_fd(int fd)
{
	struct task_struct___tw *task = (void *)bpf_get_current_task();
	struct fdtable___tw *fdt;
	struct file___tw **fds, *file;
	unsigned int max;
	__u32 rdev;

	if (fd < 0)
		return 0;
	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt)
		return 0;
	max = BPF_CORE_READ(fdt, max_fds);
	if ((unsigned int)fd >= max)
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return 0;
	rdev = BPF_CORE_READ(file, f_inode, i_rdev);
	if ((rdev >> 20) != dev_major)
		return 0;
	return any_minor || (rdev & 0xfffff) == dev_minor;
}

SEC("raw_tracepoint/sys_enter")
int tsg_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	unsigned long regs = ctx->args[0], fd, cmd, arg;
	struct pending p = {};
	__u64 id;
	__u32 nr, size;

	if (ctx->args[1] != NR_IOCTL)
		return 0;
	if (bpf_probe_read_kernel(&cmd, sizeof(cmd), (void *)(regs + REGS_SI)))
		return 0;
	if (((cmd >> 8) & 0xff) != NV_IOCTL_MAGIC)
		return 0;
	nr = cmd & 0xff;
	size = (cmd >> 16) & 0x3fff;
	if (nr != NV_ESC_RM_ALLOC && nr != NV_ESC_RM_FREE &&
	    nr != NV_ESC_RM_CONTROL && nr != NV_ESC_IOCTL_XFER_CMD)
		return 0;
	bpf_probe_read_kernel(&fd, sizeof(fd), (void *)(regs + REGS_DI));
	bpf_probe_read_kernel(&arg, sizeof(arg), (void *)(regs + REGS_DX));
	if (!is_rm_fd((int)fd))
		return 0;
	stat_inc(STAT_IOCTLS);

	p.fd = (int)fd;
	p.arg = arg;
	p.nr = nr;
	p.size = size;
	if (nr == NV_ESC_IOCTL_XFER_CMD) {
		struct nv_ioctl_xfer x;

		if (size != sizeof(x) ||
		    bpf_probe_read_user(&x, sizeof(x), (void *)arg))
			return 0;
		if (x.cmd != NV_ESC_RM_ALLOC && x.cmd != NV_ESC_RM_FREE &&
		    x.cmd != NV_ESC_RM_CONTROL)
			return 0;
		p.nr = x.cmd;
		p.size = x.size;
		p.arg = x.ptr;
		p.xfer = 1;
	}
	id = bpf_get_current_pid_tgid();
	bpf_map_update_elem(&pending, &id, &p, BPF_ANY);
	return 0;
}

/* The active policy's decision for a new TSG, written into info. */
static __always_inline void decide(struct tsg_info *info)
{
	__u32 zero = 0;
	struct policy *pol = bpf_map_lookup_elem(&policy, &zero);
	const struct policy_rule *r;

	if (!pol || !pol->active)
		return;
	r = tsg_rule_first(pol, info);
	if (!r)
		return;
	info->want_class = r->cls;
	info->want_timeslice = r->timeslice;
	info->want_interleave = r->interleave;
	stat_inc(STAT_DECIDED);
}

static __always_inline void emit(__u32 type, __u32 cmd, __u64 value,
				 struct tsg_info *info)
{
	struct tsg_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(STAT_RB_FULL);
		return;
	}
	e->type = type;
	e->cmd = cmd;
	e->value = value;
	__builtin_memcpy(&e->info, info, sizeof(*info));
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void on_alloc(struct pending *p, __u32 tgid, __u32 tid)
{
	__u32 hRoot, hParent, hNew, hClass, status, zero = 0;
	struct tsg_info *info;
	struct tsg_key key;
	__u64 *next;

	if (p->size == sizeof(struct nvos21_params)) {
		struct nvos21_params a;

		if (bpf_probe_read_user(&a, sizeof(a), (void *)p->arg))
			return;
		hRoot = a.hRoot; hParent = a.hObjectParent; hNew = a.hObjectNew;
		hClass = a.hClass; status = a.status;
	} else if (p->size == sizeof(struct nvos64_params)) {
		struct nvos64_params a;

		if (bpf_probe_read_user(&a, sizeof(a), (void *)p->arg))
			return;
		hRoot = a.hRoot; hParent = a.hObjectParent; hNew = a.hObjectNew;
		hClass = a.hClass; status = a.status;
	} else {
		return;
	}
	if (status != NV_OK || hClass != KEPLER_CHANNEL_GROUP_A)
		return;

	info = bpf_map_lookup_elem(&scratch, &zero);
	if (!info)
		return;
	__builtin_memset(info, 0, sizeof(*info));
	next = bpf_map_lookup_elem(&meta, &zero);
	if (next)
		info->id = (__u32)__sync_fetch_and_add(next, 1) + 1;
	info->pid = tgid;
	info->tid = tid;
	info->uid = (__u32)bpf_get_current_uid_gid();
	info->fd = p->fd;
	info->hClient = hRoot;
	info->hTsg = hNew;
	info->hParent = hParent;
	info->cgroup = bpf_get_current_cgroup_id();
	info->created_ns = bpf_ktime_get_boot_ns();
	{
		/* The process's name: CUDA may allocate from a helper thread. */
		struct task_struct___tw *task = (void *)bpf_get_current_task();

		if (BPF_CORE_READ_STR_INTO(&info->comm, task, group_leader, comm) <= 0)
			bpf_get_current_comm(info->comm, sizeof(info->comm));
	}
	info->alloc_form = (p->size == sizeof(struct nvos21_params) ? 21 : 64) +
			   (p->xfer ? 100 : 0);
	decide(info);

	key.pid = tgid;
	key.hClient = hRoot;
	key.hTsg = hNew;
	if (bpf_map_update_elem(&tsgs, &key, info, BPF_ANY)) {
		stat_inc(STAT_TABLE_FULL);
		return;
	}
	stat_inc(STAT_TSG_NEW);
	emit(TSG_EV_NEW, 0, 0, info);
}

static __always_inline void on_free(struct pending *p, __u32 tgid)
{
	struct nvos00_params a;
	struct tsg_info *info;
	struct tsg_key key;

	if (p->size != sizeof(a) || bpf_probe_read_user(&a, sizeof(a), (void *)p->arg))
		return;
	if (a.status != NV_OK)
		return;
	key.pid = tgid;
	key.hClient = a.hRoot;
	key.hTsg = a.hObjectOld;
	info = bpf_map_lookup_elem(&tsgs, &key);
	if (info) {
		emit(TSG_EV_FREE, 0, 0, info);
		bpf_map_delete_elem(&tsgs, &key);
		stat_inc(STAT_TSG_FREE);
	} else if (a.hObjectOld == a.hRoot) {
		/* A whole client: gpuctl drops its TSGs from the table. */
		struct tsg_info ci = {};

		ci.pid = tgid;
		ci.hClient = a.hRoot;
		emit(TSG_EV_CLIENT_FREE, 0, 0, &ci);
	}
}

static __always_inline void on_control(struct pending *p, __u32 tgid)
{
	struct nvos54_params c;
	struct tsg_info *info;
	struct tsg_key key;
	__u64 value = 0;
	__u32 watch;

	if (p->size != sizeof(c) || bpf_probe_read_user(&c, sizeof(c), (void *)p->arg))
		return;
	if (c.status != NV_OK)
		return;
	watch = tsg_ctl_watch(c.cmd);
	if (watch == RM_WATCH_NONE)
		return;
	key.pid = tgid;
	key.hClient = c.hClient;
	key.hTsg = c.hObject;
	info = bpf_map_lookup_elem(&tsgs, &key);
	if (!info)
		return;	/* not a TSG of this process: e.g. gpuctl on a borrowed file */
	if (watch == RM_WATCH_TIMESLICE) {
		if (bpf_probe_read_user(&value, sizeof(value), (void *)c.params))
			return;
		info->app_timeslice = value;
	} else if (watch == RM_WATCH_LEVEL) {
		__u32 level = 0;

		if (bpf_probe_read_user(&level, sizeof(level), (void *)c.params))
			return;
		value = level;
		info->app_interleave = level + 1;
	}
	__sync_fetch_and_add(&info->app_controls, 1);
	stat_inc(STAT_APP_SET);
	emit(TSG_EV_APP_SET, c.cmd, value, info);
}

SEC("raw_tracepoint/sys_exit")
int tsg_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pending *pp, p;

	pp = bpf_map_lookup_elem(&pending, &id);
	if (!pp)
		return 0;
	p = *pp;
	bpf_map_delete_elem(&pending, &id);
	if ((long)ctx->args[1] != 0)
		return 0;
	switch (p.nr) {
	case NV_ESC_RM_ALLOC:
		on_alloc(&p, id >> 32, (__u32)id);
		break;
	case NV_ESC_RM_FREE:
		on_free(&p, id >> 32);
		break;
	case NV_ESC_RM_CONTROL:
		on_control(&p, id >> 32);
		break;
	}
	return 0;
}
