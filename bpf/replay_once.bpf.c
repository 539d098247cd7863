// SPDX-License-Identifier: GPL-2.0
/*
 * once: defer the replay while the fault buffer still holds entries and
 * replay once it is drained (the driver's ONCE policy): fewer replays,
 * each releasing more faulting warps.
 */
#include "replay_common.bpf.h"
#include "replay.h"

SEC("struct_ops/decide_replay")
int BPF_PROG(once_decide, struct uvm_fault_batch_info *batch, int default_policy)
{
	return decide(batch, batch->fault_buffer_pending ? UVM_BPF_REPLAY_DEFER
							 : UVM_BPF_REPLAY_NOW);
}

SEC(".struct_ops.link")
struct uvm_fault_policy_ops once = {
	.decide_replay = (void *)once_decide,
};
