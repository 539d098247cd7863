/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay_common.bpf.h - what every gpuctl replay policy shares: the ABI
 * types (struct uvm_fault_policy_ops), a params array gpuctl fills and
 * `replay set` updates, and per-CPU counters `replay show` sums (named in
 * replay.h).
 *
 * decide_replay() runs once per serviced fault batch, and only when the
 * driver's uvm_perf_fault_replay_policy is 4 (EBPF).
 */
#ifndef REPLAY_COMMON_BPF_H
#define REPLAY_COMMON_BPF_H

#include "policy_common.bpf.h"
#include "replay.h"

/* Counts the batch and the answer, returns it: `return decide(b, NOW);` */
static __always_inline int decide(struct uvm_fault_batch_info *batch, int decision)
{
	stat_add(RP_STAT_BATCHES, 1);
	stat_add(RP_STAT_FAULTS, batch->num_faults);
	stat_add(decision == UVM_BPF_REPLAY_NOW ? RP_STAT_REPLAY : RP_STAT_DEFER, 1);
	return decision;
}

#endif
