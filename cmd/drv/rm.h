/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rm.h - the subset of NVIDIA's Resource Manager (RM) escape ABI that gpuctl
 * speaks: NV_ESC_RM_ALLOC / CONTROL / FREE on /dev/nvidiactl, written from the
 * documented layouts (nvos.h, nv-ioctl.h, ctrla06c.h of open-gpu-kernel-modules),
 * and the TSG (KEPLER_CHANNEL_GROUP_A) controls.  Shared with the BPF watcher
 * (bpf/tsg_watch.bpf.c) and the model device (tests/model): plain fixed-width
 * types only, and the sizes the driver expects asserted here.
 *
 * It lives in cmd/drv/ with the other driver ABIs, not under cmd/sched/:
 * sched, trace tsg, probe, the BPF watcher and the model module all speak it.
 */
#ifndef GPUCTL_RM_H
#define GPUCTL_RM_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define RM_DEFAULT_DEVICE	"/dev/nvidiactl"
#define RM_NVIDIA_MAJOR		195	/* nvidiactl and nvidiaN: any minor counts */

/* The RM device: opt, else $GPUCTL_RM_DEVICE, else RM_DEFAULT_DEVICE. */
const char *rm_device_path(const char *opt);

#define NV_IOCTL_MAGIC		'F'
#define NV_ESC_RM_FREE		0x29
#define NV_ESC_RM_CONTROL	0x2A
#define NV_ESC_RM_ALLOC		0x2B
#define NV_ESC_IOCTL_XFER_CMD	(200 + 11)	/* NV_IOCTL_BASE + 11 */

/* NVOS00: free an object (16 bytes). */
struct nvos00_params {
	__u32 hRoot;
	__u32 hObjectParent;
	__u32 hObjectOld;
	__u32 status;
};

/* NVOS21: allocate an object (32 bytes). */
struct nvos21_params {
	__u32 hRoot;
	__u32 hObjectParent;
	__u32 hObjectNew;
	__u32 hClass;
	__u64 pAllocParms;	/* @16 */
	__u32 paramsSize;	/* @24 */
	__u32 status;		/* @28 */
};

/* NVOS64: allocate with requested rights (48 bytes, 4 bytes tail padding). */
struct nvos64_params {
	__u32 hRoot;
	__u32 hObjectParent;
	__u32 hObjectNew;
	__u32 hClass;
	__u64 pAllocParms;	/* @16 */
	__u64 pRightsRequested;	/* @24 */
	__u32 paramsSize;	/* @32 */
	__u32 flags;		/* @36 */
	__u32 status;		/* @40 */
	__u32 _pad;
};

/* NVOS54: control call (32 bytes). */
struct nvos54_params {
	__u32 hClient;
	__u32 hObject;
	__u32 cmd;
	__u32 flags;
	__u64 params;		/* @16 */
	__u32 paramsSize;	/* @24 */
	__u32 status;		/* @28 */
};

/* nv_ioctl_xfer_t: an escape whose struct is too big for the ioctl number. */
struct nv_ioctl_xfer {
	__u32 cmd;
	__u32 size;
	__u64 ptr;
};

#define NV_IOC_FREE	_IOWR(NV_IOCTL_MAGIC, NV_ESC_RM_FREE, struct nvos00_params)
#define NV_IOC_CONTROL	_IOWR(NV_IOCTL_MAGIC, NV_ESC_RM_CONTROL, struct nvos54_params)
#define NV_IOC_ALLOC21	_IOWR(NV_IOCTL_MAGIC, NV_ESC_RM_ALLOC, struct nvos21_params)
#define NV_IOC_ALLOC64	_IOWR(NV_IOCTL_MAGIC, NV_ESC_RM_ALLOC, struct nvos64_params)
#define NV_IOC_XFER	_IOWR(NV_IOCTL_MAGIC, NV_ESC_IOCTL_XFER_CMD, struct nv_ioctl_xfer)

