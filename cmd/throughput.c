// SPDX-License-Identifier: GPL-2.0
/*
 * throughput.c - host-to-device throughput for the adaptive prefetch loop.
 *
 * NVML (libnvidia-ml.so.1, loaded with dlopen so gpuctl does not depend on
 * it): nvmlDeviceGetPcieThroughput(RX) of GPU 0, in KB/s.  Where there is no
 * NVML (the test VM), the UVM model's count of migrated pages, in debugfs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "gpuctl.h"
#include "throughput.h"

#define MODEL_PAGES "/sys/kernel/debug/uvm_model/pages_migrated"
#define NVML_PCIE_UTIL_RX_BYTES 1

static int nvml_open(struct throughput *t)
{
#ifdef GPUCTL_STATIC
	/* glibc's dlopen from a static binary dies (SIGFPE, seen on the H100) */
	(void)t;
	return -1;
#else
	int (*init)(void);
	int (*by_index)(unsigned int, void **);

	t->nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!t->nvml)
		return -1;
	init = (int (*)(void))dlsym(t->nvml, "nvmlInit_v2");
	by_index = (int (*)(unsigned int, void **))dlsym(t->nvml, "nvmlDeviceGetHandleByIndex_v2");
	t->rx = (unsigned int (*)(void *, int, unsigned int *))dlsym(t->nvml, "nvmlDeviceGetPcieThroughput");
	if (!init || !by_index || !t->rx || init() || by_index(0, &t->dev)) {
		dlclose(t->nvml);
		t->nvml = NULL;
		return -1;
	}
	t->source = "nvml";
	return 0;
#endif
}

static int model_read(unsigned long long *pages)
{
	FILE *f = fopen(MODEL_PAGES, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu", pages);
	fclose(f);
	return n == 1 ? 0 : -1;
}

int throughput_open(struct throughput *t)
{
	unsigned long long pages;

	memset(t, 0, sizeof(*t));
	if (!nvml_open(t))
		return 0;
	if (!model_read(&pages)) {
		t->source = "uvm_model";
		t->last_bytes = pages * 4096;
		t->last_time = mono_s();
		return 0;
	}
	p_err("no throughput source: NVML (libnvidia-ml.so.1) is not usable and the UVM model's "
	      "counters (" MODEL_PAGES ") are absent");
	return -1;
}

int throughput_mbps(struct throughput *t, double *mbps)
{
	unsigned long long pages, bytes;
	unsigned int kbps;
	double now;

	if (t->nvml) {
		if (t->rx(t->dev, NVML_PCIE_UTIL_RX_BYTES, &kbps))
			return -1;
		*mbps = kbps / 1000.0;
		return 0;
	}
	if (model_read(&pages))
		return -1;
	bytes = pages * 4096;
	now = mono_s();
	*mbps = now > t->last_time && bytes >= t->last_bytes ?
		(bytes - t->last_bytes) / 1e6 / (now - t->last_time) : 0;
	t->last_bytes = bytes;
	t->last_time = now;
	return 0;
}

void throughput_close(struct throughput *t)
{
	if (!t->nvml)
		return;
#ifndef GPUCTL_STATIC
	int (*shutdown)(void);

	shutdown = (int (*)(void))dlsym(t->nvml, "nvmlShutdown");
	if (shutdown)
		shutdown();
	dlclose(t->nvml);
#endif
	t->nvml = NULL;
}
