// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_model_rm.c - /dev/uvm_model_rm: a character device speaking the subset
 * of NVIDIA's RM escape ABI that gpuctl sched uses, with the real ioctl
 * numbers and struct sizes (cmd/drv/rm.h):
 *   NV_ESC_RM_ALLOC (NVOS21 and NVOS64 forms): clients (NV01_ROOT*),
 *     devices/subdevices, TSGs (KEPLER_CHANNEL_GROUP_A, default timeslice
 *     1024 us, interleave medium);
 *   NV_ESC_RM_FREE: an object, or a whole client;
 *   NV_ESC_RM_CONTROL: GET/SET_TIMESLICE, GET/SET_INTERLEAVE_LEVEL, PREEMPT,
 *     GPFIFO_SCHEDULE (a TSG on or off its runlist: rm_tsgs_off counts those
 *     off, rm_schedule_calls the calls, both read-only parameters for tests);
 *   channels (HOPPER_CHANNEL_GPFIFO_A under a TSG) and, on a subdevice,
 *     FIFO_DISABLE_CHANNELS of the caller's own channels (rm_channels_off);
 *     GET_HANDLE_INFO (parent, class) on the client object;
 *   NV_ESC_IOCTL_XFER_CMD wrapping any of them;
 *   the model's GPUs (uvm_model_rm_gpu.c): the client object's GPU controls,
 *     a device's GPU from its allocation parameters (deviceId), inherited by
 *     its subdevices, TSGs and channels; a subdevice's GPU controls;
 *     NV_ESC_ATTACH_GPUS_TO_FD accepted.
 * RM's ownership rule holds: a client answers only through the open file
 * that allocated it (NV_ERR_INVALID_CLIENT otherwise), so a second opener
 * fails and pidfd_getfd() of the owner's file succeeds, as on the real driver.
 * Like RM, the ioctl returns 0 and reports RM errors in the struct's status.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "../../cmd/drv/rm.h"
#include "../../cmd/drv/rm_gpu.h"
#include "uvm_model_rm.h"

#define NV01_ROOT		0x0000
#define NV01_ROOT_NON_PRIV	0x0001
#define NV_ERR_INSERT_DUPLICATE_NAME 0x19

/*
 * Timeslices: RM of the 580 driver on the H200 accepted (and read back) every
 * value tried from 1 us to 10^12 us.  The model accepts any value >= 1 unless
 * rm_timeslice_max is set: tests set it to provoke an RM refusal
 * (NV_ERR_NOT_SUPPORTED, which RM uses for timeslices below its minimum).
 */
#define MODEL_TIMESLICE_MIN	1ULL
static unsigned long long rm_timeslice_max;
module_param(rm_timeslice_max, ullong, 0644);
MODULE_PARM_DESC(rm_timeslice_max, "refuse longer timeslices (0: no limit, as measured)");

struct rm_obj {
	struct list_head node;
	u32 h, parent, cls;
	int gpu;		/* the model's GPU it belongs to */
	u64 timeslice;
	u32 level;
	u32 preempts;
	bool off;		/* GPFIFO_SCHEDULE bEnable=0: off its runlist */
};

/*
 * What tests read of GPFIFO_SCHEDULE (RM has no control that reports it):
 * the TSGs now off their runlist, of all clients, and the calls taken.
 * Freeing a TSG that is off takes it out of the count, as RM frees it.
 */
static int rm_tsgs_off;
module_param(rm_tsgs_off, int, 0444);
MODULE_PARM_DESC(rm_tsgs_off, "TSGs now off their runlist (GPFIFO_SCHEDULE bEnable=0)");
static int rm_channels_off;
module_param(rm_channels_off, int, 0444);
MODULE_PARM_DESC(rm_channels_off, "channels now disabled (FIFO_DISABLE_CHANNELS)");
static unsigned int rm_schedule_calls;
module_param(rm_schedule_calls, uint, 0444);
MODULE_PARM_DESC(rm_schedule_calls, "GPFIFO_SCHEDULE controls taken");

struct rm_client {
	struct list_head node;
	struct list_head objs;
	struct file *owner;
	u32 h;
	u32 next;
};

/*
 * RM of the 580 driver answers GET_INTERLEAVE_LEVEL on a TSG with
 * NV_ERR_NOT_SUPPORTED (measured on the H200); so does the model unless
 * rm_get_interleave=1 (tests use it to check what was applied).
 */
