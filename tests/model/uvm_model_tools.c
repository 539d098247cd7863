// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_model_tools.c - /dev/nvidia-uvm-tools of the model: NVIDIA's UVM
 * tools event trackers with the 580 driver's ioctls and layouts
 * (cmd/drv/uvm_tools.h, the header gpuctl reads them with).
 *
 * A tracker is one open file: a counter tracker (queue size 0: an array of
 * UT_CTR_TOTAL u64 in the caller's control buffer) or an event queue (V2:
 * 72-byte entries in the caller's queue buffer, indexes and drop counts in
 * its control page).  Both buffers are the caller's own pages, pinned and
 * mapped into the kernel, written while the caller reads them.  The
 * tracker watches the va_space of the UVM file it names by fd (uvmFd, in
 * the caller's fd table: gpuctl borrows the target's), not the caller's.
 *
 * Events come from the model's trace points (uvm_model_events.c) for the
 * va_space the model runs for: GPU faults, migrations (fault, prefetch,
 * UVM_MIGRATE, eviction), replays, evictions and thrashing, and CPU faults
 * on pages the GPU holds (uvmsim's CPU accesses: UVM_MODEL_ACCESS_CPU).  The device exists while
 * the parameter tools_device is 1 (below).  The counters count what
 * the driver counts: a GPU fault per fault notification, bytes per
 * migration (CPU to GPU, GPU to CPU).
 */
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "uvm_model.h"
#include "uvm_model_events.h"
#include "uvm_tools.h"
#include "uvm_ioctl.h"

#define MODEL_GPU_PROC 1	/* the GPU's processor id value (GPU 0, sub-processor 0) */

struct user_map {		/* a caller's buffer, pinned and mapped */
	struct page **pages;
	unsigned long npages;
	void *addr;
};

struct tracker {
	struct file *uvm_file;	/* holds the va_space */
	uvm_va_space_t *vs;
	bool is_queue;
	bool listed;		/* on vs->trackers */
	struct list_head node;
	u64 enabled;		/* 1 << UT_EV_* (queue) or 1 << UT_CTR_* */
	struct user_map buf, ctrl;
	/* queue */
	spinlock_t lock;
	wait_queue_head_t wq;
	u32 count, threshold;
	bool wakeup_valid;
	u32 wakeup_get;
	/* counters */
	u32 all_processors;
	struct uvm_uuid processor;
};

/* The processor id of the GPU being served (sub-processor 0 of uvm_model_fault_gpu). */
static u16 fault_proc(void)
{
	return MODEL_GPU_PROC + uvm_model_fault_gpu * UT_SUB_PROCESSORS;
}

static void unmap_user(struct user_map *m)
{
	if (m->addr)
		vunmap(m->addr);
	if (m->pages) {
		unpin_user_pages_dirty_lock(m->pages, m->npages, true);
		kvfree(m->pages);
	}
	memset(m, 0, sizeof(*m));
}

/* As the driver: page-aligned, non-empty, writable memory of the caller. */
static u32 map_user(u64 va, u64 size, struct user_map *m)
{
	unsigned long n = DIV_ROUND_UP(size, PAGE_SIZE);
	long got;

	if (!va || !size || !PAGE_ALIGNED(va) || va + n * PAGE_SIZE < va)
		return UVM_NV_ERR_INVALID_ADDRESS;
	m->pages = kvmalloc_array(n, sizeof(*m->pages), GFP_KERNEL);
	if (!m->pages)
		return UVM_NV_ERR_NO_MEMORY;
	got = pin_user_pages_fast(va, n, FOLL_WRITE | FOLL_LONGTERM, m->pages);
	if (got != (long)n) {
		if (got > 0)
			unpin_user_pages(m->pages, got);
		kvfree(m->pages);
		m->pages = NULL;
		return UVM_NV_ERR_INVALID_ARGUMENT;
	}
	m->npages = n;
	m->addr = vmap(m->pages, n, VM_MAP, PAGE_KERNEL);
	if (!m->addr) {
		unmap_user(m);
		return UVM_NV_ERR_NO_MEMORY;
	}
	return UVM_NV_OK;
}

void uvm_model_tools_va_space_init(uvm_va_space_t *vs)
{
	spin_lock_init(&vs->tools_lock);
	INIT_LIST_HEAD(&vs->trackers);
}

/* --- producing ---------------------------------------------------------- */

static bool needs_wakeup(struct tracker *t, u32 put, u32 get)
{
	return ((t->count + put - get) & (t->count - 1)) >= t->threshold;
}

/* The driver's enqueue: one free slot left means full, then a drop. */
static void enqueue(struct tracker *t, const u8 *entry)
{
	struct ut_ctrl *ctrl = t->ctrl.addr;
	u64 *dropped = (u64 *)((u8 *)ctrl + UT_CTRL_DROPPED_565);
	u32 mask = t->count - 1, get_behind, put, get;

	spin_lock(&t->lock);
	/* The control page is the caller's: its values cannot be trusted. */
	get_behind = READ_ONCE(ctrl->get_behind) & mask;
	put = READ_ONCE(ctrl->put_behind) & mask;
	if (((t->count + get_behind - put) & mask) == 1) {
		dropped[entry[0]]++;
		goto out;
	}
	memcpy((u8 *)t->buf.addr + (size_t)put * UT_ENTRY_SIZE, entry, UT_ENTRY_SIZE);
	put = (put + 1) & mask;
	/* Entry first, then the index the consumer acquires. */
	smp_store_release(&ctrl->put_ahead, put);
	smp_store_release(&ctrl->put_behind, put);
	get = READ_ONCE(ctrl->get_ahead);
	if (needs_wakeup(t, put, get) && !(t->wakeup_valid && t->wakeup_get == get)) {
		t->wakeup_valid = true;
		t->wakeup_get = get;
		wake_up_all(&t->wq);
	}
out:
	spin_unlock(&t->lock);
}

static void record(uvm_va_space_t *vs, const u8 *entry)
{
	struct tracker *t;

	spin_lock(&vs->tools_lock);
	list_for_each_entry(t, &vs->trackers, node)
		if (t->is_queue && (t->enabled & (1ULL << entry[0])))
			enqueue(t, entry);
	spin_unlock(&vs->tools_lock);
}

/* A GPU's tracker counts what the GPU being served does (the access's GPU). */
static bool counts_gpu(const struct tracker *t)
{
	const struct uvm_uuid g = { UVM_MODEL_GPU_UUID_I(uvm_model_fault_gpu) };

	return t->all_processors || !memcmp(&t->processor, &g, sizeof(t->processor));
}

static void count(uvm_va_space_t *vs, unsigned int ctr, u64 amount)
{
	struct tracker *t;

	spin_lock(&vs->tools_lock);
	list_for_each_entry(t, &vs->trackers, node)
		if (!t->is_queue && (t->enabled & (1ULL << ctr)) && counts_gpu(t))
			((u64 *)t->ctrl.addr)[ctr] += amount;
	spin_unlock(&vs->tools_lock);
}

static void put8(u8 *e, int off, u8 v) { e[off] = v; }
static void put16(u8 *e, int off, u16 v) { memcpy(e + off, &v, 2); }
static void put32(u8 *e, int off, u32 v) { memcpy(e + off, &v, 4); }
static void put64(u8 *e, int off, u64 v) { memcpy(e + off, &v, 8); }

/* Tools timestamps are the driver's NV_GETTIME: CLOCK_MONOTONIC_RAW. */
static u64 now(void)
{
	return ktime_get_raw_ns();
}

void uvm_model_tools_fault(uvm_va_space_t *vs, NvU64 va, bool write, bool duplicate,
			   NvU32 batch_id)
{
	/* A duplicate is reported with its fault's timestamp, as merged instances are. */
	static u64 last_ts;
	u8 e[UT_ENTRY_SIZE] = { 0 };

	if (!duplicate)
		last_ts = now();
	put8(e, 0, UT_EV_GPU_FAULT);
	put8(e, UT_GPU_FAULT_TYPE, UT_FAULT_TYPE_INVALID_PTE);
	/* the processor id of the GPU that faulted: sub-processor 0 of GPU i */
	put16(e, UT_GPU_FAULT_GPU_565, fault_proc());
	put64(e, UT_GPU_FAULT_ADDR, va);
	put64(e, UT_GPU_FAULT_TS, last_ts);
	put64(e, UT_GPU_FAULT_TS_GPU, last_ts);
	put32(e, UT_GPU_FAULT_BATCH, batch_id);
	put8(e, UT_GPU_FAULT_CLIENT_565, UT_CLIENT_GPC);
	put8(e, UT_GPU_FAULT_ACCESS_565, write ? UT_ACCESS_WRITE : UT_ACCESS_READ);
	record(vs, e);
	count(vs, UT_CTR_GPU_FAULTS, 1);
}

void uvm_model_tools_cpu_fault(uvm_va_space_t *vs, NvU64 va, bool write)
{
	u8 e[UT_ENTRY_SIZE] = { 0 };

	put8(e, 0, UT_EV_CPU_FAULT);
	put8(e, UT_CPU_FAULT_ACCESS, write ? UT_ACCESS_WRITE : UT_ACCESS_READ);
	put64(e, UT_CPU_FAULT_ADDR, va);
	put64(e, UT_CPU_FAULT_TS, now());
	put32(e, UT_CPU_FAULT_PID, task_tgid_nr(current));
	record(vs, e);
	count(vs, UT_CTR_CPU_FAULTS, 1);
}

static u8 tools_cause(uvm_make_resident_cause_t cause)
{
	switch (cause) {
	case UVM_MAKE_RESIDENT_CAUSE_REPLAYABLE_FAULT:
	case UVM_MAKE_RESIDENT_CAUSE_NON_REPLAYABLE_FAULT:
		return UT_CAUSE_COHERENCE;
	case UVM_MAKE_RESIDENT_CAUSE_PREFETCH:
		return UT_CAUSE_PREFETCH;
	case UVM_MAKE_RESIDENT_CAUSE_EVICTION:
		return UT_CAUSE_EVICTION;
	default:
		return UT_CAUSE_USER;
	}
}

void uvm_model_tools_migration(uvm_va_space_t *vs, NvU64 va, NvU64 bytes, bool to_gpu,
			       uvm_make_resident_cause_t cause, NvU64 begin_ns)
{
	u8 e[UT_ENTRY_SIZE] = { 0 };
	u64 t0 = now();

	put8(e, 0, UT_EV_MIGRATION);
	put8(e, UT_MIGRATION_CAUSE, tools_cause(cause));
	put16(e, UT_MIGRATION_SRC, to_gpu ? 0 : fault_proc());
	put16(e, UT_MIGRATION_DST, to_gpu ? fault_proc() : 0);
	put32(e, UT_MIGRATION_SRC_NID, to_gpu ? 0 : (u32)-1);
	put32(e, UT_MIGRATION_DST_NID, to_gpu ? (u32)-1 : 0);
	put64(e, UT_MIGRATION_ADDR, va);
	put64(e, UT_MIGRATION_BYTES, bytes);
	put64(e, UT_MIGRATION_BEGIN, t0);
	/* The copy engine at ~25 GB/s: 40 ps a byte, so latencies are not 0. */
	put64(e, UT_MIGRATION_END, t0 + bytes / 25 + 1);
	record(vs, e);
	count(vs, to_gpu ? UT_CTR_BYTES_HTOD : UT_CTR_BYTES_DTOH, bytes);
}

void uvm_model_tools_replay(uvm_va_space_t *vs, NvU32 batch_id)
{
	u8 e[UT_ENTRY_SIZE] = { 0 };

	put8(e, 0, UT_EV_GPU_FAULT_REPLAY);
	put8(e, 1, UT_CLIENT_GPC);
	put16(e, UT_REPLAY_GPU, MODEL_GPU_PROC);
	put32(e, UT_REPLAY_BATCH, batch_id);
	put64(e, UT_REPLAY_TS, now());
	record(vs, e);
}

void uvm_model_tools_eviction(uvm_va_space_t *vs, NvU64 va, NvU64 bytes)
{
	u8 e[UT_ENTRY_SIZE] = { 0 };

	put8(e, 0, UT_EV_EVICTION);
	put16(e, UT_EVICTION_SRC, MODEL_GPU_PROC);
	put16(e, UT_EVICTION_DST, 0);
	put64(e, UT_EVICTION_ADDR, va);
	put64(e, UT_EVICTION_ADDR_IN, va);
	put64(e, UT_EVICTION_BYTES, bytes);
	put64(e, UT_EVICTION_TS, now());
	record(vs, e);
}

void uvm_model_tools_thrashing(uvm_va_space_t *vs, NvU64 va, NvU64 bytes)
{
	u8 e[UT_ENTRY_SIZE] = { 0 };

	put8(e, 0, UT_EV_THRASHING);
	put64(e, UT_THRASHING_ADDR, va);
	put64(e, UT_THRASHING_BYTES, bytes);
	put64(e, UT_THRASHING_TS, now());
	/* The CPU and the GPU fight over it: processor ids 0 and 1. */
	put64(e, UT_THRASHING_PROCESSORS, (1ULL << 0) | (1ULL << MODEL_GPU_PROC));
	record(vs, e);
}

/* --- the device ------------------------------------------------------- */

static void tracker_unlist(struct tracker *t)
{
	spin_lock(&t->vs->tools_lock);
	if (t->listed)
		list_del(&t->node);
	t->listed = false;
	spin_unlock(&t->vs->tools_lock);
}

static void tracker_free(struct tracker *t)
{
	if (t->vs)
		tracker_unlist(t);
	unmap_user(&t->buf);
	unmap_user(&t->ctrl);
	if (t->uvm_file)
		fput(t->uvm_file);
	kfree(t);
}

static u32 init_tracker(struct file *filp, struct ut_init_params *p, bool v2)
{
	struct tracker *t = kzalloc(sizeof(*t), GFP_KERNEL);
	uvm_va_space_t *vs;
	u32 st;

	if (!t)
		return UVM_NV_ERR_NO_MEMORY;
	spin_lock_init(&t->lock);
	init_waitqueue_head(&t->wq);
	t->uvm_file = fget(p->uvm_fd);
	if (!t->uvm_file || !uvm_model_file_is_uvm(t->uvm_file)) {
		st = UVM_NV_ERR_INSUFFICIENT_PERMISSIONS;
		goto fail;
	}
	vs = t->uvm_file->private_data;
	if (!vs || !READ_ONCE(vs->initialized)) {
		st = UVM_NV_ERR_ILLEGAL_ACTION;
		goto fail;
	}
	t->is_queue = p->queue_buffer_size != 0;
	if (t->is_queue) {
		if (!v2) {
			/* 565+ ioctl 56 makes V1 queues (64-byte entries): not modelled. */
			st = UVM_NV_ERR_NOT_SUPPORTED;
			goto fail;
		}
		if (p->queue_buffer_size > UINT_MAX || p->queue_buffer_size < 2 ||
		    !is_power_of_2(p->queue_buffer_size)) {
			st = UVM_NV_ERR_INVALID_ARGUMENT;
			goto fail;
		}
		t->count = p->queue_buffer_size;
		t->threshold = t->count / 2;
		st = map_user(p->queue_buffer, (u64)t->count * UT_ENTRY_SIZE, &t->buf);
		if (st == UVM_NV_OK)
			st = map_user(p->control_buffer, UT_CTRL_DROPPED_565 + 8 * UT_EV_NUM_ALL,
				      &t->ctrl);
	} else {
		t->all_processors = p->all_processors;
		memcpy(&t->processor, p->processor, sizeof(t->processor));
		st = map_user(p->control_buffer, 8 * UT_CTR_TOTAL, &t->ctrl);
	}
	if (st != UVM_NV_OK)
		goto fail;
	if (cmpxchg(&filp->private_data, NULL, t)) {
		st = UVM_NV_ERR_INVALID_ARGUMENT;	/* this file has its tracker */
		goto fail;
	}
	t->vs = vs;
	return UVM_NV_OK;
fail:
	tracker_free(t);
	return st;
}

/* Events or counters on (set) or off in t's mask; listed while any is on. */
static u32 tracker_enable(struct tracker *t, u64 mask, bool set)
{
	spin_lock(&t->vs->tools_lock);
	if (set)
		t->enabled |= mask;
	else
		t->enabled &= ~mask;
	if (t->enabled && !t->listed)
		list_add_tail(&t->node, &t->vs->trackers);
	else if (!t->enabled && t->listed)
		list_del(&t->node);
	t->listed = t->enabled != 0;
	spin_unlock(&t->vs->tools_lock);
	return UVM_NV_OK;
}

static u32 set_threshold(struct tracker *t, u32 threshold)
{
	struct ut_ctrl *ctrl = t->ctrl.addr;

	spin_lock(&t->lock);
	t->threshold = threshold;
	if (needs_wakeup(t, READ_ONCE(ctrl->put_behind), READ_ONCE(ctrl->get_ahead)))
		wake_up_all(&t->wq);
	spin_unlock(&t->lock);
	return UVM_NV_OK;
}

/* Valid event masks: the driver's event types 1 .. UvmEventNumTypes - 1. */
#define VALID_EVENTS (((1ULL << UT_EV_NUM_TYPES) - 1) & ~1ULL)

static long tools_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct tracker *t = READ_ONCE(filp->private_data);
	union {
		struct ut_init_params init;
		struct ut_flags_params flags;
		struct ut_threshold_params th;
	} u;
	size_t size;
	u32 *status;

	switch (cmd) {
	case UT_IOC_INIT_EVENT_TRACKER:
	case UT_IOC_INIT_EVENT_TRACKER_V2:
		size = UT_INIT_PARAMS_565_SIZE;
		status = &u.init.rm_status;
		break;
	case UT_IOC_SET_NOTIFICATION_THRESHOLD:
		size = sizeof(u.th);
		status = &u.th.rm_status;
		break;
	case UT_IOC_ENABLE_EVENTS:
	case UT_IOC_DISABLE_EVENTS:
	case UT_IOC_ENABLE_COUNTERS:
	case UT_IOC_DISABLE_COUNTERS:
		size = sizeof(u.flags);
		status = &u.flags.rm_status;
		break;
	default:
		return -EINVAL;
	}
	memset(&u, 0, sizeof(u));
	if (copy_from_user(&u, uarg, size))
		return -EFAULT;

	switch (cmd) {
	case UT_IOC_INIT_EVENT_TRACKER:
	case UT_IOC_INIT_EVENT_TRACKER_V2:
		*status = init_tracker(filp, &u.init, cmd == UT_IOC_INIT_EVENT_TRACKER_V2);
		break;
	case UT_IOC_SET_NOTIFICATION_THRESHOLD:
		*status = t && t->is_queue ? set_threshold(t, u.th.threshold) :
			  UVM_NV_ERR_INVALID_ARGUMENT;
		break;
	case UT_IOC_ENABLE_EVENTS:
	case UT_IOC_DISABLE_EVENTS:
		if (!t || !t->is_queue ||
		    (cmd == UT_IOC_ENABLE_EVENTS && (u.flags.flags & ~VALID_EVENTS)))
			*status = UVM_NV_ERR_INVALID_ARGUMENT;
		else
			*status = tracker_enable(t, u.flags.flags, cmd == UT_IOC_ENABLE_EVENTS);
		break;
	default:	/* counters */
		if (!t || t->is_queue)
			*status = UVM_NV_ERR_INVALID_ARGUMENT;
		else
			*status = tracker_enable(t, u.flags.flags & ((1ULL << UT_CTR_TOTAL) - 1),
						 cmd == UT_IOC_ENABLE_COUNTERS);
	}
	return copy_to_user(uarg, &u, size) ? -EFAULT : 0;
}

