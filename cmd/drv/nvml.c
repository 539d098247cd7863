// SPDX-License-Identifier: GPL-2.0
/*
 * nvml.c - NVML, loaded once (nvml.h): how much memory a GPU has free, and
 * a GPU's PCIe RX throughput (adaptive prefetch's source).  Only the calls
 * used are declared, by their documented C signatures.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nvml.h"
#include "uvm.h"	/* uuid_format */

#define NVML_PCIE_UTIL_RX_BYTES 1

typedef void *nvml_device;
struct nvml_memory {
	unsigned long long total, free, used;
};

static struct {
	bool tried, ok;
	char why[160];
	int (*init)(void);
	int (*by_uuid)(const char *uuid, nvml_device *dev);
	int (*by_index)(unsigned int index, nvml_device *dev);
	int (*memory)(nvml_device dev, struct nvml_memory *m);
	int (*pcie)(nvml_device dev, int counter, unsigned int *kbps);
	const char *(*error)(int ret);
} nvml;

static bool nvml_open(void)
{
#ifndef GPUCTL_STATIC
	void *h;
#endif

	if (nvml.tried)
		return nvml.ok;
	nvml.tried = true;
#ifdef GPUCTL_STATIC
	snprintf(nvml.why, sizeof(nvml.why),
		 "NVML (libnvidia-ml.so.1) cannot be loaded by a static gpuctl");
	return false;
#else
	h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(nvml.why, sizeof(nvml.why), "NVML (libnvidia-ml.so.1) is not installed");
		return false;
	}
	nvml.init = (int (*)(void))dlsym(h, "nvmlInit_v2");
	nvml.by_uuid = (int (*)(const char *, nvml_device *))dlsym(h, "nvmlDeviceGetHandleByUUID");
	nvml.by_index = (int (*)(unsigned int, nvml_device *))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	nvml.memory = (int (*)(nvml_device, struct nvml_memory *))dlsym(h, "nvmlDeviceGetMemoryInfo");
	nvml.pcie = (int (*)(nvml_device, int, unsigned int *))dlsym(h, "nvmlDeviceGetPcieThroughput");
	nvml.error = (const char *(*)(int))dlsym(h, "nvmlErrorString");
	if (!nvml.init || !nvml.by_uuid || !nvml.memory || !nvml.error) {
		snprintf(nvml.why, sizeof(nvml.why), "libnvidia-ml.so.1 lacks the calls gpuctl needs");
		return false;
	}
	if (nvml.init()) {
		snprintf(nvml.why, sizeof(nvml.why), "NVML did not initialize");
		return false;
	}
	nvml.ok = true;
	return true;
#endif
}

bool nvml_load(char *why, size_t len)
{
	if (nvml_open())
		return true;
	snprintf(why, len, "%s", nvml.why);
	return false;
}

int gpu_free_bytes(const struct uvm_uuid *u, uint64_t *bytes, char *err, size_t len)
{
	struct nvml_memory m;
	nvml_device dev;
	char name[48];
	int ret;

	if (!nvml_load(err, len))
		return -1;
	uuid_format(u, name, sizeof(name));
	ret = nvml.by_uuid(name, &dev);
	if (!ret)
		ret = nvml.memory(dev, &m);
	if (ret) {
		snprintf(err, len, "NVML on %s: %s", name, nvml.error(ret));
		return -1;
	}
	*bytes = m.free;
	return 0;
}

int nvml_pcie_rx_kbps(unsigned int index, unsigned int *kbps)
{
	nvml_device dev;

	if (!nvml_open() || !nvml.by_index || !nvml.pcie || nvml.by_index(index, &dev))
		return -1;
	return nvml.pcie(dev, NVML_PCIE_UTIL_RX_BYTES, kbps) ? -1 : 0;
}

bool nvml_pcie_rx_usable(unsigned int index)
{
	nvml_device dev;

	return nvml_open() && nvml.by_index && nvml.pcie && !nvml.by_index(index, &dev);
}
