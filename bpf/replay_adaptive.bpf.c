// SPDX-License-Identifier: GPL-2.0
/*
 * adaptive: defer replays, but replay now when
 *   - the share of duplicate and throttled entries in the batch reaches
 *     `threshold` % (warps are stalled re-faulting: let them go), or
 *   - `every` batches went by without a replay, or
 *   - the fault buffer is drained.
 */
#include "replay_common.bpf.h"
#include "replay.h"

SEC("struct_ops/decide_replay")
int BPF_PROG(adaptive_decide, struct uvm_fault_batch_info *batch, int default_policy)
{
	__u64 n = batch->num_faults;
	__u64 stalled = (__u64)batch->num_duplicates + batch->num_throttled;

	if (n && stalled * 100 >= param(RP_ADAPTIVE_THRESHOLD) * n) {
		stat_add(RP_ADAPTIVE_STAT_BY_SHARE, 1);
		return decide(batch, UVM_BPF_REPLAY_NOW);
	}
	if (batch->batches_since_replay >= param(RP_ADAPTIVE_EVERY)) {
		stat_add(RP_ADAPTIVE_STAT_BY_COUNT, 1);
		return decide(batch, UVM_BPF_REPLAY_NOW);
	}
	if (!batch->fault_buffer_pending) {
		stat_add(RP_ADAPTIVE_STAT_BY_DRAIN, 1);
		return decide(batch, UVM_BPF_REPLAY_NOW);
	}
	return decide(batch, UVM_BPF_REPLAY_DEFER);
}

SEC(".struct_ops.link")
struct uvm_fault_policy_ops adaptive = {
	.decide_replay = (void *)adaptive_decide,
};