static __poll_t tools_poll(struct file *filp, poll_table *wait)
{
	struct tracker *t = READ_ONCE(filp->private_data);
	struct ut_ctrl *ctrl;
	__poll_t flags = 0;

	if (!t || !t->is_queue)
		return EPOLLERR;
	poll_wait(filp, &t->wq, wait);
	spin_lock(&t->lock);
	t->wakeup_valid = false;
	ctrl = t->ctrl.addr;
	if (needs_wakeup(t, READ_ONCE(ctrl->put_behind), READ_ONCE(ctrl->get_ahead)))
		flags = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&t->lock);
	return flags;
}

static int tools_open(struct inode *inode, struct file *filp)
{
	filp->private_data = NULL;
	return 0;
}

static int tools_release(struct inode *inode, struct file *filp)
{
	if (filp->private_data)
		tracker_free(filp->private_data);
	return 0;
}

static const struct file_operations tools_fops = {
	.owner = THIS_MODULE,
	.open = tools_open,
	.release = tools_release,
	.unlocked_ioctl = tools_ioctl,
	.poll = tools_poll,
};

static struct miscdevice tools_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nvidia-uvm-tools",
	.fops = &tools_fops,
	.mode = 0666,	/* as the driver's: access is checked on the UVM fd */
};

/*
 * The device exists while the parameter tools_device is 1 (0 at load):
 * with /dev/nvidia-uvm-tools present gpuctl picks the uvm-tools trace
 * backend where bpf is unusable, so the tests of the other choices run
 * without it, and the tests of uvm-tools turn it on:
 *   echo 1 >/sys/module/uvm_model/parameters/tools_device
 */
