// SPDX-License-Identifier: GPL-2.0
/*
 * rm.c - NVIDIA RM escape layer: RM_ALLOC / RM_CONTROL / RM_FREE ioctls,
 * status codes by name, the RM device and which of a process's files is one.
 *
 * RM answers a control on a client only through the open file that allocated
 * that client (NV_ERR_INVALID_CLIENT otherwise).  gpuctl keeps that rule: it
 * does not bypass it, it borrows the owner's file the way a debugger would
 * (borrow_fd() of the shared layer), which needs CAP_SYS_PTRACE over the
 * target (PTRACE_MODE_ATTACH_REALCREDS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rm.h"

const char *rm_device_path(const char *opt)
{
	const char *env = getenv("GPUCTL_RM_DEVICE");

	if (opt)
		return opt;
	return env && *env ? env : RM_DEFAULT_DEVICE;
}

int rm_device_rdev(const char *dev, dev_t *rdev, char *err, size_t len)
{
	struct stat st;

	if (stat(dev, &st)) {
		int e = errno;

		snprintf(err, len, "RM device %s: %s%s", dev, strerror(e),
			 e == ENOENT ? " (no NVIDIA driver loaded? --device PATH or "
				       "$GPUCTL_RM_DEVICE names another)" : "");
		return -e;
	}
	if (!S_ISCHR(st.st_mode)) {
		snprintf(err, len, "RM device %s is not a character device", dev);
		return -ENODEV;
	}
	*rdev = st.st_rdev;
	return 0;
}

/* Every code of nvstatuscodes.h (names are the driver's ABI). */
static const struct {
	__u32 code;
	const char *name;
} rm_codes[] = {
	{ 0x00000000, "NV_OK" },
	{ 0x0000FFFF, "NV_ERR_GENERIC" },
	{ 0x00000001, "NV_ERR_BROKEN_FB" },
	{ 0x00000002, "NV_ERR_BUFFER_TOO_SMALL" },
	{ 0x00000003, "NV_ERR_BUSY_RETRY" },
	{ 0x00000004, "NV_ERR_CALLBACK_NOT_SCHEDULED" },
	{ 0x00000005, "NV_ERR_CARD_NOT_PRESENT" },
	{ 0x00000006, "NV_ERR_CYCLE_DETECTED" },
	{ 0x00000007, "NV_ERR_DMA_IN_USE" },
	{ 0x00000008, "NV_ERR_DMA_MEM_NOT_LOCKED" },
	{ 0x00000009, "NV_ERR_DMA_MEM_NOT_UNLOCKED" },
	{ 0x0000000A, "NV_ERR_DUAL_LINK_INUSE" },
	{ 0x0000000B, "NV_ERR_ECC_ERROR" },
	{ 0x0000000C, "NV_ERR_FIFO_BAD_ACCESS" },
	{ 0x0000000D, "NV_ERR_FREQ_NOT_SUPPORTED" },
	{ 0x0000000E, "NV_ERR_GPU_DMA_NOT_INITIALIZED" },
	{ 0x0000000F, "NV_ERR_GPU_IS_LOST" },
	{ 0x00000010, "NV_ERR_GPU_IN_FULLCHIP_RESET" },
	{ 0x00000011, "NV_ERR_GPU_NOT_FULL_POWER" },
	{ 0x00000012, "NV_ERR_GPU_UUID_NOT_FOUND" },
	{ 0x00000013, "NV_ERR_HOT_SWITCH" },
	{ 0x00000014, "NV_ERR_I2C_ERROR" },
	{ 0x00000015, "NV_ERR_I2C_SPEED_TOO_HIGH" },
	{ 0x00000016, "NV_ERR_ILLEGAL_ACTION" },
	{ 0x00000017, "NV_ERR_IN_USE" },
	{ 0x00000018, "NV_ERR_INFLATE_COMPRESSED_DATA_FAILED" },
	{ 0x00000019, "NV_ERR_INSERT_DUPLICATE_NAME" },
	{ 0x0000001A, "NV_ERR_INSUFFICIENT_RESOURCES" },
	{ 0x0000001B, "NV_ERR_INSUFFICIENT_PERMISSIONS" },
	{ 0x0000001C, "NV_ERR_INSUFFICIENT_POWER" },
	{ 0x0000001D, "NV_ERR_INVALID_ACCESS_TYPE" },
	{ 0x0000001E, "NV_ERR_INVALID_ADDRESS" },
	{ 0x0000001F, "NV_ERR_INVALID_ARGUMENT" },
	{ 0x00000020, "NV_ERR_INVALID_BASE" },
	{ 0x00000021, "NV_ERR_INVALID_CHANNEL" },
	{ 0x00000022, "NV_ERR_INVALID_CLASS" },
	{ 0x00000023, "NV_ERR_INVALID_CLIENT" },
	{ 0x00000024, "NV_ERR_INVALID_COMMAND" },
	{ 0x00000025, "NV_ERR_INVALID_DATA" },
	{ 0x00000026, "NV_ERR_INVALID_DEVICE" },
	{ 0x00000027, "NV_ERR_INVALID_DMA_SPECIFIER" },
	{ 0x00000028, "NV_ERR_INVALID_EVENT" },
	{ 0x00000029, "NV_ERR_INVALID_FLAGS" },
	{ 0x0000002A, "NV_ERR_INVALID_FUNCTION" },
	{ 0x0000002B, "NV_ERR_INVALID_HEAP" },
	{ 0x0000002C, "NV_ERR_INVALID_INDEX" },
	{ 0x0000002D, "NV_ERR_INVALID_IRQ_LEVEL" },
	{ 0x0000002E, "NV_ERR_INVALID_LIMIT" },
	{ 0x0000002F, "NV_ERR_INVALID_LOCK_STATE" },
	{ 0x00000030, "NV_ERR_INVALID_METHOD" },
	{ 0x00000031, "NV_ERR_INVALID_OBJECT" },
	{ 0x00000032, "NV_ERR_INVALID_OBJECT_BUFFER" },
	{ 0x00000033, "NV_ERR_INVALID_OBJECT_HANDLE" },
	{ 0x00000034, "NV_ERR_INVALID_OBJECT_NEW" },
	{ 0x00000035, "NV_ERR_INVALID_OBJECT_OLD" },
	{ 0x00000036, "NV_ERR_INVALID_OBJECT_PARENT" },
	{ 0x00000037, "NV_ERR_INVALID_OFFSET" },
	{ 0x00000038, "NV_ERR_INVALID_OPERATION" },
	{ 0x00000039, "NV_ERR_INVALID_OWNER" },
	{ 0x0000003A, "NV_ERR_INVALID_PARAM_STRUCT" },
	{ 0x0000003B, "NV_ERR_INVALID_PARAMETER" },
	{ 0x0000003C, "NV_ERR_INVALID_PATH" },
	{ 0x0000003D, "NV_ERR_INVALID_POINTER" },
	{ 0x0000003E, "NV_ERR_INVALID_REGISTRY_KEY" },
	{ 0x0000003F, "NV_ERR_INVALID_REQUEST" },
	{ 0x00000040, "NV_ERR_INVALID_STATE" },
	{ 0x00000041, "NV_ERR_INVALID_STRING_LENGTH" },
	{ 0x00000042, "NV_ERR_INVALID_READ" },
	{ 0x00000043, "NV_ERR_INVALID_WRITE" },
	{ 0x00000044, "NV_ERR_INVALID_XLATE" },
	{ 0x00000045, "NV_ERR_IRQ_NOT_FIRING" },
	{ 0x00000046, "NV_ERR_IRQ_EDGE_TRIGGERED" },
	{ 0x00000047, "NV_ERR_MEMORY_TRAINING_FAILED" },
	{ 0x00000048, "NV_ERR_MISMATCHED_SLAVE" },
	{ 0x00000049, "NV_ERR_MISMATCHED_TARGET" },
	{ 0x0000004A, "NV_ERR_MISSING_TABLE_ENTRY" },
	{ 0x0000004B, "NV_ERR_MODULE_LOAD_FAILED" },
	{ 0x0000004C, "NV_ERR_MORE_DATA_AVAILABLE" },
	{ 0x0000004D, "NV_ERR_MORE_PROCESSING_REQUIRED" },
	{ 0x0000004E, "NV_ERR_MULTIPLE_MEMORY_TYPES" },
	{ 0x0000004F, "NV_ERR_NO_FREE_FIFOS" },
	{ 0x00000050, "NV_ERR_NO_INTR_PENDING" },
	{ 0x00000051, "NV_ERR_NO_MEMORY" },
	{ 0x00000052, "NV_ERR_NO_SUCH_DOMAIN" },
	{ 0x00000053, "NV_ERR_NO_VALID_PATH" },
	{ 0x00000054, "NV_ERR_NOT_COMPATIBLE" },
	{ 0x00000055, "NV_ERR_NOT_READY" },
	{ 0x00000056, "NV_ERR_NOT_SUPPORTED" },
	{ 0x00000057, "NV_ERR_OBJECT_NOT_FOUND" },
	{ 0x00000058, "NV_ERR_OBJECT_TYPE_MISMATCH" },
	{ 0x00000059, "NV_ERR_OPERATING_SYSTEM" },
	{ 0x0000005A, "NV_ERR_OTHER_DEVICE_FOUND" },
	{ 0x0000005B, "NV_ERR_OUT_OF_RANGE" },
	{ 0x0000005C, "NV_ERR_OVERLAPPING_UVM_COMMIT" },
	{ 0x0000005D, "NV_ERR_PAGE_TABLE_NOT_AVAIL" },
	{ 0x0000005E, "NV_ERR_PID_NOT_FOUND" },
	{ 0x0000005F, "NV_ERR_PROTECTION_FAULT" },
	{ 0x00000060, "NV_ERR_RC_ERROR" },
	{ 0x00000061, "NV_ERR_REJECTED_VBIOS" },
	{ 0x00000062, "NV_ERR_RESET_REQUIRED" },
	{ 0x00000063, "NV_ERR_STATE_IN_USE" },
	{ 0x00000064, "NV_ERR_SIGNAL_PENDING" },
	{ 0x00000065, "NV_ERR_TIMEOUT" },
	{ 0x00000066, "NV_ERR_TIMEOUT_RETRY" },
	{ 0x00000067, "NV_ERR_TOO_MANY_PRIMARIES" },
	{ 0x00000068, "NV_ERR_UVM_ADDRESS_IN_USE" },
	{ 0x00000069, "NV_ERR_MAX_SESSION_LIMIT_REACHED" },
	{ 0x0000006A, "NV_ERR_LIB_RM_VERSION_MISMATCH" },
	{ 0x0000006B, "NV_ERR_PRIV_SEC_VIOLATION" },
	{ 0x0000006C, "NV_ERR_GPU_IN_DEBUG_MODE" },
	{ 0x0000006D, "NV_ERR_FEATURE_NOT_ENABLED" },
	{ 0x0000006E, "NV_ERR_RESOURCE_LOST" },
	{ 0x0000006F, "NV_ERR_PMU_NOT_READY" },
	{ 0x00000070, "NV_ERR_FLCN_ERROR" },
	{ 0x00000071, "NV_ERR_FATAL_ERROR" },
	{ 0x00000072, "NV_ERR_MEMORY_ERROR" },
	{ 0x00000073, "NV_ERR_INVALID_LICENSE" },
	{ 0x00000074, "NV_ERR_NVLINK_INIT_ERROR" },
	{ 0x00000075, "NV_ERR_NVLINK_MINION_ERROR" },
	{ 0x00000076, "NV_ERR_NVLINK_CLOCK_ERROR" },
	{ 0x00000077, "NV_ERR_NVLINK_TRAINING_ERROR" },
	{ 0x00000078, "NV_ERR_NVLINK_CONFIGURATION_ERROR" },
	{ 0x00000079, "NV_ERR_RISCV_ERROR" },
	{ 0x0000007A, "NV_ERR_FABRIC_MANAGER_NOT_PRESENT" },
	{ 0x0000007B, "NV_ERR_ALREADY_SIGNALLED" },
	{ 0x0000007C, "NV_ERR_QUEUE_TASK_SLOT_NOT_AVAILABLE" },
	{ 0x0000007D, "NV_ERR_KEY_ROTATION_IN_PROGRESS" },
	{ 0x00000081, "NV_ERR_NVSWITCH_FABRIC_NOT_READY" },
	{ 0x00000082, "NV_ERR_NVSWITCH_FABRIC_FAILURE" },
	{ 0x00010001, "NV_WARN_HOT_SWITCH" },
	{ 0x00010002, "NV_WARN_INCORRECT_PERFMON_DATA" },
	{ 0x00010003, "NV_WARN_MISMATCHED_SLAVE" },
	{ 0x00010004, "NV_WARN_MISMATCHED_TARGET" },
	{ 0x00010005, "NV_WARN_MORE_PROCESSING_REQUIRED" },
	{ 0x00010006, "NV_WARN_NOTHING_TO_DO" },
	{ 0x00010007, "NV_WARN_NULL_OBJECT" },
	{ 0x00010008, "NV_WARN_OUT_OF_RANGE" },
};

