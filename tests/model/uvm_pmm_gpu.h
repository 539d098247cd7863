/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Model stand-in for nvidia-uvm's uvm_pmm_gpu.h: a GPU root chunk of
 * 2 MiB on the used or unused list of the model's memory manager.
 */
#ifndef __UVM_PMM_GPU_H__
#define __UVM_PMM_GPU_H__

#include <linux/list.h>
#include "uvm_perf_prefetch.h"

struct uvm_va_block_struct;

struct uvm_gpu_chunk_struct {
	NvU64 address;			/* GPU physical address */
	struct list_head list;		/* on the used or unused list */
	struct uvm_va_block_struct *va_block;	/* backed block, or NULL */
};
typedef struct uvm_gpu_chunk_struct uvm_gpu_chunk_t;

#endif
