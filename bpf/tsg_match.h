/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsg_match.h - the one rule for whether a policy rule matches a TSG: the
 * TSG watcher decides with it when a TSG is allocated (tsg_watch.bpf.c),
 * gpuctl sched with it for the TSGs already in the table
 * (cmd/sched/policies.c).  Plain C that both compilers take.
 */
#ifndef TSG_MATCH_H
#define TSG_MATCH_H

#include "tsg_watch.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

_Static_assert(TSG_COMM_LEN == 2 * sizeof(__u64), "comm compares as two words");

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
	case POLICY_MATCH_ANY:
		return 1;
	}
	return 0;
}

#endif
