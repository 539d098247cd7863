// SPDX-License-Identifier: GPL-2.0
/*
 * rm_gpu.c - the GPUs as RM knows them, read through a client of gpuctl's
 * own (rm_gpu.h): no NVML, so the static binary has it too.
 *
 *   open the RM device; NV01_ROOT_CLIENT;
 *   GET_PROBED_IDS, then NV_ESC_ATTACH_GPUS_TO_FD (as CUDA and nvidia-smi do:
 *     a GPU nobody holds open is brought up while this file is open; a
 *     refusal is not fatal, the attached ones are listed anyway);
 *   GET_ATTACHED_IDS; per GPU: GET_ID_INFO_V2, GET_PCI_INFO,
 *     GET_UUID_FROM_GPU_ID (binary SHA-1: 16 bytes);
 *   NV01_DEVICE_0 and NV20_SUBDEVICE_0 under it: GET_NAME_STRING,
 *     FB_GET_INFO_V2 (total RAM, heap free: KiB);
 *   free the client (everything under it), close.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gpuctl.h"
#include "rm_gpu.h"

void gpu_uuid_format(const __u8 u[RM_UUID_BYTES], char out[GPU_UUID_STR])
{
	snprintf(out, GPU_UUID_STR,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

void gpu_pci_format(__u32 domain, __u16 bus, __u16 slot, char out[GPU_PCI_STR])
{
	snprintf(out, GPU_PCI_STR, "%08x:%02x:%02x.0", domain, bus & 0xff, slot & 0x1f);
}

static int pci_cmp(const void *a, const void *b)
{
	const struct gpu_info *x = a, *y = b;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->gpu_id < y->gpu_id ? -1 : x->gpu_id > y->gpu_id;
}

void gpus_order(struct gpu_info *g, int n)
{
	if (n > 1)
		qsort(g, n, sizeof(*g), pci_cmp);
	for (int i = 0; i < n; i++)
		g[i].index = i;
}

/* Hex digits of a UUID spelling, dashes and a "GPU-" prefix dropped: count, or -1. */
static int uuid_hex(const char *s, char *hex, size_t len)
{
	size_t n = 0;

	if (!strncasecmp(s, "GPU-", 4))
		s += 4;
	for (; *s; s++) {
		if (*s == '-')
			continue;
		if (!isxdigit((unsigned char)*s) || n + 1 >= len)
			return -1;
		hex[n++] = tolower((unsigned char)*s);
	}
	hex[n] = 0;
	return (int)n;
}

int gpu_find(const struct gpu_info *g, int n, const char *spec)
{
	char want[40], have[40], *end;
	int hit = -1, k;
	unsigned long v;

	if (!spec || !*spec)
		return -1;
	errno = 0;
	v = strtoul(spec, &end, 10);
	if (!*end && !errno && isdigit((unsigned char)*spec))
		return v < (unsigned long)n ? (int)v : -1;
	for (int i = 0; i < n; i++)	/* a PCI bus id, with or without the long domain */
		if (!strcasecmp(spec, g[i].pci) ||
		    (strlen(spec) == 12 && !strcasecmp(spec, g[i].pci + 4)))
			return i;
	k = uuid_hex(spec, want, sizeof(want));
	if (k < 8)
		return -1;
	for (int i = 0; i < n; i++) {
		uuid_hex(g[i].uuid_str, have, sizeof(have));
		if (!strncmp(have, want, k)) {
			if (hit >= 0)
				return -1;	/* ambiguous prefix */
			hit = i;
		}
	}
	return hit;
}

int gpu_by_id(const struct gpu_info *g, int n, __u32 id)
{
	for (int i = 0; i < n; i++)
		if (g[i].gpu_id == id)
			return i;
	return -1;
}

int gpu_by_uuid(const struct gpu_info *g, int n, const __u8 uuid[RM_UUID_BYTES])
{
	for (int i = 0; i < n; i++)
		if (!memcmp(g[i].uuid, uuid, RM_UUID_BYTES))
			return i;
	return -1;
}

/* One control, 0 or -1 (ioctl failed or RM said no). */
static int ctl(int fd, __u32 hClient, __u32 hObject, __u32 cmd, void *p, __u32 size)
{
	__u32 st;

	return rm_control(fd, hClient, hObject, cmd, p, size, &st) || st ? -1 : 0;
}

/* -d: why RM did not tell a GPU's name or memory. */
static void why(const struct gpu_info *g, const char *step, int ret, __u32 st)
{
	if (debug_output)
		fprintf(stderr, "debug: GPU %s: %s: %s\n", g->pci, step,
			ret ? strerror(-ret) : rm_status_name(st));
}

/*
 * The GPU's own device file (/dev/nvidiaN, N its minor as the driver's
 * /proc says), with the control file registered on it as CUDA does before it
 * asks for a device object: the fd (kept open while the object lives), or -1.
 */