static bool rm_get_interleave;
module_param(rm_get_interleave, bool, 0644);
MODULE_PARM_DESC(rm_get_interleave, "answer GET_INTERLEAVE_LEVEL (the 580 driver does not)");

/*
 * Tests of gpuctl sched run killed half-way set this: every SET_TIMESLICE
 * and SET_INTERLEAVE_LEVEL control then waits this long before RM takes it,
 * so a SIGKILL can land between two changes.
 */
static unsigned int rm_set_delay_ms;
module_param(rm_set_delay_ms, uint, 0644);
MODULE_PARM_DESC(rm_set_delay_ms, "delay every SET_* control by this many ms (tests)");

static LIST_HEAD(rm_clients);
static DEFINE_MUTEX(rm_lock);
static u32 rm_next_client;

static struct rm_client *client_find(u32 h)
{
	struct rm_client *c;

	list_for_each_entry(c, &rm_clients, node)
		if (c->h == h)
			return c;
	return NULL;
}

static struct rm_obj *obj_find(struct rm_client *c, u32 h)
{
	struct rm_obj *o;

	list_for_each_entry(o, &c->objs, node)
		if (o->h == h)
			return o;
	return NULL;
}

static void client_destroy(struct rm_client *c)
{
	struct rm_obj *o, *t;

	list_for_each_entry_safe(o, t, &c->objs, node) {
		if (o->cls == HOPPER_CHANNEL_GPFIFO_A)
			rm_channels_off -= o->off;
		else
			rm_tsgs_off -= o->off;
		list_del(&o->node);
		kfree(o);
	}
	list_del(&c->node);
	kfree(c);
}

/* The client, when file may speak for it; NULL (INVALID_CLIENT) otherwise. */
static struct rm_client *client_of(struct file *file, u32 h)
{
	struct rm_client *c = client_find(h);

	return c && c->owner == file ? c : NULL;
}

static u32 do_alloc(struct file *file, u32 hRoot, u32 hParent, u32 *hNew, u32 cls,
		    const void __user *params, u32 psize)
{
	struct rm_client *c;
	struct rm_obj *o, *par;
	int gpu = 0;

	if (cls == NV01_ROOT || cls == NV01_ROOT_NON_PRIV || cls == NV01_ROOT_CLIENT) {
		u32 h = *hNew ? *hNew : 0xc1d00000 | (++rm_next_client & 0xffff);

		if (client_find(h))
			return NV_ERR_INSERT_DUPLICATE_NAME;
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return NV_ERR_NO_MEMORY;
		INIT_LIST_HEAD(&c->objs);
		c->owner = file;
		c->h = h;
		list_add_tail(&c->node, &rm_clients);
		*hNew = h;
		return NV_OK;
	}
	c = client_of(file, hRoot);
	if (!c)
		return NV_ERR_INVALID_CLIENT;
	par = hParent == c->h ? NULL : obj_find(c, hParent);
	if (hParent != c->h && !par)
		return NV_ERR_INVALID_OBJECT_PARENT;
	if (cls == NV01_DEVICE_0) {
		gpu = rm_gpu_of_device_alloc(params, psize);
		if (gpu < 0)
			return NV_ERR_INVALID_ARGUMENT;
	} else if (par) {
		gpu = par->gpu;
	}
	if (cls != NV01_DEVICE_0 && cls != NV20_SUBDEVICE_0 &&
	    cls != KEPLER_CHANNEL_GROUP_A && cls != HOPPER_CHANNEL_GPFIFO_A)
		return NV_ERR_INVALID_CLASS;
	if (*hNew && (*hNew == c->h || obj_find(c, *hNew)))
		return NV_ERR_INSERT_DUPLICATE_NAME;
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return NV_ERR_NO_MEMORY;
	/* one numbering for all of a client's objects, as CUDA's handles */
	o->h = *hNew ? *hNew : 0x5c000000 | (++c->next & 0xffff);
	o->parent = hParent;
	o->cls = cls;
	o->gpu = gpu;
	o->timeslice = 1024;
	o->level = 1;
	list_add_tail(&o->node, &c->objs);
	*hNew = o->h;
	return NV_OK;
}

static u32 do_free(struct file *file, u32 hRoot, u32 hObj)
{
	struct rm_client *c = client_of(file, hRoot);
	struct rm_obj *o;

	if (!c)
		return NV_ERR_INVALID_CLIENT;
	if (hObj == c->h) {
		client_destroy(c);
		return NV_OK;
	}
	o = obj_find(c, hObj);
	if (!o)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	if (o->cls == HOPPER_CHANNEL_GPFIFO_A)
		rm_channels_off -= o->off;
	else
		rm_tsgs_off -= o->off;
	list_del(&o->node);
	kfree(o);
	return NV_OK;
}

