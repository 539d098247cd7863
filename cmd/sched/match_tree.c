// SPDX-License-Identifier: GPL-2.0
/*
 * match_tree.c - MATCH cgroup-tree:PATH: the TSGs of every process in the
 * cgroup PATH or below it (cgtree.c resolves PATH to an id and a level;
 * bpf/tsg_match.h compares the TSG's ancestor at that level).  Also the
 * C side's ancestor for that header: the process's cgroup now.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>

#include "gpuctl.h"
#include "cgtree.h"
#include "match.h"
#include "tsg_match.h"

__u64 tsg_cg_ancestor(const struct tsg_info *i, __u32 level)
{
	return cg_ancestor_id((pid_t)i->pid, level);
}

int sched_match_v2(const char *arg)
{
	char err[320];

	if (cg_v2_root(err, sizeof(err))) {
		p_err("MATCH '%s': %s", arg, err);
		return EXIT_FAIL;
	}
	return 0;
}

static int tree_parse(const char *val, struct policy_rule *r)
{
	char err[PATH_MAX + 128];
	uint64_t id;
	unsigned int level;
	int ret;

	if (cg_tree_syntax(val, err, sizeof(err)))
		return usage_err("cgroup-tree: %s", err);
	ret = sched_match_v2("cgroup-tree");
	if (ret)
		return ret;
	if (cg_tree_at(val, &id, &level, err, sizeof(err)))
		return usage_err("cgroup-tree: %s", err);
	r->id = id;
	r->cg_level = level;
	return 0;
}

const struct sched_match sched_match_tree = {
	.name = "cgroup-tree",
	.value = "PATH",
	.kind = POLICY_MATCH_TREE,
	.parse = tree_parse,
};
