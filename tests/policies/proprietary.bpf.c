// SPDX-License-Identifier: GPL-2.0
/* A prefetch policy under a license the kernel will not run struct_ops for. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "uvm_bpf_ext.h"

char LICENSE[] SEC("license") = "Proprietary";

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(prop_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	return UVM_BPF_ACTION_DEFAULT;
}

SEC(".struct_ops.link")
struct uvm_gpu_ext proprietary = {
	.uvm_prefetch_before_compute = (void *)prop_before_compute,
};
