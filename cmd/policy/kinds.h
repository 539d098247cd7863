/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kinds.h - the catalogue of struct_ops policy families, as data: one
 * explicit const table (kinds.c) of the kinds that kinds_prefetch.c,
 * kinds_evict.c and kinds_replay.c define (tables, parameters, counters,
 * hooks).  The commands, probe, show and the exporter read it; nothing
 * fills it at run time.
 */
#ifndef GPUCTL_POLICY_KINDS_H
#define GPUCTL_POLICY_KINDS_H

#include <stdbool.h>
#include <linux/types.h>

#include "policy.h"

extern const struct policy_kind prefetch_kind, replay_kind, evict_kind;

#define POLICY_NKINDS 3
/* Every kind (POLICY_NKINDS), NULL-terminated, in probe's order (prefetch, replay, evict). */
extern const struct policy_kind *const policy_kinds_table[];

/* The table's kinds: how many, *out pointing at them. */
int policy_kinds(const struct policy_kind *const **out);
/* The name of k's i-th built-in, NULL past the last (the shell's completion). */
const char *policy_kind_word(const struct policy_kind *k, unsigned int i);
/* Checks every kind's tables; an internal error aborts (gpuctl runs it at start). */
void policy_kinds_check(void);

/* --- evict's per-process values (kinds_evict.c) ------------------------- */
extern const char *const evict_prio_names[];
bool evict_takes_pids(const char *policy);
bool evict_is_quota(const char *policy);
/* A process (thread group) of that id exists now. */
bool evict_pid_exists(__u32 pid);
/* {"pid", "level" or "share"} of one pids-map entry, under -j. */
void evict_pid_json(__u32 pid, __u32 val, const char *policy);

#endif