/* Our own words for the statuses a TSG control is likely to meet. */
static const struct {
	__u32 code;
	const char *msg;
} rm_msgs[] = {
	{ 0x00, "success" },
	{ 0x1b, "RM refused: insufficient permissions" },
	{ 0x1f, "RM rejected a parameter value" },
	{ 0x22, "the object is not of the class this control needs" },
	{ 0x23, "the client is not reachable through this file (RM answers only "
		"through the open file that created the client)" },
	{ 0x24, "RM does not know this control command" },
	{ 0x33, "no such object handle in this client (TSG freed?)" },
	{ 0x3a, "parameter structure of the wrong size" },
	{ 0x3b, "RM rejected a parameter value" },
	{ 0x3d, "bad parameter pointer" },
	{ 0x40, "the object is not in a state that allows this" },
	{ 0x51, "RM is out of memory" },
	{ 0x56, "not supported by this GPU or driver" },
	{ 0x57, "object not found" },
	{ 0x5b, "value out of the range RM accepts" },
	{ 0x65, "timed out" },
	{ 0xffff, "generic RM failure" },
};

const char *rm_status_name(__u32 status)
{
	static __thread char buf[32];

	for (size_t i = 0; i < sizeof(rm_codes) / sizeof(rm_codes[0]); i++)
		if (rm_codes[i].code == status)
			return rm_codes[i].name;
	snprintf(buf, sizeof(buf), "NV_STATUS_0x%x", status);
	return buf;
}

