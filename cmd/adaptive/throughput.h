/* SPDX-License-Identifier: GPL-2.0 */
/* throughput.h - host-to-device transfer rate, from NVML or the UVM model. */
#ifndef GPUCTL_THROUGHPUT_H
#define GPUCTL_THROUGHPUT_H

#include <stdbool.h>

struct throughput {
	const char *source;	/* "nvml" or "uvm_model" */
	/* private */
	bool nvml;
	unsigned long long last_bytes;
	double last_time;
};

/* Opens the first source that works; p_err naming both when none does. */
int throughput_open(struct throughput *t);
/* Host-to-device MB/s: NVML's current PCIe RX, or the model's rate since the last call. */
int throughput_mbps(struct throughput *t, double *mbps);
void throughput_close(struct throughput *t);

#endif
