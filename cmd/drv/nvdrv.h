/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvdrv.h - the NVIDIA driver as gpuctl's kernel-patch/ sees it (nvdrv.c):
 * the loaded driver's version, the series kernel-patch/ has for it, the ABI
 * version of the BPF hooks a loaded UVM module carries.
 */
#ifndef GPUCTL_DRV_NVDRV_H
#define GPUCTL_DRV_NVDRV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The ABI version of kernel-patch/nvidia-uvm/uvm_bpf_ext.h this gpuctl speaks
 * (UVM_BPF_EXT_ABI_VERSION; tests/unit/test_kernel_patch.sh keeps them equal).
 */
#define UVM_HOOKS_ABI 1
/* Driver versions kernel-patch/ has a series for, NULL-terminated. */
extern const char *const kpatch_versions[];
/*
 * The loaded NVIDIA driver's version (/sys/module/nvidia/version, else the
 * number in /proc/driver/nvidia/version, both under $GPUCTL_SYSROOT): 0, or
 * -ENOENT with buf empty.
 */
int nv_driver_version(char *buf, size_t len);
/* The driver, its kernel-patch/ series and the hooks its UVM module carries. */
struct uvm_hooks_info {
	char driver_version[64];	/* "" when no driver is loaded */
	const char *series;	/* kernel-patch/'s series for it, NULL: none */
	bool series_exact;	/* false: a series of its branch (580.159.04 -> 580.142) */
	int abi;		/* enum uvm_bpf_ext_abi in a loaded module's BTF, 0: none */
	char module[64];	/* that module */
	const char *hint;	/* what to do; NULL when the hooks are this gpuctl's */
	char hint_buf[320];
};
void uvm_hooks_probe(struct uvm_hooks_info *h);

#endif