const char *rm_status_msg(__u32 status)
{
	for (size_t i = 0; i < sizeof(rm_msgs) / sizeof(rm_msgs[0]); i++)
		if (rm_msgs[i].code == status)
			return rm_msgs[i].msg;
	return "RM returned an error";
}

int rm_control(int fd, __u32 hClient, __u32 hObject, __u32 cmd, void *params,
	       __u32 size, __u32 *status)
{
	struct nvos54_params p = {
		.hClient = hClient,
		.hObject = hObject,
		.cmd = cmd,
		.params = (__u64)(unsigned long)params,
		.paramsSize = size,
	};

	if (ioctl(fd, NV_IOC_CONTROL, &p) < 0)
		return -errno;
	*status = p.status;
	return 0;
}

int rm_alloc(int fd, __u32 hRoot, __u32 hParent, __u32 *hNew, __u32 hClass,
	     void *params, __u32 size, __u32 *status)
{
	struct nvos64_params p = {
		.hRoot = hRoot,
		.hObjectParent = hParent,
		.hObjectNew = *hNew,
		.hClass = hClass,
		.pAllocParms = (__u64)(unsigned long)params,
		.paramsSize = size,
	};

	if (ioctl(fd, NV_IOC_ALLOC64, &p) < 0)
		return -errno;
	*status = p.status;
	if (!p.status)
		*hNew = p.hObjectNew;
	return 0;
}