static int register_gpu_fd(int ctl_fd, const struct gpu_info *g)
{
	char path[96], line[128];
	int minor = -1, fd, arg = ctl_fd;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%04x:%02x:%02x.0/information",
		 g->domain, g->bus, g->slot);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Device Minor: %d", &minor) == 1)
			break;
	if (f)
		fclose(f);
	if (minor < 0 || minor > 255)
		return -1;
	snprintf(path, sizeof(path), "/dev/nvidia%d", minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC, NV_ESC_REGISTER_FD, sizeof(arg)),
		  &arg)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Total and free memory (KiB lists): FB_GET_INFO (fixed size), else _V2. */
static void gpu_memory(int fd, __u32 hClient, __u32 hSub, struct gpu_info *g)
{
	struct rm_fb_info fb;		/* 1 KiB; the exporter's threads may ask at once */
	struct rm_fb_info_v1 v1 = { .fbInfoListSize = 2 };
	__u64 v[2] = { 0 };
	bool got[2] = { false };
	__u32 st;
	int ret;

	memset(&fb, 0, sizeof(fb));
	fb.fbInfoListSize = 2;
	fb.fbInfoList[0].index = NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE;
	fb.fbInfoList[1].index = NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE;
	v1.fbInfoList = (__u64)(unsigned long)fb.fbInfoList;
	ret = rm_control(fd, hClient, hSub, NV2080_CTRL_CMD_FB_GET_INFO, &v1, sizeof(v1), &st);
	if (ret || st) {
		why(g, "FB_GET_INFO", ret, st);
		ret = rm_control(fd, hClient, hSub, NV2080_CTRL_CMD_FB_GET_INFO_V2, &fb, sizeof(fb), &st);
		if (ret || st)
			return why(g, "FB_GET_INFO_V2", ret, st);
	}
	for (int i = 0; i < 2; i++) {
		int k = fb.fbInfoList[i].index == NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE;

		v[k] = (__u64)fb.fbInfoList[i].data << 10;
		got[k] = true;
	}
	if (got[0] && got[1]) {
		g->total_bytes = v[0];
		g->free_bytes = v[1] < v[0] ? v[1] : v[0];
		g->have_mem = true;
	}
}

/* Name and memory through a device and subdevice of the GPU (best effort). */
static void gpu_describe(int fd, __u32 hClient, struct gpu_info *g)
{
	struct rm_device_alloc da = { .deviceId = g->dev_inst, .hClientShare = hClient };
	struct rm_subdevice_alloc sa = { .subDeviceId = g->subdev_inst };
	struct rm_gpu_name nm = { 0 };
	__u32 hDev = 0, hSub = 0, st = 0;
	int ret, gfd = -1;

	ret = rm_alloc(fd, hClient, hClient, &hDev, NV01_DEVICE_0, &da, sizeof(da), &st);
	if ((ret || st) && (gfd = register_gpu_fd(fd, g)) >= 0) {
		hDev = 0;
		ret = rm_alloc(fd, hClient, hClient, &hDev, NV01_DEVICE_0, &da, sizeof(da), &st);
	}
	if (ret || st) {
		why(g, "device object (NV01_DEVICE_0)", ret, st);
		goto out_fd;
	}
	ret = rm_alloc(fd, hClient, hDev, &hSub, NV20_SUBDEVICE_0, &sa, sizeof(sa), &st);
	if (ret || st) {
		why(g, "subdevice object (NV20_SUBDEVICE_0)", ret, st);
		goto out;
	}
	ret = rm_control(fd, hClient, hSub, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &nm, sizeof(nm), &st);
	if (!ret && !st) {
		memcpy(g->name, nm.ascii, RM_NAME_LEN);
		g->name[RM_NAME_LEN] = 0;
	} else {
		why(g, "GPU_GET_NAME_STRING", ret, st);
	}
	gpu_memory(fd, hClient, hSub, g);
out:
	rm_free(fd, hClient, hClient, hDev, &st);
out_fd:
	if (gfd >= 0)
		close(gfd);
}