static DEFINE_MUTEX(tools_dev_lock);
static bool tools_device, tools_registered, tools_loaded;

static int tools_device_apply(void)
{
	int ret = 0;

	if (tools_device && !tools_registered)
		ret = misc_register(&tools_dev);
	else if (!tools_device && tools_registered)
		misc_deregister(&tools_dev);
	if (!ret)
		tools_registered = tools_device;
	return ret;
}

static int tools_device_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&tools_dev_lock);
	tools_device = on;
	if (tools_loaded)
		ret = tools_device_apply();
	mutex_unlock(&tools_dev_lock);
	return ret;
}

static const struct kernel_param_ops tools_device_ops = {
	.set = tools_device_set,
	.get = param_get_bool,
};
module_param_cb(tools_device, &tools_device_ops, &tools_device, 0644);
MODULE_PARM_DESC(tools_device, "1: /dev/nvidia-uvm-tools exists (default 0)");

int uvm_model_tools_init(void)
{
	int ret;

	mutex_lock(&tools_dev_lock);
	tools_loaded = true;
	ret = tools_device_apply();
	mutex_unlock(&tools_dev_lock);
	return ret;
}

void uvm_model_tools_exit(void)
{
	mutex_lock(&tools_dev_lock);
	tools_device = false;
	tools_device_apply();
	tools_loaded = false;
	mutex_unlock(&tools_dev_lock);
}
