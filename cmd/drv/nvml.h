/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvml.h - NVML, the library the driver installs (libnvidia-ml.so.1), loaded
 * once at run time (nvml.c) so that gpuctl neither links against it nor
 * needs it where there is no GPU.  A static gpuctl never loads it (glibc's
 * dlopen from a static binary dies: SIGFPE, seen on the H100).
 */
#ifndef GPUCTL_DRV_NVML_H
#define GPUCTL_DRV_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvm_ioctl.h"	/* struct uvm_uuid */

/* Loads and initializes NVML the first time: true, or false with why set. */
bool nvml_load(char *why, size_t len);

/*
 * The free memory of GPU u: 0, or -1 with err set (no NVML, no such GPU).
 */
int gpu_free_bytes(const struct uvm_uuid *u, uint64_t *bytes, char *err, size_t len);

/* Whether GPU index's PCIe RX throughput can be read. */
bool nvml_pcie_rx_usable(unsigned int index);
/* GPU index's current PCIe RX (host to device) in KB/s: 0, or -1. */
int nvml_pcie_rx_kbps(unsigned int index, unsigned int *kbps);

#endif
