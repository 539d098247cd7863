/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rm_gpu.h - naming a GPU: the RM controls that enumerate the GPUs and
 * describe one (its UUID, PCI location, name, memory), written from the
 * layouts of open-gpu-kernel-modules (ctrl0000gpu.h, ctrl2080gpu.h,
 * ctrl2080fb.h, cl0080.h, cl2080.h, nv-ioctl-numbers.h), sizes asserted; and
 * gpuctl's one way to name a GPU: its index, as nvidia-smi numbers them (the
 * GPUs ordered by PCI bus id), and its UUID ("GPU-xxxxxxxx-xxxx-...").
 *
 * Shared with the model device (tests/model/uvm_model_rm_gpu.c): fixed-width
 * types only outside the user-space part.
 */
#ifndef GPUCTL_RM_GPU_H
#define GPUCTL_RM_GPU_H

#include <linux/types.h>
#include "rm.h"

/* nv-ioctl-numbers.h: NV_IOCTL_BASE + 12, a __u32 array of GPU IDs. */
#define NV_ESC_ATTACH_GPUS_TO_FD	(200 + 12)
/* NV_IOCTL_BASE + 1, on /dev/nvidiaN: { int ctl_fd; } */
#define NV_ESC_REGISTER_FD		(200 + 1)

/* Controls on the client object (class 0000). */
#define NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS	0x0201	/* struct rm_gpu_ids */
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2	0x0205	/* struct rm_gpu_id_info */
#define NV0000_CTRL_CMD_GPU_GET_PROBED_IDS	0x0214	/* struct rm_gpu_probed_ids */
#define NV0000_CTRL_CMD_GPU_GET_PCI_INFO	0x021b	/* struct rm_gpu_pci_info */
#define NV0000_CTRL_CMD_GPU_GET_UUID_FROM_GPU_ID 0x0275	/* struct rm_gpu_uuid */
/* Controls on a subdevice (class 2080). */
#define NV2080_CTRL_CMD_GPU_GET_NAME_STRING	0x20800110	/* struct rm_gpu_name */
#define NV2080_CTRL_CMD_GPU_GET_ID		0x20800142	/* struct rm_gpu_id */
#define NV2080_CTRL_CMD_FB_GET_INFO_V2		0x20801303	/* struct rm_fb_info */

#define RM_MAX_GPUS		32u		/* NV0000_CTRL_GPU_MAX_ATTACHED_GPUS */
#define RM_MAX_PROBED_GPUS	32u		/* NV0000_CTRL_GPU_MAX_PROBED_GPUS (NV_MAX_DEVICES) */
#define RM_GPU_INVALID_ID	0xffffffffu
#define RM_GID_LEN		256u		/* NV0000_GPU_MAX_GID_LENGTH */
#define RM_UUID_FLAGS_BINARY	0x2u		/* ..._FLAGS_FORMAT_BINARY, TYPE_SHA1 */
#define RM_UUID_BYTES		16u		/* a binary SHA-1 GID */
#define RM_NAME_LEN		64u		/* NV2080_GPU_MAX_NAME_STRING_LENGTH */
#define RM_FB_INFO_MAX		128u		/* NV2080_CTRL_FB_INFO_MAX_LIST_SIZE */
/* FB info indices (values in KiB). */
#define NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE	0x08
#define NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE		0x09
#define NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE		0x16
#define NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE	0x20

struct rm_gpu_ids {			/* NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS */
	__u32 gpuIds[RM_MAX_GPUS];	/* RM_GPU_INVALID_ID ends the list */
};
struct rm_gpu_probed_ids {		/* NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS */
	__u32 gpuIds[RM_MAX_PROBED_GPUS];
	__u32 excludedGpuIds[RM_MAX_PROBED_GPUS];
	__u32 gpuFlags[RM_MAX_PROBED_GPUS];
};
struct rm_gpu_id_info {			/* NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS */
	__u32 gpuId;
	__u32 gpuFlags;
	__u32 deviceInstance;		/* NV0080_ALLOC_PARAMETERS.deviceId */
	__u32 subDeviceInstance;	/* NV2080_ALLOC_PARAMETERS.subDeviceId */
	__u32 sliStatus;
	__u32 boardId;
	__u32 gpuInstance;
	__s32 numaId;
};
struct rm_gpu_pci_info {		/* NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS */
	__u32 gpuId;
	__u32 domain;
	__u16 bus;
	__u16 slot;
};
struct rm_gpu_uuid {			/* NV0000_CTRL_GPU_GET_UUID_FROM_GPU_ID_PARAMS */
	__u32 gpuId;
	__u32 flags;
	__u8 gpuUuid[RM_GID_LEN];
	__u32 uuidStrLen;
};
struct rm_gpu_name {			/* NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS */
	__u32 gpuNameStringFlags;	/* 0: ASCII */
	union {				/* the driver's union: 128 bytes, whichever is asked */
		__u8 ascii[RM_NAME_LEN];
		__u16 unicode[RM_NAME_LEN];
	};
};
struct rm_gpu_id {			/* NV2080_CTRL_GPU_GET_ID_PARAMS */
	__u32 gpuId;
};
struct rm_fb_info_entry {		/* NV2080_CTRL_FB_INFO */
	__u32 index;
	__u32 data;
};
/*
 * NV2080_CTRL_FB_GET_INFO_PARAMS: the list by pointer.  Its size never
 * changes, where V2's embedded list is NV2080_CTRL_FB_INFO_MAX_LIST_SIZE long,
 * a number that grows with the driver (RM refuses any other size).
 */
