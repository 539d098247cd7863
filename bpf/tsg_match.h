/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsg_match.h - the one rule for whether a policy rule matches a TSG, and
 * the first-match loop over a policy's rules: the TSG watcher decides with
 * them when a TSG is allocated (tsg_watch.bpf.c), gpuctl sched with them
 * for the TSGs already in the table (cmd/sched/policies.c).  Plain C that
 * both compilers take.
 *
 * A subtree rule (cgroup-tree:PATH, pod:UID) compares the id of the TSG's
 * cgroup ancestor at the rule's level: in BPF the allocating task's own
 * (bpf_get_current_ancestor_cgroup_id), in gpuctl the process's as
 * /proc/PID/cgroup says now (tsg_cg_ancestor, cmd/sched/match_tree.c).
 * Cgroup ids are never reused, so an id whose cgroup is gone matches
 * nothing; id 0 (a pod not on this node yet) matches nothing.
 */
#ifndef TSG_MATCH_H
#define TSG_MATCH_H

#include "tsg_watch.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

_Static_assert(TSG_COMM_LEN == 2 * sizeof(__u64), "comm compares as two words");

#ifdef __bpf__
/* The watcher decides in the allocating task's own context. */
static __always_inline __u64 tsg_cg_ancestor(const struct tsg_info *i, __u32 level)
{
	(void)i;
	return bpf_get_current_ancestor_cgroup_id(level);
}
#else
/* The id of the cgroup at level above i's process (0: none, or gone). */
__u64 tsg_cg_ancestor(const struct tsg_info *i, __u32 level);
#endif

/* Rule r matches the TSG of i (comm: all 16 bytes, both NUL-padded). */
static __always_inline int tsg_rule_hits(const struct policy_rule *r, const struct tsg_info *i)
{
	__u64 a[2], b[2];

	switch (r->match) {
	case POLICY_MATCH_COMM:
		__builtin_memcpy(a, r->comm, sizeof(a));
		__builtin_memcpy(b, i->comm, sizeof(b));
		return a[0] == b[0] && a[1] == b[1];
	case POLICY_MATCH_PID:
		return r->id == i->pid;
	case POLICY_MATCH_UID:
		return r->id == i->uid;
	case POLICY_MATCH_CGROUP:
		return r->id == i->cgroup;
	case POLICY_MATCH_TREE:
	case POLICY_MATCH_POD:
		if (!r->id)
			return 0;
		if (r->id == i->cgroup)
			return 1;
		return tsg_cg_ancestor(i, r->cg_level & CG_LEVEL_MASK) == r->id;
	case POLICY_MATCH_ANY:
		return 1;
	}
	return 0;
}

/* The first of pol's rules that matches i (tried in order), or NULL. */
static __always_inline const struct policy_rule *tsg_rule_first(const struct policy *pol,
								const struct tsg_info *i)
{
	for (int k = 0; k < POLICY_RULES; k++) {
		if ((__u32)k >= pol->nrules)
			break;
		if (tsg_rule_hits(&pol->rules[k], i))
			return &pol->rules[k];
	}
	return 0;
}

#endif
