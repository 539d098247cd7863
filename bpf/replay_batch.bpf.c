// SPDX-License-Identifier: GPL-2.0
/* batch: replay after every serviced batch (the driver's BATCH policy). */
#include "replay_common.bpf.h"
#include "replay.h"

SEC("struct_ops/decide_replay")
int BPF_PROG(batch_decide, struct uvm_fault_batch_info *batch, int default_policy)
{
	return decide(batch, UVM_BPF_REPLAY_NOW);
}

SEC(".struct_ops.link")
struct uvm_fault_policy_ops batch = {
	.decide_replay = (void *)batch_decide,
};