int rm_gpus_read(const char *dev, struct gpu_info *g, int max, char *err, size_t len)
{
	struct rm_gpu_probed_ids probed;
	struct rm_gpu_ids ids;
	__u32 hClient = 0, st, attach[RM_MAX_PROBED_GPUS];
	int fd, n = 0, na = 0, ret;

	dev = rm_device_path(dev);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "RM device %s: %s%s", dev, strerror(errno),
			 errno == ENOENT ? " (no NVIDIA driver loaded?)" : "");
		return -1;
	}
	ret = rm_alloc(fd, 0, 0, &hClient, NV01_ROOT_CLIENT, NULL, 0, &st);
	if (ret || st) {
		snprintf(err, len, "RM device %s: a client was refused: %s", dev,
			 ret ? strerror(-ret) : rm_status_name(st));
		close(fd);
		return -1;
	}
	memset(&probed, 0xff, sizeof(probed));
	if (!ctl(fd, hClient, hClient, NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, &probed, sizeof(probed))) {
		for (__u32 i = 0; i < RM_MAX_PROBED_GPUS; i++)
			if (probed.gpuIds[i] != RM_GPU_INVALID_ID)
				attach[na++] = probed.gpuIds[i];
		if (na)	/* best effort: a GPU that refuses is simply not attached */
			(void)!ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC,
					      NV_ESC_ATTACH_GPUS_TO_FD, na * sizeof(__u32)), attach);
	}
	memset(&ids, 0xff, sizeof(ids));
	if (ctl(fd, hClient, hClient, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, &ids, sizeof(ids))) {
		snprintf(err, len, "RM device %s does not list its GPUs (GET_ATTACHED_IDS)", dev);
		rm_free(fd, hClient, hClient, hClient, &st);
		close(fd);
		return -1;
	}
	for (__u32 i = 0; i < RM_MAX_GPUS && n < max; i++) {
		struct rm_gpu_id_info info = { .gpuId = ids.gpuIds[i] };
		struct rm_gpu_pci_info pci = { .gpuId = ids.gpuIds[i] };
		struct rm_gpu_uuid uu = { .gpuId = ids.gpuIds[i], .flags = RM_UUID_FLAGS_BINARY };
		struct gpu_info *x = &g[n];

		if (ids.gpuIds[i] == RM_GPU_INVALID_ID)
			break;
		memset(x, 0, sizeof(*x));
		x->gpu_id = ids.gpuIds[i];
		if (!ctl(fd, hClient, hClient, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &info,
			 sizeof(info))) {
			x->dev_inst = info.deviceInstance;
			x->subdev_inst = info.subDeviceInstance;
		}
		if (!ctl(fd, hClient, hClient, NV0000_CTRL_CMD_GPU_GET_PCI_INFO, &pci, sizeof(pci))) {
			x->domain = pci.domain;
			x->bus = pci.bus;
			x->slot = pci.slot;
		}
		gpu_pci_format(x->domain, x->bus, x->slot, x->pci);
		if (!ctl(fd, hClient, hClient, NV0000_CTRL_CMD_GPU_GET_UUID_FROM_GPU_ID, &uu,
			 sizeof(uu)))
			memcpy(x->uuid, uu.gpuUuid, RM_UUID_BYTES);
		gpu_uuid_format(x->uuid, x->uuid_str);
		gpu_describe(fd, hClient, x);
		n++;
	}
	rm_free(fd, hClient, hClient, hClient, &st);
	close(fd);
	gpus_order(g, n);
	return n;
}

static int handle_info(int fd, __u32 hClient, __u32 h, __u32 index, __u64 *data)
{
	struct rm_handle_info hi = { .hObject = h, .index = index };
	__u32 st;
	int ret = rm_control(fd, hClient, hClient, NV0000_CTRL_CMD_CLIENT_GET_HANDLE_INFO, &hi,
			     sizeof(hi), &st);

	if (ret)
		return ret;
	if (st)
		return (int)st;
	*data = hi.data;
	return 0;
}

#define RM_GPU_SCAN	64	/* handles either side of a device to find its subdevice */

int rm_object_gpu_id(int fd, __u32 hClient, __u32 hObject, __u32 *gpu_id)
{
	struct rm_gpu_id id = { 0 };
	__u64 cls, parent;
	__u32 st, sub = 0;
	int ret = handle_info(fd, hClient, hObject, NV0000_HANDLE_INFO_CLASSID, &cls);

	if (ret)
		return ret;
	if (cls == NV20_SUBDEVICE_0) {
		sub = hObject;
	} else if (cls == NV01_DEVICE_0) {
		__u32 lo = hObject > RM_GPU_SCAN ? hObject - RM_GPU_SCAN : 1;

		/* its subdevice: clients number their objects closely */
		for (__u32 h = lo; h <= hObject + RM_GPU_SCAN && h >= lo && !sub; h++)
			if (h != hObject &&
			    !handle_info(fd, hClient, h, NV0000_HANDLE_INFO_CLASSID, &cls) &&
			    cls == NV20_SUBDEVICE_0 &&
			    !handle_info(fd, hClient, h, NV0000_HANDLE_INFO_PARENT, &parent) &&
			    parent == hObject)
				sub = h;
		if (!sub)
			return -ENOENT;
	} else {
		return -EINVAL;
	}
	ret = rm_control(fd, hClient, sub, NV2080_CTRL_CMD_GPU_GET_ID, &id, sizeof(id), &st);
	if (ret)
		return ret;
	if (st)
		return (int)st;
	*gpu_id = id.gpuId;
	return 0;
}