/* GET_HANDLE_INFO on the client: the parent or the class of one of its objects. */
static u32 handle_info(struct rm_client *c, struct nvos54_params *p, void __user *up)
{
	struct rm_handle_info hi;
	struct rm_obj *o;

	if (p->paramsSize != sizeof(hi) || !up)
		return NV_ERR_INVALID_PARAM_STRUCT;
	if (copy_from_user(&hi, up, sizeof(hi)))
		return NV_ERR_INVALID_POINTER;
	o = obj_find(c, hi.hObject);
	if (!o)
		return NV_ERR_OBJECT_NOT_FOUND;
	if (hi.index == NV0000_HANDLE_INFO_PARENT)
		hi.data = o->parent;
	else if (hi.index == NV0000_HANDLE_INFO_CLASSID)
		hi.data = o->cls;
	else
		return NV_ERR_INVALID_ARGUMENT;
	return copy_to_user(up, &hi, sizeof(hi)) ? NV_ERR_INVALID_POINTER : NV_OK;
}

/*
 * FIFO_DISABLE_CHANNELS on a subdevice of c.  The model's ownership rule:
 * every listed channel must be c's own (through c's file), as gpuctl
 * issues it; what RM does with other clients' channels is not modelled.
 */
static u32 disable_channels(struct rm_client *c, struct nvos54_params *p, void __user *up)
{
	struct rm_disable_channels *d;
	u32 st = NV_OK;

	if (p->paramsSize != sizeof(*d) || !up)
		return NV_ERR_INVALID_PARAM_STRUCT;
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NV_ERR_NO_MEMORY;
	if (copy_from_user(d, up, sizeof(*d))) {
		st = NV_ERR_INVALID_POINTER;
		goto out;
	}
	if (d->numChannels > RM_DISABLE_CHANNELS_MAX || d->pRunlistPreemptEvent) {
		st = d->pRunlistPreemptEvent ? NV_ERR_INSUFFICIENT_PERMISSIONS :
		     NV_ERR_INVALID_ARGUMENT;
		goto out;
	}
	for (u32 i = 0; i < d->numChannels; i++) {	/* all checked before any change */
		struct rm_obj *ch = obj_find(c, d->hChannelList[i]);

		if (d->hClientList[i] != c->h) {
			st = NV_ERR_INVALID_CLIENT;
			goto out;
		}
		if (!ch || ch->cls != HOPPER_CHANNEL_GPFIFO_A) {
			st = NV_ERR_INVALID_OBJECT_HANDLE;
			goto out;
		}
	}
	for (u32 i = 0; i < d->numChannels; i++) {
		struct rm_obj *ch = obj_find(c, d->hChannelList[i]);

		if (ch->off != !!d->bDisable) {
			ch->off = !!d->bDisable;
			rm_channels_off += ch->off ? 1 : -1;
		}
	}
	rm_schedule_calls++;
out:
	kfree(d);
	return st;
}

