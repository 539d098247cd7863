/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prefetch.h - the ABI of gpuctl's prefetch policies (struct uvm_gpu_ext)
 * with gpuctl: counter slots and parameters, named once for both sides.
 * bpf/prefetch_*.bpf.c and cmd/prefetch.c include it.
 */
#ifndef GPUCTL_PREFETCH_H
#define GPUCTL_PREFETCH_H

#include "policy_abi.h"

/*
 * Counter slots of every prefetch policy.  decide() counts its action in
 * the slot of the same number: DEFAULT, BYPASS and ENTER_LOOP are
 * UVM_BPF_ACTION_* (checked in prefetch_common.bpf.h).
 */
enum pf_stat {
	PF_STAT_DEFAULT = 0,	/* decisions left to the driver */
	PF_STAT_BYPASS = 1,	/* decisions answered by the policy */
	PF_STAT_ENTER_LOOP = 2,	/* decisions taken walking the tree */
	PF_STAT_PAGES = 3,	/* pages the policy asked for */
	PF_STAT_COMMON		/* how many */
};

/* adaptive: the tree walk's threshold in a map; gpuctl's loop moves it. */
enum pf_adaptive_param {
	PF_ADAPTIVE_THRESHOLD,	/* the only one the BPF side reads */
	PF_ADAPTIVE_HI_MBPS,
	PF_ADAPTIVE_LO_MBPS,
	PF_ADAPTIVE_HI_THRESHOLD,
	PF_ADAPTIVE_MID_THRESHOLD,
	PF_ADAPTIVE_LO_THRESHOLD,
	PF_ADAPTIVE_INTERVAL_MS,
	PF_ADAPTIVE_NPARAMS
};

enum pf_stride_param {
	PF_STRIDE_CONFIDENCE,
	PF_STRIDE_DEGREE,
	PF_STRIDE_MAX_PAGES,
	PF_STRIDE_BUDGET,
	PF_STRIDE_NPARAMS
};
enum pf_stride_stat {
	PF_STRIDE_STAT_DECISIONS = STAT_POLICY,	/* decisions on a confirmed stride */
	PF_STRIDE_STAT_END
};

enum pf_multilevel_param {
	PF_MULTILEVEL_HIGH,
	PF_MULTILEVEL_MID,
	PF_MULTILEVEL_LOW,
	PF_MULTILEVEL_LARGE_PAGES,
	PF_MULTILEVEL_MEDIUM_PAGES,
	PF_MULTILEVEL_SMALL_PAGES,
	PF_MULTILEVEL_NPARAMS
};
enum pf_multilevel_stat {
	PF_MULTILEVEL_STAT_LARGE = STAT_POLICY,
	PF_MULTILEVEL_STAT_MEDIUM,
	PF_MULTILEVEL_STAT_SMALL,
	PF_MULTILEVEL_STAT_END
};

enum pf_thrashing_param {
	PF_THRASHING_HOLD_MS,
	PF_THRASHING_NPARAMS
};
enum pf_thrashing_stat {
	PF_THRASHING_STAT_SUPPRESSED = STAT_POLICY,
	PF_THRASHING_STAT_FLAGGED,
	PF_THRASHING_STAT_END
};

enum pf_probabilistic_param {
	PF_PROBABILISTIC_AGGRESSIVENESS,
	PF_PROBABILISTIC_WINDOW,
	PF_PROBABILISTIC_NPARAMS
};
enum pf_probabilistic_stat {
	PF_PROBABILISTIC_STAT_GRANTED = STAT_POLICY,
	PF_PROBABILISTIC_STAT_DENIED,
	PF_PROBABILISTIC_STAT_END
};

_Static_assert(PF_STAT_COMMON == STAT_POLICY, "prefetch: common counters fill the family's slots");
_Static_assert(PF_ADAPTIVE_NPARAMS <= PARAM_MAX && PF_STRIDE_NPARAMS <= PARAM_MAX &&
	       PF_MULTILEVEL_NPARAMS <= PARAM_MAX && PF_THRASHING_NPARAMS <= PARAM_MAX &&
	       PF_PROBABILISTIC_NPARAMS <= PARAM_MAX, "prefetch: parameters fit the params map");
_Static_assert(PF_STRIDE_STAT_END <= STAT_MAX && PF_MULTILEVEL_STAT_END <= STAT_MAX &&
	       PF_THRASHING_STAT_END <= STAT_MAX && PF_PROBABILISTIC_STAT_END <= STAT_MAX,
	       "prefetch: counters fit the stats map");

#endif
