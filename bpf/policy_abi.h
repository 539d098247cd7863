/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy_abi.h - what every gpuctl struct_ops policy object shares with
 * gpuctl, for both sides (bpf/policy_common.bpf.h and cmd/policy/):
 *
 *   params  array of PARAM_MAX __u64: gpuctl writes every slot at load
 *           (a built-in's defaults, then KEY VALUE), `set` updates them;
 *   stats   per-CPU array of STAT_MAX __u64 that `show` sums: slots below
 *           STAT_POLICY are the family's (prefetch.h, evict.h, replay.h),
 *           the others the policy's own.
 *
 * Each family's header names its parameters and counter slots by enum;
 * gpuctl's tables are built from those enums.
 */
#ifndef GPUCTL_POLICY_ABI_H
#define GPUCTL_POLICY_ABI_H

#define PARAM_MAX 8
#define STAT_MAX 8
#define STAT_POLICY 4	/* the first slot of a policy's own counters */

/* The names of the maps above, as gpuctl pins them. */
#define POLICY_MAP_PARAMS "params"
#define POLICY_MAP_STATS "stats"

_Static_assert(STAT_POLICY < STAT_MAX, "room for policy counters");

#endif