struct rm_fb_info_v1 {
	__u32 fbInfoListSize;
	__u32 _pad;
	__u64 fbInfoList;		/* struct rm_fb_info_entry * */
};
#define NV2080_CTRL_CMD_FB_GET_INFO	0x20801301	/* struct rm_fb_info_v1 */
struct rm_fb_info {			/* NV2080_CTRL_FB_GET_INFO_V2_PARAMS */
	__u32 fbInfoListSize;
	struct rm_fb_info_entry fbInfoList[RM_FB_INFO_MAX];
};
struct rm_device_alloc {		/* NV0080_ALLOC_PARAMETERS */
	__u32 deviceId;
	__u32 hClientShare;
	__u32 hTargetClient;
	__u32 hTargetDevice;
	__u32 flags;
	__u32 _pad;
	__u64 vaSpaceSize;
	__u64 vaStartInternal;
	__u64 vaLimitInternal;
	__u32 vaMode;
	__u32 _pad1;
};
struct rm_subdevice_alloc {		/* NV2080_ALLOC_PARAMETERS */
	__u32 subDeviceId;
};

_Static_assert(sizeof(struct rm_gpu_ids) == 128, "ATTACHED_IDS params are 128 bytes");
_Static_assert(sizeof(struct rm_gpu_probed_ids) == 384, "PROBED_IDS params are 384 bytes");
_Static_assert(sizeof(struct rm_gpu_id_info) == 32, "ID_INFO_V2 params are 32 bytes");
_Static_assert(sizeof(struct rm_gpu_pci_info) == 12, "PCI_INFO params are 12 bytes");
_Static_assert(sizeof(struct rm_gpu_uuid) == 268, "UUID_FROM_GPU_ID params are 268 bytes");
_Static_assert(sizeof(struct rm_gpu_name) == 132, "NAME_STRING params are 132 bytes");
_Static_assert(sizeof(struct rm_fb_info_v1) == 16, "FB_GET_INFO params are 16 bytes");
_Static_assert(sizeof(struct rm_gpu_id) == 4, "GPU_GET_ID params are 4 bytes");
_Static_assert(sizeof(struct rm_fb_info) == 4 + 8 * RM_FB_INFO_MAX, "FB_GET_INFO_V2 params");
_Static_assert(sizeof(struct rm_device_alloc) == 56, "NV0080_ALLOC_PARAMETERS are 56 bytes");
_Static_assert(sizeof(struct rm_subdevice_alloc) == 4, "NV2080_ALLOC_PARAMETERS are 4 bytes");

#if !defined(__KERNEL__) && !defined(__bpf__)
#include <stdbool.h>
#include <stddef.h>

#define GPU_UUID_STR	41	/* "GPU-" 36 characters, NUL */
#define GPU_PCI_STR	20	/* "00000000:01:00.0" as nvidia-smi prints it */

/* One GPU, as gpuctl names it everywhere. */
struct gpu_info {
	int index;			/* nvidia-smi's: position in PCI bus id order */
	__u32 gpu_id;			/* RM's GPU ID */
	__u8 uuid[RM_UUID_BYTES];
	char uuid_str[GPU_UUID_STR];
	char pci[GPU_PCI_STR];
	__u32 domain;
	__u16 bus, slot;
	char name[RM_NAME_LEN + 1];
	__u64 total_bytes, free_bytes;	/* 0 when RM did not say */
	bool have_mem;
	__u32 dev_inst, subdev_inst;
};

/*
 * The GPUs RM has attached, from the RM device dev (rm_device_path()): a
 * client of gpuctl's own on a freshly opened file, freed before returning.
 * Ordered and indexed as nvidia-smi does (PCI bus id).  Returns how many
 * (0..max), or -1 with the reason in err.
 */
int rm_gpus_read(const char *dev, struct gpu_info *g, int max, char *err, size_t len);
/* Sorts n GPUs by PCI bus id and sets their index. */
void gpus_order(struct gpu_info *g, int n);
/* "GPU-6d6f6465-6c67-5055-8000-000000000001" from 16 bytes. */
void gpu_uuid_format(const __u8 uuid[RM_UUID_BYTES], char out[GPU_UUID_STR]);
/* "00000000:01:00.0" */
void gpu_pci_format(__u32 domain, __u16 bus, __u16 slot, char out[GPU_PCI_STR]);
/*
 * The GPU that spec names: an index ("0"), a UUID ("GPU-..." or without
 * "GPU-", case-insensitive, or a unique prefix of at least 8 hex digits) or
 * a PCI bus id.  Its position in g, or -1 (none, or ambiguous).
 */
int gpu_find(const struct gpu_info *g, int n, const char *spec);
/* The GPU whose RM GPU ID is id, or -1. */
int gpu_by_id(const struct gpu_info *g, int n, __u32 id);
/* The GPU with that UUID (16 bytes), or -1. */
int gpu_by_uuid(const struct gpu_info *g, int n, const __u8 uuid[RM_UUID_BYTES]);
/*
 * The RM GPU ID of the device or subdevice hObject of hClient, asked
 * through fd (the client's own file): 0 and *gpu_id, or -errno / RM status
 * (positive) when it could not be told.
 */
int rm_object_gpu_id(int fd, __u32 hClient, __u32 hObject, __u32 *gpu_id);
#endif

#endif
