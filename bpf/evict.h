/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evict.h - the ABI of gpuctl's eviction policies (struct uvm_evict_ops)
 * with gpuctl: counter slots, parameters, and the pids table of priority
 * and quota (pid -> a PRIO_* level or a share in %).  bpf/evict_*.bpf.c
 * and cmd/evict.c include it.
 */
#ifndef GPUCTL_EVICT_H
#define GPUCTL_EVICT_H

#include "policy_abi.h"

enum ev_stat {
	EV_STAT_ACTIVATE = 0,	/* chunk_activate calls */
	EV_STAT_USED = 1,	/* chunk_used calls */
	EV_STAT_PREPARE = 2,	/* evict_prepare calls */
	EV_STAT_MOVED = 3,	/* chunks the policy moved (head or tail) */
	EV_STAT_COMMON
};

/* The pids map of priority and quota: __u32 pid -> __u32 value. */
#define EV_PIDS_MAP "pids"
#define EV_PIDS_MAX 1024

/* priority's levels; a process not in the table is normal. */
enum ev_prio {
	EV_PRIO_LOW = 1,
	EV_PRIO_NORMAL = 2,
	EV_PRIO_HIGH = 3,
	EV_PRIO_END
};

enum ev_lfu_param {
	EV_LFU_MIN_FREQ,
	EV_LFU_DECAY,
	EV_LFU_NPARAMS
};
enum ev_lfu_stat {
	EV_LFU_STAT_PROTECTED = STAT_POLICY,
	EV_LFU_STAT_DECAYS,
	EV_LFU_STAT_END
};

enum ev_priority_stat {
	EV_PRIORITY_STAT_PROTECTED = STAT_POLICY,
	EV_PRIORITY_STAT_LOW_AGED,
	EV_PRIORITY_STAT_END
};

enum ev_quota_param {
	EV_QUOTA_DEFAULT_SHARE,
	EV_QUOTA_NPARAMS
};
enum ev_quota_stat {
	EV_QUOTA_STAT_PROTECTED = STAT_POLICY,
	EV_QUOTA_STAT_OVER_QUOTA,
	EV_QUOTA_STAT_RELEASE,
	EV_QUOTA_STAT_END
};

_Static_assert(EV_STAT_COMMON == STAT_POLICY, "evict: common counters fill the family's slots");
_Static_assert(EV_LFU_NPARAMS <= PARAM_MAX && EV_QUOTA_NPARAMS <= PARAM_MAX,
	       "evict: parameters fit the params map");
_Static_assert(EV_LFU_STAT_END <= STAT_MAX && EV_PRIORITY_STAT_END <= STAT_MAX &&
	       EV_QUOTA_STAT_END <= STAT_MAX, "evict: counters fit the stats map");

#endif