/* Classes. */
#define NV01_ROOT_CLIENT		0x0041
#define NV01_DEVICE_0			0x0080
#define NV20_SUBDEVICE_0		0x2080
#define HOPPER_CHANNEL_GPFIFO_A		0xc86f	/* a channel (any xx6f class is one) */
#define RM_CLASS_IS_CHANNEL(c)		(((c) & 0xff) == 0x6f)
#define KEPLER_CHANNEL_GROUP_A		0xa06c	/* a TSG */

/* The scheduling controls (numbers, names, how they are watched): rm_ctl.h. */
#include "rm_ctl.h"
#define NVA06C_PREEMPT_MAX_MANUAL_TIMEOUT_US	1000000u

/*
 * GPFIFO_SCHEDULE (NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS, 3 NvBools): bEnable 1
 * enables the TSG's channels and puts it on its runlist; 0 disables them and
 * takes it off (RM updates the runlist; a TSG running on the engine is
 * switched out).  Work the process submits meanwhile waits in its channels.
 */
struct a06c_schedule {
	__u8 bEnable;
	__u8 bSkipSubmit;
	__u8 bSkipEnable;
};

/* NV0000_CTRL_CMD_CLIENT_GET_HANDLE_INFO on the client object: what one handle is. */
#define NV0000_CTRL_CMD_CLIENT_GET_HANDLE_INFO	0x0d02
enum {
	NV0000_HANDLE_INFO_PARENT = 1,
	NV0000_HANDLE_INFO_CLASSID = 2,
};
struct rm_handle_info {
	__u32 hObject;
	__u32 index;		/* NV0000_HANDLE_INFO_* */
	__u64 data;		/* the parent's handle, or the class */
};

/*
 * NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS on a subdevice: channels (client,
 * channel pairs) disabled and preempted off the GPU (bOnlyDisableScheduling
 * 0), or only kept from being scheduled (1); bDisable 0 enables them again.
 */
#define RM_DISABLE_CHANNELS_MAX			64
struct rm_disable_channels {
	__u8 bDisable;
	__u8 _pad0[3];
	__u32 numChannels;
	__u8 bOnlyDisableScheduling;
	__u8 bRewindGpPut;
	__u8 _pad1[6];
	__u64 pRunlistPreemptEvent;	/* user clients: NULL */
	__u32 hClientList[RM_DISABLE_CHANNELS_MAX];
	__u32 hChannelList[RM_DISABLE_CHANNELS_MAX];
};

struct a06c_timeslice {
	__u64 timesliceUs;
};

struct a06c_preempt {
	__u8 bWait;
	__u8 bManualTimeout;
	__u8 _pad[2];
	__u32 timeoutUs;
};

/* Interleave levels (NVA06C_CTRL_INTERLEAVE_LEVEL_*); a new TSG has medium. */
enum {
	NVA06C_CTRL_INTERLEAVE_LEVEL_LOW = 0,
	NVA06C_CTRL_INTERLEAVE_LEVEL_MEDIUM = 1,
	NVA06C_CTRL_INTERLEAVE_LEVEL_HIGH = 2,
	NVA06C_CTRL_INTERLEAVE_LEVEL_NR,
};

struct a06c_interleave {
	__u32 tsgInterleaveLevel;	/* NVA06C_CTRL_INTERLEAVE_LEVEL_* */
};

_Static_assert(sizeof(struct nvos00_params) == 16, "NVOS00 is 16 bytes");
_Static_assert(sizeof(struct nvos21_params) == 32, "NVOS21 is 32 bytes");
_Static_assert(sizeof(struct nvos64_params) == 48, "NVOS64 is 48 bytes");
_Static_assert(sizeof(struct nvos54_params) == 32, "NVOS54 is 32 bytes");
_Static_assert(sizeof(struct nv_ioctl_xfer) == 16, "nv_ioctl_xfer is 16 bytes");
_Static_assert(sizeof(struct a06c_schedule) == 3, "GPFIFO_SCHEDULE params are 3 bytes");
_Static_assert(sizeof(struct rm_handle_info) == 16, "GET_HANDLE_INFO params are 16 bytes");
_Static_assert(sizeof(struct rm_disable_channels) == 536, "DISABLE_CHANNELS params are 536 bytes");
_Static_assert(sizeof(struct a06c_timeslice) == 8, "TIMESLICE params are 8 bytes");
_Static_assert(sizeof(struct a06c_preempt) == 8, "PREEMPT params are 8 bytes");
_Static_assert(sizeof(struct a06c_interleave) == 4, "INTERLEAVE params are 4 bytes");

