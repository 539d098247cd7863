// SPDX-License-Identifier: GPL-2.0
/* A valid BPF policy of another struct_ops type: prefetch must refuse it. */
#include "prefetch_common.bpf.h"

SEC("struct_ops/decide_replay")
int BPF_PROG(wrong_decide, struct uvm_fault_batch_info *batch, int default_policy)
{
	return 1;
}

SEC(".struct_ops.link")
struct uvm_fault_policy_ops wrong_type = {
	.decide_replay = (void *)wrong_decide,
};
