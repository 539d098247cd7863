// SPDX-License-Identifier: GPL-2.0
/*
 * rules_pid.c - a rule for one process added to the running policy's rules
 * in the pinned watcher, and taken out again: how `sched exec` gives a
 * program it starts its class under the TSG mechanism.  The rule goes
 * first (first match wins), with the values the policy gives that class;
 * rules of processes gone make room.  Callers hold the sched lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "sched.h"

static bool pid_gone(__u64 pid)
{
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Drops pid rules of processes gone: how many. */
static int prune(struct policy *p)
{
	__u32 k = 0, dropped = 0;

	for (__u32 i = 0; i < p->nrules; i++) {
		const struct policy_rule *r = &p->rules[i];

		if (r->match == POLICY_MATCH_PID && r->comm[0] == '+' && pid_gone(r->id)) {
			dropped++;
			continue;
		}
		p->rules[k++] = *r;
	}
	p->nrules = k;
	return (int)dropped;
}

int policy_rule_pid_add(struct watcher *w, pid_t pid, __u32 cls)
{
	struct policy p;
	const struct policy_rule *tmpl = NULL;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(w->policy, &zero, &p)) {
		p_err("cannot read the policy's rules: %s", strerror(errno));
		return -1;
	}
	if (!p.active) {
		p_err("no scheduling policy is active in the watcher");
		return -1;
	}
	for (__u32 i = 0; i < p.nrules && i < POLICY_RULES; i++)
		if (p.rules[i].cls == cls) {
			tmpl = &p.rules[i];
			break;
		}
	if (!tmpl) {
		p_err("the running policy has no class %s", policy_class_name(cls));
		return -1;
	}
	if (p.nrules >= POLICY_RULES && !prune(&p)) {
		p_err("the running policy's %d rules are full (sched exec adds one per program)",
		      POLICY_RULES);
		return -1;
	}
	struct policy_rule r = *tmpl;

	memmove(&p.rules[1], &p.rules[0], p.nrules * sizeof(p.rules[0]));
	memset(r.comm, 0, sizeof(r.comm));
	r.match = POLICY_MATCH_PID;
	r.id = (__u64)pid;
	r.comm[0] = '+';	/* added by sched exec: pruned when the process is gone */
	p.rules[0] = r;
	p.nrules++;
	if (bpf_map_update_elem(w->policy, &zero, &p, BPF_ANY)) {
		p_err("cannot add the rule for pid %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	return 0;
}

void policy_rule_pid_del(struct watcher *w, pid_t pid)
{
	struct policy p;
	__u32 zero = 0, k = 0;

	if (bpf_map_lookup_elem(w->policy, &zero, &p))
		return;
	for (__u32 i = 0; i < p.nrules && i < POLICY_RULES; i++)
		if (!(p.rules[i].match == POLICY_MATCH_PID && p.rules[i].id == (__u64)pid &&
		      p.rules[i].comm[0] == '+'))
			p.rules[k++] = p.rules[i];
	if (k == p.nrules)
		return;
	p.nrules = k;
	bpf_map_update_elem(w->policy, &zero, &p, BPF_ANY);
}
