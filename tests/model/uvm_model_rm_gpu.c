// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_model_rm_gpu.c - the model's GPUs as RM describes them (cmd/drv/rm_gpu.h),
 * so that gpuctl's GPU naming is tested in the VM:
 *   on the client object: GET_PROBED_IDS, GET_ATTACHED_IDS (in reverse PCI
 *     order, so that gpuctl's ordering is exercised), GET_ID_INFO_V2,
 *     GET_PCI_INFO, GET_UUID_FROM_GPU_ID (binary);
 *   on a subdevice: GET_NAME_STRING, GET_ID, FB_GET_INFO_V2 (GPU 0's memory is
 *     the model's gpu_chunks, free what its chunks leave; the others report
 *     the same total, all free; 16 GiB when gpu_chunks is 0: unlimited).
 * GPU i: RM GPU ID (i + 1) << 8, PCI 0000:<i+1>:00.0, deviceInstance i.
 */
#include <linux/module.h>
#include <linux/uaccess.h>

#include "uvm_model.h"
#include "uvm_model_rm.h"
#include "../../cmd/drv/rm_gpu.h"

unsigned int uvm_model_gpus = 2;
module_param_named(gpus, uvm_model_gpus, uint, 0444);
MODULE_PARM_DESC(gpus, "GPUs the model shows (1..32, NVIDIA's limit)");

#define MODEL_UNLIMITED_BYTES	(16ULL << 30)

unsigned int rm_gpu_count(void)
{
	return clamp_t(unsigned int, uvm_model_gpus, 1, UVM_MODEL_MAX_GPUS);
}

static u32 gpu_id_of(unsigned int i)
{
	return (i + 1) << 8;
}

static int gpu_of_id(u32 id)
{
	for (unsigned int i = 0; i < rm_gpu_count(); i++)
		if (gpu_id_of(i) == id)
			return i;
	return -1;
}

static void gpu_mem(int gpu, u64 *total, u64 *free)
{
	u64 used = 0;

	mutex_lock(&model.lock);
	if (!model.cfg.gpu_chunks) {
		*total = MODEL_UNLIMITED_BYTES;
	} else {
		*total = (u64)model.cfg.gpu_chunks << UVM_MODEL_BLOCK_SHIFT;
		if (gpu == 0 && model.chunks)
			for (u32 i = 0; i < model.cfg.gpu_chunks; i++)
				used += model.chunks[i].va_block != NULL;
	}
	mutex_unlock(&model.lock);
	used <<= UVM_MODEL_BLOCK_SHIFT;
	*free = used < *total ? *total - used : 0;
}

#define PARAMS(type) \
	type v; \
	if (size != sizeof(v) || !up) \
		return NV_ERR_INVALID_PARAM_STRUCT; \
	if (copy_from_user(&v, up, sizeof(v))) \
		return NV_ERR_INVALID_POINTER
#define DONE() (copy_to_user(up, &v, sizeof(v)) ? NV_ERR_INVALID_POINTER : NV_OK)

u32 rm_gpu_client_control(u32 cmd, u32 size, void __user *up)
{
	unsigned int n = rm_gpu_count();
	int g;

	switch (cmd) {
	case NV0000_CTRL_CMD_GPU_GET_PROBED_IDS: {
		PARAMS(struct rm_gpu_probed_ids);
		memset(&v, 0xff, sizeof(v));
		for (unsigned int i = 0; i < n; i++)
			v.gpuIds[i] = gpu_id_of(i);
		memset(v.gpuFlags, 0, sizeof(v.gpuFlags));
		return DONE();
	}
	case NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS: {
		PARAMS(struct rm_gpu_ids);
		memset(&v, 0xff, sizeof(v));
		for (unsigned int i = 0; i < n; i++)
			v.gpuIds[i] = gpu_id_of(n - 1 - i);
		return DONE();
	}
	case NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2: {
		PARAMS(struct rm_gpu_id_info);
		g = gpu_of_id(v.gpuId);
		if (g < 0)
			return NV_ERR_INVALID_ARGUMENT;
		v.gpuFlags = 1;
		v.deviceInstance = g;
		v.subDeviceInstance = 0;
		v.sliStatus = 0;
		v.boardId = g;
		v.gpuInstance = g;
		v.numaId = -1;
		return DONE();
	}
	case NV0000_CTRL_CMD_GPU_GET_PCI_INFO: {
		PARAMS(struct rm_gpu_pci_info);
		g = gpu_of_id(v.gpuId);
		if (g < 0)
			return NV_ERR_INVALID_ARGUMENT;
		v.domain = 0;
		v.bus = g + 1;
		v.slot = 0;
		return DONE();
	}
	case NV0000_CTRL_CMD_GPU_GET_UUID_FROM_GPU_ID: {
		PARAMS(struct rm_gpu_uuid);
		g = gpu_of_id(v.gpuId);
		if (g < 0)
			return NV_ERR_OBJECT_NOT_FOUND;
		if (!(v.flags & RM_UUID_FLAGS_BINARY))
			return NV_ERR_NOT_SUPPORTED;	/* the model speaks binary only */
		{
			const u8 u[16] = UVM_MODEL_GPU_UUID_I(g);

			memset(v.gpuUuid, 0, sizeof(v.gpuUuid));
			memcpy(v.gpuUuid, u, sizeof(u));
		}
		v.uuidStrLen = RM_UUID_BYTES;
		return DONE();
	}
	}
	return NV_ERR_NOT_SUPPORTED;
}

u32 rm_gpu_subdev_control(int gpu, u32 cmd, u32 size, void __user *up)
{
	switch (cmd) {
	case NV2080_CTRL_CMD_GPU_GET_NAME_STRING: {
		PARAMS(struct rm_gpu_name);
		memset(v.ascii, 0, sizeof(v.ascii));
		strscpy(v.ascii, "NVIDIA Model GPU", sizeof(v.ascii));
		return DONE();
	}
	case NV2080_CTRL_CMD_GPU_GET_ID: {
		PARAMS(struct rm_gpu_id);
		v.gpuId = gpu_id_of(gpu);
		return DONE();
	}
	case NV2080_CTRL_CMD_FB_GET_INFO_V2: {
		u64 total, free;

		PARAMS(struct rm_fb_info);
		if (v.fbInfoListSize > RM_FB_INFO_MAX)
			return NV_ERR_INVALID_ARGUMENT;
		gpu_mem(gpu, &total, &free);
		for (u32 i = 0; i < v.fbInfoListSize; i++) {
			u64 kib;

			switch (v.fbInfoList[i].index) {
			case 0x07:	/* RAM_SIZE */
			case NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE:
			case NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE:
			case NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE:
				kib = total >> 10;
				break;
			case NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE:
				kib = free >> 10;
				break;
			default:
				kib = 0;
			}
			v.fbInfoList[i].data = (u32)kib;
		}
		return DONE();
	}
	}
	return NV_ERR_NOT_SUPPORTED;
}

int rm_gpu_of_device_alloc(const void __user *up, u32 size)
{
	struct rm_device_alloc a;

	if (!up || !size)
		return 0;	/* no parameters: the first GPU */
	if (size != sizeof(a) || copy_from_user(&a, up, sizeof(a)))
		return -1;
	return a.deviceId < rm_gpu_count() ? (int)a.deviceId : -1;
}
