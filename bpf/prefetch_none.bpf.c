// SPDX-License-Identifier: GPL-2.0
/* none: never prefetch; every fault migrates only its own (big) page. */
#include "prefetch_common.bpf.h"
#include "prefetch.h"

SEC("struct_ops/uvm_prefetch_before_compute")
int BPF_PROG(none_before_compute, uvm_page_index_t page_index,
	     uvm_perf_prefetch_bitmap_tree_t *bitmap_tree,
	     uvm_va_block_region_t *max_prefetch_region,
	     uvm_va_block_region_t *result_region)
{
	bpf_uvm_set_va_block_region(result_region, 0, 0);
	return decide(UVM_BPF_ACTION_BYPASS, 0);
}

SEC(".struct_ops.link")
struct uvm_gpu_ext none = {
	.uvm_prefetch_before_compute = (void *)none_before_compute,
};
