/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.h - the ABI of gpuctl's replay policies (struct
 * uvm_fault_policy_ops) with gpuctl: counter slots and parameters.
 * bpf/replay_*.bpf.c and cmd/replay.c include it.
 */
#ifndef GPUCTL_REPLAY_H
#define GPUCTL_REPLAY_H

#include "policy_abi.h"

enum rp_stat {
	RP_STAT_REPLAY = 0,	/* batches answered "replay now" */
	RP_STAT_DEFER = 1,	/* batches answered "defer" */
	RP_STAT_BATCHES = 2,	/* decisions taken */
	RP_STAT_FAULTS = 3,	/* fault buffer entries of those batches */
	RP_STAT_COMMON
};

/* The driver asks the policy only under uvm_perf_fault_replay_policy=4. */
#define RP_DRIVER_POLICY_EBPF 4	/* UVM_PERF_FAULT_REPLAY_POLICY_EBPF_VALUE */

enum rp_adaptive_param {
	RP_ADAPTIVE_THRESHOLD,
	RP_ADAPTIVE_EVERY,
	RP_ADAPTIVE_NPARAMS
};
enum rp_adaptive_stat {
	RP_ADAPTIVE_STAT_BY_SHARE = STAT_POLICY,
	RP_ADAPTIVE_STAT_BY_COUNT,
	RP_ADAPTIVE_STAT_BY_DRAIN,
	RP_ADAPTIVE_STAT_END
};

_Static_assert(RP_STAT_COMMON == STAT_POLICY, "replay: common counters fill the family's slots");
_Static_assert(RP_ADAPTIVE_NPARAMS <= PARAM_MAX, "replay: parameters fit the params map");
_Static_assert(RP_ADAPTIVE_STAT_END <= STAT_MAX, "replay: counters fit the stats map");

#endif
