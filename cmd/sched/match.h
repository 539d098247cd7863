/* SPDX-License-Identifier: GPL-2.0 */
/*
 * match.h - the MATCH words of every scheduling policy (comm:, pid:, uid:,
 * cgroup:, cgroup-tree:, pod:), one row each: the table in match.c, the
 * subtree rows in match_tree.c and match_pod.c.  A row turns its value
 * into a watcher rule (struct policy_rule, tsg_watch.h); which TSG a rule
 * matches is decided by bpf/tsg_match.h alone, in BPF and in C.  A row
 * whose cgroup may come and go (pod:) refreshes its rules while
 * `sched run` runs.
 */
#ifndef GPUCTL_SCHED_MATCH_H
#define GPUCTL_SCHED_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "tsg_watch.h"

struct sched_match {
	const char *name;	/* the word before ':' */
	const char *value;	/* what follows it, for messages and help: "UID" */
	__u32 kind;		/* POLICY_MATCH_* */
	/* val into r (r->match set by the caller): 0, or EXIT_USAGE / EXIT_FAIL after p_err */
	int (*parse)(const char *val, struct policy_rule *r);
	/* while run runs: r brought up to date, a line said; true when r changed */
	bool (*refresh)(struct policy_rule *r);
};

extern const struct sched_match sched_match_tree;	/* match_tree.c */
extern const struct sched_match sched_match_pod;	/* match_pod.c */

/* MATCH (NAME:VALUE) into r: 0, or EXIT_USAGE / EXIT_FAIL after p_err. */
int sched_match_parse(const char *arg, struct policy_rule *r);
/* r as its word says it, for messages: "comm:NAME", "uid:1000", "cgroup-tree: (cgroup id N)". */
void sched_match_text(const struct policy_rule *r, char *buf, size_t len);
/* "comm:NAME | pid:PID | ...": help's MATCH line. */
const char *sched_match_alts(void);
/* Every rule of pol refreshed (sched run, now and then): true when pol changed. */
bool sched_match_refresh(struct policy *pol);
/*
 * The refreshed rules of from (pod:) into the same rules of to: the
 * watcher's copy, which may hold rules run did not write (sched exec's).
 */
void sched_match_copy(struct policy *to, const struct policy *from);

/* match_tree.c, for match_pod.c: cgroup v2 at its root, else EXIT_FAIL after p_err. */
int sched_match_v2(const char *arg);

#endif
