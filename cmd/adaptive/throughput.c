// SPDX-License-Identifier: GPL-2.0
/*
 * throughput.c - host-to-device throughput for the adaptive prefetch loop.
 *
 * NVML (cmd/drv/nvml.c): nvmlDeviceGetPcieThroughput(RX) of GPU 0, in KB/s.  Where there is no
 * NVML (the test VM), the UVM model's count of migrated pages, in debugfs.
 */
#include <errno.h>
#include <stdio.h>

#include "gpuctl.h"
#include "nvml.h"
#include "throughput.h"

#define MODEL_PAGES "/sys/kernel/debug/uvm_model/pages_migrated"

static int nvml_source(struct throughput *t)
{
	if (!nvml_pcie_rx_usable(0))
		return -1;
	t->nvml = true;
	t->source = "nvml";
	return 0;
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
	if (!nvml_source(t))
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
		if (nvml_pcie_rx_kbps(0, &kbps))
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
	t->nvml = false;	/* NVML stays loaded (cmd/drv/nvml.c loads it once) */
}