/* RM status codes gpuctl names in messages (nvstatuscodes.h). */
#define NV_OK				0x00
#define NV_ERR_INSUFFICIENT_PERMISSIONS	0x1b
#define NV_ERR_INVALID_ARGUMENT		0x1f
#define NV_ERR_INVALID_CLASS		0x22
#define NV_ERR_INVALID_CLIENT		0x23
#define NV_ERR_INVALID_COMMAND		0x24
#define NV_ERR_INVALID_OBJECT_HANDLE	0x33
#define NV_ERR_INVALID_OBJECT_NEW	0x34
#define NV_ERR_INVALID_OBJECT_PARENT	0x36
#define NV_ERR_INVALID_PARAM_STRUCT	0x3a
#define NV_ERR_INVALID_POINTER		0x3d
#define NV_ERR_INVALID_STATE		0x40
#define NV_ERR_NO_MEMORY		0x51
#define NV_ERR_NOT_SUPPORTED		0x56
#define NV_ERR_OBJECT_NOT_FOUND		0x57
#define NV_ERR_OUT_OF_RANGE		0x5b
#define NV_ERR_TIMEOUT			0x65

#if !defined(__KERNEL__) && !defined(__bpf__)
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* "NV_ERR_INVALID_CLIENT" (or "NV_STATUS_0x..." for a code it does not know). */
const char *rm_status_name(__u32 status);
/* A short explanation of status, in gpuctl's words. */
const char *rm_status_msg(__u32 status);

/*
 * One NV_ESC_RM_CONTROL on fd.  Returns 0 and sets *status to RM's status
 * (which may be non-zero), or -errno when the ioctl itself failed.
 */
int rm_control(int fd, __u32 hClient, __u32 hObject, __u32 cmd, void *params,
	       __u32 size, __u32 *status);
/* NV_ESC_RM_ALLOC (NVOS64 form) and NV_ESC_RM_FREE, same convention. */
int rm_alloc(int fd, __u32 hRoot, __u32 hParent, __u32 *hNew, __u32 hClass,
	     void *params, __u32 size, __u32 *status);
int rm_free(int fd, __u32 hRoot, __u32 hParent, __u32 hObject, __u32 *status);

/*
 * The RM device dev must be a character device: 0 with *rdev its number,
 * else -errno with the reason (and what to do) in err.
 */
int rm_device_rdev(const char *dev, dev_t *rdev, char *err, size_t len);

/*
 * The subdevice of hClient and the channels of TSG hTsg, found by asking RM
 * (GET_HANDLE_INFO through fd, the owner's file) what each handle near the
 * TSG's is: clients such as CUDA number their objects closely.  Returns the
 * number of channels (at most max), or -errno; *subdev 0 when none seen.
 */
int rm_tsg_channels(int fd, __u32 hClient, __u32 hTsg, __u32 *subdev, __u32 *ch, int max);
/* DISABLE_CHANNELS (off) or enable (!off) of n channels of hClient: as rm_control. */
int rm_channels_set(int fd, __u32 hClient, __u32 subdev, const __u32 *ch, int n, bool off,
		    __u32 *status);

/* dev_t of the character device behind fd of pid (via /proc), 0 when none. */
unsigned long rm_fd_rdev(pid_t pid, int fd);

/* Interleave level names: "low", "medium", "high"; -1 for an unknown name. */
const char *rm_level_name(__u32 level);
int rm_level_parse(const char *name);
#endif

#endif