static u32 do_control(struct file *file, struct nvos54_params *p)
{
	void __user *up = u64_to_user_ptr(p->params);
	struct rm_client *c = client_of(file, p->hClient);
	struct rm_obj *o;
	u32 want;

	if (!c)
		return NV_ERR_INVALID_CLIENT;
	if (p->hObject == c->h && p->cmd == NV0000_CTRL_CMD_CLIENT_GET_HANDLE_INFO)
		return handle_info(c, p, up);
	if (p->hObject == c->h)
		return rm_gpu_client_control(p->cmd, p->paramsSize, up);
	o = obj_find(c, p->hObject);
	if (!o)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	if ((p->cmd >> 16) == KEPLER_CHANNEL_GROUP_A && o->cls != KEPLER_CHANNEL_GROUP_A)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	if (p->cmd == NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS)
		return o->cls == NV20_SUBDEVICE_0 ? disable_channels(c, p, up) :
		       NV_ERR_INVALID_OBJECT_HANDLE;
	if ((p->cmd >> 16) == NV20_SUBDEVICE_0)
		return o->cls == NV20_SUBDEVICE_0 ?
		       rm_gpu_subdev_control(o->gpu, p->cmd, p->paramsSize, up) :
		       NV_ERR_INVALID_OBJECT_HANDLE;

	switch (p->cmd) {
	case NVA06C_CTRL_CMD_SET_TIMESLICE:
	case NVA06C_CTRL_CMD_GET_TIMESLICE:
		want = sizeof(struct a06c_timeslice);
		break;
	case NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL:
	case NVA06C_CTRL_CMD_GET_INTERLEAVE_LEVEL:
		want = sizeof(struct a06c_interleave);
		break;
	case NVA06C_CTRL_CMD_PREEMPT:
		want = sizeof(struct a06c_preempt);
		break;
	case NVA06C_CTRL_CMD_GPFIFO_SCHEDULE:
		want = sizeof(struct a06c_schedule);
		break;
	default:
		return NV_ERR_NOT_SUPPORTED;
	}
	if (p->paramsSize != want || !up)
		return NV_ERR_INVALID_PARAM_STRUCT;

	switch (p->cmd) {
	case NVA06C_CTRL_CMD_SET_TIMESLICE: {
		struct a06c_timeslice t;

		if (copy_from_user(&t, up, sizeof(t)))
			return NV_ERR_INVALID_POINTER;
		if (t.timesliceUs < MODEL_TIMESLICE_MIN ||
		    (rm_timeslice_max && t.timesliceUs > rm_timeslice_max))
			return NV_ERR_NOT_SUPPORTED;
		o->timeslice = t.timesliceUs;
		return NV_OK;
	}
	case NVA06C_CTRL_CMD_GET_TIMESLICE: {
		struct a06c_timeslice t = { .timesliceUs = o->timeslice };

		return copy_to_user(up, &t, sizeof(t)) ? NV_ERR_INVALID_POINTER : NV_OK;
	}
	case NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL: {
		struct a06c_interleave l;

		if (copy_from_user(&l, up, sizeof(l)))
			return NV_ERR_INVALID_POINTER;
		if (l.tsgInterleaveLevel > 2)
			return NV_ERR_INVALID_ARGUMENT;
		o->level = l.tsgInterleaveLevel;
		return NV_OK;
	}
	case NVA06C_CTRL_CMD_GET_INTERLEAVE_LEVEL: {
		struct a06c_interleave l = { .tsgInterleaveLevel = o->level };

		if (!rm_get_interleave)
			return NV_ERR_NOT_SUPPORTED;

		return copy_to_user(up, &l, sizeof(l)) ? NV_ERR_INVALID_POINTER : NV_OK;
	}
	case NVA06C_CTRL_CMD_PREEMPT: {
		struct a06c_preempt pr;

		if (copy_from_user(&pr, up, sizeof(pr)))
			return NV_ERR_INVALID_POINTER;
		if (pr.bManualTimeout && pr.timeoutUs > NVA06C_PREEMPT_MAX_MANUAL_TIMEOUT_US)
			return NV_ERR_INVALID_ARGUMENT;
		o->preempts++;
		return NV_OK;
	}
	case NVA06C_CTRL_CMD_GPFIFO_SCHEDULE: {
		struct a06c_schedule sc;

		if (copy_from_user(&sc, up, sizeof(sc)))
			return NV_ERR_INVALID_POINTER;
		/* ctrla06fgpfifo.h: with bEnable, not both skips */
		if (sc.bEnable && sc.bSkipSubmit && sc.bSkipEnable)
			return NV_ERR_INVALID_ARGUMENT;
		rm_schedule_calls++;
		if (o->off == !sc.bEnable)
			return NV_OK;	/* as RM: asking again changes nothing */
		o->off = !sc.bEnable;
		rm_tsgs_off += o->off ? 1 : -1;
		return NV_OK;
	}
	}
	return NV_ERR_NOT_SUPPORTED;
}

/* The rm_set_delay_ms wait, outside the lock, for the SET controls. */
static void set_delay(u32 nr, u32 size, void __user *arg)
{
	struct nvos54_params c;

	if (!rm_set_delay_ms || nr != NV_ESC_RM_CONTROL || size != sizeof(c) ||
	    copy_from_user(&c, arg, sizeof(c)))
		return;
	if (c.cmd == NVA06C_CTRL_CMD_SET_TIMESLICE || c.cmd == NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL)
		msleep(rm_set_delay_ms);
}