int rm_free(int fd, __u32 hRoot, __u32 hParent, __u32 hObject, __u32 *status)
{
	struct nvos00_params p = {
		.hRoot = hRoot,
		.hObjectParent = hParent,
		.hObjectOld = hObject,
	};

	if (ioctl(fd, NV_IOC_FREE, &p) < 0)
		return -errno;
	*status = p.status;
	return 0;
}

/* How far from the TSG's handle rm_tsg_channels looks, each way. */
#define RM_SCAN_BELOW	0x100
#define RM_SCAN_ABOVE	0x100

static int handle_info(int fd, __u32 hClient, __u32 h, __u32 index, __u64 *out)
{
	struct rm_handle_info p = { .hObject = h, .index = index };
	__u32 status = 0;
	int ret;

	ret = rm_control(fd, hClient, hClient, NV0000_CTRL_CMD_CLIENT_GET_HANDLE_INFO, &p,
			 sizeof(p), &status);
	if (ret)
		return ret;
	*out = p.data;
	return status ? -ENOENT : 0;
}

int rm_tsg_channels(int fd, __u32 hClient, __u32 hTsg, __u32 *subdev, __u32 *ch, int max)
{
	__u32 lo = hTsg > RM_SCAN_BELOW ? hTsg - RM_SCAN_BELOW : 1;
	__u32 hi = hTsg + RM_SCAN_ABOVE;
	int n = 0;

	*subdev = 0;
	for (__u32 h = lo; h <= hi && h >= lo; h++) {
		__u64 cls, parent;
		int ret = handle_info(fd, hClient, h, NV0000_HANDLE_INFO_CLASSID, &cls);

		if (ret == -ENOENT)
			continue;
		if (ret)
			return ret;	/* the file does not answer: no point going on */
		if (cls == NV20_SUBDEVICE_0 && !*subdev)
			*subdev = h;
		if (!RM_CLASS_IS_CHANNEL(cls) || n >= max ||
		    handle_info(fd, hClient, h, NV0000_HANDLE_INFO_PARENT, &parent) ||
		    parent != hTsg)
			continue;
		ch[n++] = h;
	}
	return n;
}

