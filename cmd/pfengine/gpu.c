// SPDX-License-Identifier: GPL-2.0
/*
 * gpu.c - how much memory a GPU has free, from NVML: the library the
 * driver installs (libnvidia-ml.so.1), opened at run time so that gpuctl
 * neither links against it nor needs it where there is no GPU.  Only the
 * four calls used are declared, by their documented C signatures.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "uvm.h"

typedef void *nvml_device;
struct nvml_memory {
	unsigned long long total, free, used;
};

static struct {
	bool tried, ok;
	char why[160];
	int (*init)(void);
	int (*by_uuid)(const char *uuid, nvml_device *dev);
	int (*memory)(nvml_device dev, struct nvml_memory *m);
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
	/* glibc's dlopen from a static binary dies (SIGFPE, seen on the H100) */
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
	nvml.memory = (int (*)(nvml_device, struct nvml_memory *))dlsym(h, "nvmlDeviceGetMemoryInfo");
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

int gpu_free_bytes(const struct uvm_uuid *u, uint64_t *bytes, char *err, size_t len)
{
	struct nvml_memory m;
	nvml_device dev;
	char name[48];
	int ret;

	if (!nvml_open()) {
		snprintf(err, len, "%s", nvml.why);
		return -1;
	}
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
