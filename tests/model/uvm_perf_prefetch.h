/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Model stand-in for nvidia-uvm's uvm_perf_prefetch.h: the driver types
 * that uvm_bpf_ext.{c,h} use, with the driver's names and layouts
 * (uvm_va_block_types.h, uvm_perf_prefetch.h of NVIDIA 550.163.01).
 */
#ifndef __UVM_PERF_PREFETCH_H__
#define __UVM_PERF_PREFETCH_H__

#include <linux/types.h>
#include <linux/bitmap.h>

typedef unsigned char NvU8;
typedef unsigned short NvU16;
typedef unsigned int NvU32;
typedef unsigned long long NvU64;

#define UVM_VA_BLOCK_SIZE (2ULL * 1024 * 1024)
#define UVM_PAGE_SIZE_4K 4096
#define PAGES_PER_UVM_VA_BLOCK (UVM_VA_BLOCK_SIZE / UVM_PAGE_SIZE_4K)

typedef NvU16 uvm_page_index_t;

typedef struct {
	uvm_page_index_t first;
	uvm_page_index_t outer;
} uvm_va_block_region_t;

typedef struct {
	DECLARE_BITMAP(bitmap, PAGES_PER_UVM_VA_BLOCK);
} uvm_page_mask_t;

typedef struct {
	uvm_page_mask_t pages;
	uvm_page_index_t offset;
	NvU16 leaf_count;
	NvU8 level_count;
} uvm_perf_prefetch_bitmap_tree_t;

#endif