int rm_channels_set(int fd, __u32 hClient, __u32 subdev, const __u32 *ch, int n, bool off,
		    __u32 *status)
{
	struct rm_disable_channels p = { .bDisable = off };

	if (n < 0 || n > RM_DISABLE_CHANNELS_MAX)
		return -EINVAL;
	p.numChannels = n;
	for (int i = 0; i < n; i++) {
		p.hClientList[i] = hClient;
		p.hChannelList[i] = ch[i];
	}
	return rm_control(fd, hClient, subdev, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &p,
			  sizeof(p), status);
}

unsigned long rm_fd_rdev(pid_t pid, int fd)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return 0;
	return st.st_rdev;
}

static const char *const level_names[NVA06C_CTRL_INTERLEAVE_LEVEL_NR] = {
	[NVA06C_CTRL_INTERLEAVE_LEVEL_LOW] = "low",
	[NVA06C_CTRL_INTERLEAVE_LEVEL_MEDIUM] = "medium",
	[NVA06C_CTRL_INTERLEAVE_LEVEL_HIGH] = "high",
};

const char *rm_level_name(__u32 level)
{
	return level < NVA06C_CTRL_INTERLEAVE_LEVEL_NR ? level_names[level] : "?";
}

int rm_level_parse(const char *name)
{
	for (int i = 0; i < NVA06C_CTRL_INTERLEAVE_LEVEL_NR; i++)
		if (name && !strcmp(name, level_names[i]))
			return i;
	return -1;
}
