// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_model_uvmdev.c - the model's UVM device: /dev/nvidia-uvm, as the
 * driver names it (so gpuctl finds a process's UVM file in /proc/PID/fd
 * as on a GPU machine), and /dev/uvm_model, the same device under the
 * model's old name.  Each open is a va_space.
 *
 * Two ABIs share it, told apart by the request: the model's own ioctls
 * (_IO* numbers of type 'u', uvm_model_uapi.h: reset, accesses, stats...)
 * and the 580 driver's bare numbers (cmd/drv/uvm_ioctl.h): UVM_INITIALIZE,
 * UVM_MIGRATE, the range hints, the processor UUID table, FLUSH_EVENTS.
 * Those answer as the driver does: 0 from ioctl(2) and an NV_STATUS in
 * the parameters, NV_ERR_ILLEGAL_ACTION before UVM_INITIALIZE.
 *
 * Managed memory is what a process maps of an initialized fd at offset ==
 * address, shared and writable, as CUDA maps each managed allocation (the
 * mappings show as /dev/nvidia-uvm in /proc/PID/maps).  Model limits: the
 * range sits at UVM_MODEL_VA_BASE in every process (mappings elsewhere, or
 * past the model's va_blocks, fail: EINVAL), up to UVM_MODEL_MAX_MAPS
 * mappings per va_space, never split; the CPU cannot touch the pages
 * (SIGBUS).
 *
 * What the calls do to the model's GPU: UVM_MIGRATE makes pages resident
 * (evicting as faults do) or sends them back; accessed-by the GPU maps
 * pages remotely (no faults, no migrations); a CPU preferred location
 * makes the GPU's faults map the pages remotely instead of migrating them
 * (and keeps them out of prefetches); a GPU preferred location and read
 * duplication are recorded (counted in the stats) and change nothing, as
 * for a single GPU that faults its data in anyway.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "uvm_model.h"
#include "uvm_model_events.h"
#include "uvm_ioctl.h"

/* GPU i's UUID: UVM_MODEL_GPU_UUID_I(i) */
static struct uvm_uuid gpu_uuid(unsigned int i)
{
	const struct uvm_uuid u = { UVM_MODEL_GPU_UUID_I(i) };

	return u;
}
static const struct uvm_uuid cpu_uuid = { UVM_CPU_UUID_BYTES };

/* The RM side owns the parameter (gpus=N); without it, two GPUs. */
unsigned int __weak uvm_model_gpus = 2;
unsigned int uvm_model_fault_gpu;

unsigned int uvm_model_ngpus(void)
{
	return clamp_t(unsigned int, uvm_model_gpus, 1, UVM_MODEL_MAX_GPUS);
}

/* UVM_INITIALIZE flags the driver knows: multi-process sharing, disable HMM. */
#define INIT_FLAGS_ALL 0x6ULL

enum proc { PROC_NONE, PROC_CPU, PROC_GPU };

enum uvm_model_hint {
	UVM_MODEL_HINT_ACCESSED_BY,
	UVM_MODEL_HINT_READ_DUP,
	UVM_MODEL_HINT_PREFERRED_GPU,
	UVM_MODEL_HINT_PREFERRED_CPU,
};

/* CPU, a GPU (its index into *gpu when gpu is not NULL), or none of the model's. */
static enum proc proc_gpu_of(const struct uvm_uuid *u, unsigned int *gpu)
{
	unsigned int i;

	for (i = 0; i < uvm_model_ngpus(); i++) {
		struct uvm_uuid g = gpu_uuid(i);

		if (!memcmp(u, &g, sizeof(*u))) {
			if (gpu)
				*gpu = i;
			return PROC_GPU;
		}
	}
	if (!memcmp(u, &cpu_uuid, sizeof(*u)))
		return PROC_CPU;
	return PROC_NONE;
}

static enum proc proc_of(const struct uvm_uuid *u)
{
	return proc_gpu_of(u, NULL);
}

/* The mapping of vs that holds va, or -1; under vs->tools_lock. */
static int map_find(uvm_va_space_t *vs, u64 va)
{
	NvU32 i;

	for (i = 0; i < vs->nmaps; i++)
		if (va >= vs->maps[i].start && va < vs->maps[i].end)
			return i;
	return -1;
}

/*
 * [base, base + length) as pages of the model's range: 0, or
 * NV_ERR_INVALID_ADDRESS for a bad range (unaligned, empty, overflowing,
 * at 0) or one that is not all managed memory of this va_space.
 */
static u32 range_pages(uvm_va_space_t *vs, u64 base, u64 length, u64 *first, u64 *n)
{
	u64 end = base + length, limit, va;
	int i;

	if (!base || !length || ((base | length) & (UVM_PAGE_SIZE_4K - 1)) || end < base)
		return UVM_NV_ERR_INVALID_ADDRESS;
	limit = UVM_MODEL_VA_BASE + ((u64)model.cfg.va_blocks << UVM_MODEL_BLOCK_SHIFT);
	if (!model.blocks || base < UVM_MODEL_VA_BASE || end > limit)
		return UVM_NV_ERR_INVALID_ADDRESS;
	/*
	 * Managed ranges may adjoin: covered without a gap is enough.  The
	 * maps are under tools_lock, not model.lock: mmap() holds mmap_lock,
	 * and model.lock is held across user copies that fault.
	 */
	spin_lock(&vs->tools_lock);
	for (va = base; va < end; va = vs->maps[i].end) {
		i = map_find(vs, va);
		if (i < 0)
			break;
	}
	spin_unlock(&vs->tools_lock);
	if (va < end)
		return UVM_NV_ERR_INVALID_ADDRESS;
	*first = (base - UVM_MODEL_VA_BASE) >> UVM_MODEL_PAGE_SHIFT;
	*n = length >> UVM_MODEL_PAGE_SHIFT;
	return UVM_NV_OK;
}

/* Read duplication, preferred location, accessed-by: one page mask each. */
static void set_hint(enum uvm_model_hint hint, NvU64 first, NvU64 n, bool set)
{
	NvU64 p = first, end = first + n;

	while (p < end) {
		NvU64 b = p / PAGES;
		unsigned int f = p % PAGES, outer = min_t(NvU64, PAGES, end - b * PAGES);
		uvm_va_block_t *blk = &model.blocks[b];
		uvm_page_mask_t *m[] = {
			[UVM_MODEL_HINT_ACCESSED_BY] = &blk->accessed_by,
			[UVM_MODEL_HINT_READ_DUP] = &blk->read_dup,
			[UVM_MODEL_HINT_PREFERRED_GPU] = &blk->preferred_gpu,
			[UVM_MODEL_HINT_PREFERRED_CPU] = &blk->preferred_cpu,
		};

		if (set)
			bitmap_set(m[hint]->bitmap, f, outer - f);
		else
			bitmap_clear(m[hint]->bitmap, f, outer - f);
		p = (b + 1) * PAGES;
	}
}

static u32 api_initialize(uvm_va_space_t *vs, struct uvm_initialize_params *p)
{
	if (p->flags & ~INIT_FLAGS_ALL)
		return UVM_NV_ERR_INVALID_ARGUMENT;
	if (vs->initialized)
		return p->flags == vs->init_flags ? UVM_NV_OK : UVM_NV_ERR_INVALID_ARGUMENT;
	vs->init_flags = p->flags;
	WRITE_ONCE(vs->initialized, true);
	return UVM_NV_OK;
}

/*
 * cfg.migrate_us: a UVM_MIGRATE call takes that long before it moves
 * anything, outside model.lock, as the driver's calls for different
 * blocks run at once; how many did at once is counted.
 */
static void migrate_delay(void)
{
	u32 us = READ_ONCE(model.cfg.migrate_us);
	u64 now;

	if (!us)
		return;
	now = atomic_inc_return(&model.migrating);
	mutex_lock(&model.lock);
	if (now > model.stats.migrations_at_once_max)
		model.stats.migrations_at_once_max = now;
	mutex_unlock(&model.lock);
	if (us >= 20000)
		msleep(us / 1000);
	else
		usleep_range(us, us + us / 10 + 1);
	atomic_dec(&model.migrating);
}

/* The checks in the driver's order (uvm_api_migrate). */
static u32 api_migrate(uvm_va_space_t *vs, struct uvm_migrate_params *p)
{
	bool sync = !(p->flags & UVM_MIGRATE_FLAG_ASYNC);
	unsigned int gpu = 0;
	enum proc dst;
	u64 first, n;
	u32 st;

	if ((p->length || sync || !p->semaphore_address) &&
	    (!p->base || !p->length || ((p->base | p->length) & (UVM_PAGE_SIZE_4K - 1)) ||
	     p->base + p->length < p->base))
		return UVM_NV_ERR_INVALID_ADDRESS;
	/* The test flags need uvm_enable_builtin_tests, which the model has not. */
	if (p->flags & ~UVM_MIGRATE_FLAG_ASYNC)
		return UVM_NV_ERR_INVALID_ARGUMENT;
	if (sync && p->semaphore_address)
		return UVM_NV_ERR_INVALID_ARGUMENT;
	if (!sync && !p->semaphore_address && p->semaphore_payload)
		return UVM_NV_ERR_INVALID_ARGUMENT;
	if (!sync && p->semaphore_address && !IS_ALIGNED(p->semaphore_address, 4))
		return UVM_NV_ERR_INVALID_ADDRESS;
	dst = proc_gpu_of(&p->destination, &gpu);
	if (dst == PROC_NONE)
		return UVM_NV_ERR_INVALID_DEVICE;
	if (dst == PROC_CPU && p->cpu_numa_node != -1 && p->cpu_numa_node != 0)
		return UVM_NV_ERR_INVALID_ARGUMENT;
	if (!p->length)
		return UVM_NV_OK;
	st = range_pages(vs, p->base, p->length, &first, &n);
	if (st)
		return st;
	/*
	 * The model copies at once: an async migration is done when the call
	 * returns, and its semaphore (in the caller's memory) is released then.
	 */
	uvm_model_migrate_pages(first, n, dst == PROC_GPU, gpu);
	if (!sync && p->semaphore_address &&
	    put_user(p->semaphore_payload, (u32 __user *)u64_to_user_ptr(p->semaphore_address)))
		return UVM_NV_ERR_INVALID_ADDRESS;
	return UVM_NV_OK;
}

static u32 api_preferred(uvm_va_space_t *vs, struct uvm_set_preferred_location_params *p,
			 bool set)
{
	enum proc where = set ? proc_of(&p->location) : PROC_NONE;
	u64 first, n;
	u32 st = range_pages(vs, p->base, p->length, &first, &n);

	if (st)
		return st;
	if (set && where == PROC_NONE)
		return UVM_NV_ERR_INVALID_DEVICE;
	if (where == PROC_CPU && p->cpu_numa_node != -1 && p->cpu_numa_node != 0)
		return UVM_NV_ERR_INVALID_ARGUMENT;
	set_hint(UVM_MODEL_HINT_PREFERRED_GPU, first, n, where == PROC_GPU);
	set_hint(UVM_MODEL_HINT_PREFERRED_CPU, first, n, where == PROC_CPU);
	return UVM_NV_OK;
}

static u32 api_accessed_by(uvm_va_space_t *vs, struct uvm_accessed_by_params *p, bool set)
{
	enum proc who = proc_of(&p->processor);
	u64 first, n;
	u32 st = range_pages(vs, p->base, p->length, &first, &n);

	if (st)
		return st;
	if (who == PROC_NONE)
		return UVM_NV_ERR_INVALID_DEVICE;
	/* The CPU maps what it accesses anyway: only the GPU's is modelled. */
	if (who == PROC_GPU)
		set_hint(UVM_MODEL_HINT_ACCESSED_BY, first, n, set);
	return UVM_NV_OK;
}

static u32 api_read_dup(uvm_va_space_t *vs, struct uvm_range_params *p, bool enable)
{
	u64 first, n;
	u32 st = range_pages(vs, p->base, p->length, &first, &n);

	if (!st)
		set_hint(UVM_MODEL_HINT_READ_DUP, first, n, enable);
	return st;
}

/* Indexed by processor id value: V1 by parent GPU, V2 by GPU; GPU 0 is 1 in both. */
static u32 api_uuid_table(struct uvm_uuid_table_params *p, unsigned int entries)
{
	size_t bytes = entries * sizeof(struct uvm_uuid);
	struct uvm_uuid *t = kzalloc(bytes, GFP_KERNEL);
	u32 st = UVM_NV_OK;
	unsigned int i;

	if (!t)
		return UVM_NV_ERR_NO_MEMORY;
	t[0] = cpu_uuid;
	/* V1: a slot per parent GPU; V2: UVM_SUB_PROCESSORS per GPU (sub-processor 0 is the GPU) */
	for (i = 0; i < uvm_model_ngpus(); i++)
		t[1 + i * (entries == UVM_MAX_PROCESSORS_V1 ? 1 : UVM_SUB_PROCESSORS)] = gpu_uuid(i);
	if (copy_to_user(u64_to_user_ptr(p->table), t, bytes))
		st = UVM_NV_ERR_INVALID_ADDRESS;
	kfree(t);
	return st;
}

/* Size of each request's parameters, 0 for requests the model does not serve. */
static size_t params_size(unsigned int cmd)
{
	switch (cmd) {
	case UVM_INITIALIZE: return sizeof(struct uvm_initialize_params);
	case UVM_MIGRATE: return sizeof(struct uvm_migrate_params);
	case UVM_SET_PREFERRED_LOCATION: return sizeof(struct uvm_set_preferred_location_params);
	case UVM_UNSET_PREFERRED_LOCATION:
	case UVM_ENABLE_READ_DUPLICATION:
	case UVM_DISABLE_READ_DUPLICATION: return sizeof(struct uvm_range_params);
	case UVM_SET_ACCESSED_BY:
	case UVM_UNSET_ACCESSED_BY: return sizeof(struct uvm_accessed_by_params);
	case UVM_TOOLS_GET_PROCESSOR_UUID_TABLE:
	case UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2: return sizeof(struct uvm_uuid_table_params);
	case UVM_TOOLS_FLUSH_EVENTS: return sizeof(struct uvm_flush_events_params);
	default: return 0;
	}
}

static u32 api_call(struct file *file, uvm_va_space_t *vs, unsigned int cmd, void *u)
{
	if (cmd == UVM_INITIALIZE)
		return api_initialize(vs, u);
	if (!vs->initialized)
		return UVM_NV_ERR_ILLEGAL_ACTION;
	switch (cmd) {
	case UVM_MIGRATE:
		return api_migrate(vs, u);
	case UVM_SET_PREFERRED_LOCATION:
		return api_preferred(vs, u, true);
	case UVM_UNSET_PREFERRED_LOCATION: {
		struct uvm_range_params *r = u;
		struct uvm_set_preferred_location_params p = { .base = r->base, .length = r->length };

		return api_preferred(vs, &p, false);
	}
	case UVM_SET_ACCESSED_BY:
	case UVM_UNSET_ACCESSED_BY:
		return api_accessed_by(vs, u, cmd == UVM_SET_ACCESSED_BY);
	case UVM_ENABLE_READ_DUPLICATION:
	case UVM_DISABLE_READ_DUPLICATION:
		return api_read_dup(vs, u, cmd == UVM_ENABLE_READ_DUPLICATION);
	case UVM_TOOLS_GET_PROCESSOR_UUID_TABLE:
		return api_uuid_table(u, UVM_MAX_PROCESSORS_V1);
	case UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2:
		return api_uuid_table(u, UVM_MAX_PROCESSORS_V2);
	default:	/* UVM_TOOLS_FLUSH_EVENTS: the model queues events at once */
		return UVM_NV_OK;
	}
}

/* Where the NV_STATUS lives in each request's parameters. */
static u32 *status_of(unsigned int cmd, void *u)
{
	switch (cmd) {
	case UVM_INITIALIZE: return &((struct uvm_initialize_params *)u)->rm_status;
	case UVM_MIGRATE: return &((struct uvm_migrate_params *)u)->rm_status;
	case UVM_SET_PREFERRED_LOCATION:
		return &((struct uvm_set_preferred_location_params *)u)->rm_status;
	case UVM_SET_ACCESSED_BY:
	case UVM_UNSET_ACCESSED_BY: return &((struct uvm_accessed_by_params *)u)->rm_status;
	case UVM_TOOLS_GET_PROCESSOR_UUID_TABLE:
	case UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2:
		return &((struct uvm_uuid_table_params *)u)->rm_status;
	case UVM_TOOLS_FLUSH_EVENTS: return &((struct uvm_flush_events_params *)u)->rm_status;
	default: return &((struct uvm_range_params *)u)->rm_status;
	}
}

static long uvm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	uvm_va_space_t *vs = file->private_data;
	union {
		struct uvm_initialize_params init;
		struct uvm_migrate_params migrate;
		struct uvm_set_preferred_location_params pref;
		struct uvm_range_params range;
		struct uvm_accessed_by_params by;
		struct uvm_uuid_table_params table;
		struct uvm_flush_events_params flush;
	} u;
	size_t size;

	if (_IOC_TYPE(cmd) == UVM_MODEL_IOC_MAGIC)
		return uvm_model_ioctl(file, cmd, arg);
	size = params_size(cmd);
	if (!size)
		return -EINVAL;
	if (copy_from_user(&u, uarg, size))
		return -EFAULT;
	if (cmd == UVM_MIGRATE)
		migrate_delay();
	mutex_lock(&model.lock);
	uvm_model_ev_current(file);	/* events of a migration are this va_space's */
	*status_of(cmd, &u) = api_call(file, vs, cmd, &u);
	mutex_unlock(&model.lock);
	return copy_to_user(uarg, &u, size) ? -EFAULT : 0;
}

