// SPDX-License-Identifier: GPL-2.0
/*
 * auto.c - mechanism auto's look at the policy's rules (mpss.h).  MPS
 * serves the processes of one user (its server's: gpuctl's daemon runs as
 * gpuctl's user), and takes a process as its client only when it starts
 * with the daemon's pipe directory in its environment.  So a rule that
 * names another uid, one that names a pid (a process that has started),
 * and one that matches a process with a TSG already (the watcher's table)
 * need the TSG path: auto then picks it and says which rule and why.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpuctl.h"
#include "tsg_match.h"
#include "sched/match.h"
#include "mpss.h"

/* "lc comm:lc1": the rule as it was written, for the reason. */
static void rule_text(const struct policy_rule *r, char *buf, size_t len)
{
	char m[64];

	sched_match_text(r, m, sizeof(m));
	snprintf(buf, len, "%s %s", policy_class_name(r->cls), m);
}

/* A rule that names another user or a pid: 1 with why. */
static int named(const struct policy *rules, char *why, size_t len)
{
	char txt[96];

	for (__u32 k = 0; k < rules->nrules && k < POLICY_RULES; k++) {
		const struct policy_rule *r = &rules->rules[k];

		rule_text(r, txt, sizeof(txt));
		if (r->match == POLICY_MATCH_UID && r->id != geteuid()) {
			snprintf(why, len, "rule '%s' names uid %llu: an MPS server serves one "
				 "user (this run's daemon: uid %u's)", txt,
				 (unsigned long long)r->id, (unsigned int)geteuid());
			return 1;
		}
		if (r->match == POLICY_MATCH_PID) {
			snprintf(why, len, "rule '%s' names a process by its pid: it has started, and "
				 "MPS takes a client only at its start", txt);
			return 1;
		}
	}
	return 0;
}

int mps_auto_rules(struct sched *s, const struct policy *rules, char *why, size_t len)
{
	struct tsg *v = NULL;
	char txt[96];
	int n = 0, ret = 0;

	if (!rules)
		return 0;
	if (named(rules, why, len))
		return 1;
	if (!s || tsg_read(s, &v, &n))
		return 0;	/* no table: the rules alone decide */
	for (int i = 0; i < n && !ret; i++) {
		const struct policy_rule *r = tsg_rule_first(rules, &v[i].info);

		if (!r || r->match == POLICY_MATCH_ANY || tsg_proc_gone(v[i].info.pid))
			continue;	/* unmatched, the catch-all's, or gone */
		rule_text(r, txt, sizeof(txt));
		snprintf(why, len, "rule '%s' matches pid %u (%.*s), running already: MPS takes a "
			 "client only at its start", txt, v[i].info.pid, TSG_COMM_LEN,
			 v[i].info.comm);
		ret = 1;
	}
	free(v);
	return ret;
}