/* One escape: nr with its struct (size bytes) at user address arg. */
static long rm_escape(struct file *file, u32 nr, u32 size, void __user *arg)
{
	long ret = 0;

	set_delay(nr, size, arg);
	mutex_lock(&rm_lock);
	if (nr == NV_ESC_RM_ALLOC && (size == sizeof(struct nvos21_params) ||
				      size == sizeof(struct nvos64_params))) {
		struct nvos64_params a64 = {};
		struct nvos21_params a21 = {};
		u32 hRoot, hParent, hNew, cls, st, psize;
		u64 pp;

		if (size == sizeof(a21)) {
			if (copy_from_user(&a21, arg, size)) {
				ret = -EFAULT;
				goto out;
			}
			hRoot = a21.hRoot; hParent = a21.hObjectParent;
			hNew = a21.hObjectNew; cls = a21.hClass;
			pp = a21.pAllocParms; psize = a21.paramsSize;
		} else {
			if (copy_from_user(&a64, arg, size)) {
				ret = -EFAULT;
				goto out;
			}
			hRoot = a64.hRoot; hParent = a64.hObjectParent;
			hNew = a64.hObjectNew; cls = a64.hClass;
			pp = a64.pAllocParms; psize = a64.paramsSize;
		}
		st = do_alloc(file, hRoot, hParent, &hNew, cls, u64_to_user_ptr(pp), psize);
		if (size == sizeof(a21)) {
			a21.status = st;
			if (!st)
				a21.hObjectNew = hNew;
			if (copy_to_user(arg, &a21, size))
				ret = -EFAULT;
		} else {
			a64.status = st;
			if (!st)
				a64.hObjectNew = hNew;
			if (copy_to_user(arg, &a64, size))
				ret = -EFAULT;
		}
	} else if (nr == NV_ESC_RM_FREE && size == sizeof(struct nvos00_params)) {
		struct nvos00_params f;

		if (copy_from_user(&f, arg, size)) {
			ret = -EFAULT;
			goto out;
		}
		f.status = do_free(file, f.hRoot, f.hObjectOld);
		if (copy_to_user(arg, &f, size))
			ret = -EFAULT;
	} else if (nr == NV_ESC_RM_CONTROL && size == sizeof(struct nvos54_params)) {
		struct nvos54_params c;

		if (copy_from_user(&c, arg, size)) {
			ret = -EFAULT;
			goto out;
		}
		c.status = do_control(file, &c);
		if (copy_to_user(arg, &c, size))
			ret = -EFAULT;
	} else if (nr == NV_ESC_ATTACH_GPUS_TO_FD && size && size % sizeof(u32) == 0) {
		ret = 0;	/* the model's GPUs are always up */
	} else {
		ret = -EINVAL;
	}
out:
	mutex_unlock(&rm_lock);
	return ret;
}

static long rm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *up = (void __user *)arg;

	if (_IOC_TYPE(cmd) != NV_IOCTL_MAGIC)
		return -ENOTTY;
	if (_IOC_NR(cmd) == NV_ESC_IOCTL_XFER_CMD) {
		struct nv_ioctl_xfer x;

		if (_IOC_SIZE(cmd) != sizeof(x))
			return -EINVAL;
		if (copy_from_user(&x, up, sizeof(x)))
			return -EFAULT;
		return rm_escape(file, x.cmd, x.size, u64_to_user_ptr(x.ptr));
	}
	return rm_escape(file, _IOC_NR(cmd), _IOC_SIZE(cmd), up);
}

static int rm_release(struct inode *inode, struct file *file)
{
	struct rm_client *c, *t;

	mutex_lock(&rm_lock);
	list_for_each_entry_safe(c, t, &rm_clients, node)
		if (c->owner == file)
			client_destroy(c);
	mutex_unlock(&rm_lock);
	return 0;
}

static int rm_open(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations rm_fops = {
	.owner = THIS_MODULE,
	.open = rm_open,
	.release = rm_release,
	.unlocked_ioctl = rm_ioctl,
	.compat_ioctl = rm_ioctl,
};

static struct miscdevice rm_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "uvm_model_rm",
	.fops = &rm_fops,
	.mode = 0666,
};

int uvm_model_rm_init(void)
{
	return misc_register(&rm_dev);
}

void uvm_model_rm_exit(void)
{
	struct rm_client *c, *t;

	misc_deregister(&rm_dev);
	mutex_lock(&rm_lock);
	list_for_each_entry_safe(c, t, &rm_clients, node)
		client_destroy(c);
	mutex_unlock(&rm_lock);
}