/* --- the managed range: mmap ------------------------------------------- */

static vm_fault_t range_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;	/* CPU access is not modelled */
}

static int range_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static void range_close(struct vm_area_struct *vma)
{
	uvm_va_space_t *vs = vma->vm_file->private_data;
	int i;

	spin_lock(&vs->tools_lock);
	i = map_find(vs, vma->vm_start);
	if (i >= 0)
		vs->maps[i] = vs->maps[--vs->nmaps];
	spin_unlock(&vs->tools_lock);
}

static const struct vm_operations_struct range_ops = {
	.fault = range_fault,
	.may_split = range_may_split,
	.close = range_close,
};

static int uvm_mmap(struct file *file, struct vm_area_struct *vma)
{
	uvm_va_space_t *vs = file->private_data;
	u64 window = (u64)UVM_MODEL_MAX_BLOCKS << UVM_MODEL_BLOCK_SHIFT;
	int ret = 0;

	if (!READ_ONCE(vs->initialized))
		return -EBADFD;
	/* As the driver: offset == address, shared, readable and writable. */
	if (vma->vm_start != (vma->vm_pgoff << PAGE_SHIFT))
		return -EINVAL;
	if ((vma->vm_flags & (VM_SHARED | VM_READ | VM_WRITE)) != (VM_SHARED | VM_READ | VM_WRITE))
		return -EINVAL;
	if (vma->vm_start < UVM_MODEL_VA_BASE || vma->vm_end > UVM_MODEL_VA_BASE + window)
		return -EINVAL;	/* the model's limit */
	spin_lock(&vs->tools_lock);
	if (vs->nmaps == UVM_MODEL_MAX_MAPS) {
		ret = -ENOMEM;
	} else {
		vs->maps[vs->nmaps].start = vma->vm_start;
		vs->maps[vs->nmaps].end = vma->vm_end;
		vs->nmaps++;
	}
	spin_unlock(&vs->tools_lock);
	if (ret)
		return ret;
	vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTCOPY | VM_DONTDUMP);
	vma->vm_ops = &range_ops;
	return 0;
}

static int uvm_open(struct inode *inode, struct file *file)
{
	return uvm_model_ev_open(file);	/* a va_space per open, as nvidia-uvm */
}

static int uvm_release(struct inode *inode, struct file *file)
{
	mutex_lock(&model.lock);
	uvm_model_ev_release(file);
	mutex_unlock(&model.lock);
	return 0;
}

static const struct file_operations uvm_fops = {
	.owner = THIS_MODULE,
	.open = uvm_open,
	.release = uvm_release,
	.unlocked_ioctl = uvm_ioctl,
	.mmap = uvm_mmap,
};

bool uvm_model_file_is_uvm(struct file *file)
{
	return file->f_op == &uvm_fops;
}

static struct miscdevice uvm_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nvidia-uvm",
	.fops = &uvm_fops,
	.mode = 0666,	/* as the driver's */
};

static struct miscdevice alias_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "uvm_model",
	.fops = &uvm_fops,
	.mode = 0600,
};

int uvm_model_uvmdev_init(void)
{
	int ret = misc_register(&uvm_dev);

	if (ret)
		return ret;
	ret = misc_register(&alias_dev);
	if (ret)
		misc_deregister(&uvm_dev);
	return ret;
}

void uvm_model_uvmdev_exit(void)
{
	misc_deregister(&alias_dev);
	misc_deregister(&uvm_dev);
}
