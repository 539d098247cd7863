// SPDX-License-Identifier: GPL-2.0
/*
 * match.c - the table of MATCH words (match.h) and the plain ones: comm:,
 * pid:, uid:, cgroup: (one cgroup, exactly).  The subtree words are rows
 * of their own files.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuctl.h"
#include "target.h"
#include "match.h"

static int comm_parse(const char *val, struct policy_rule *r)
{
	if (strlen(val) >= TSG_COMM_LEN)
		return usage_err("comm '%s' is longer than %d characters (the kernel keeps 15)",
				 val, TSG_COMM_LEN - 1);
	strncpy(r->comm, val, TSG_COMM_LEN - 1);
	return 0;
}

static int pid_parse(const char *val, struct policy_rule *r)
{
	unsigned long long v;

	if (parse_u64("PID", val, 1, TARGET_PID_MAX, &v))
		return EXIT_USAGE;
	r->id = v;
	return 0;
}

static int uid_parse(const char *val, struct policy_rule *r)
{
	unsigned long long v;

	if (parse_u64("UID", val, 0, 0xfffffffeULL, &v))
		return EXIT_USAGE;
	r->id = v;
	return 0;
}

static int cgroup_parse(const char *val, struct policy_rule *r)
{
	struct stat st;
	char path[512];

	snprintf(path, sizeof(path), "%s%s", val[0] == '/' &&
		 strncmp(val, "/sys/fs/cgroup", 14) ? "/sys/fs/cgroup" : "", val);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return usage_err("cgroup '%s': no such cgroup v2 directory", path);
	r->id = st.st_ino;	/* the cgroup id on cgroup v2 */
	return 0;
}

static const struct sched_match m_comm = { "comm", "NAME", POLICY_MATCH_COMM, comm_parse, NULL };
static const struct sched_match m_pid = { "pid", "PID", POLICY_MATCH_PID, pid_parse, NULL };
static const struct sched_match m_uid = { "uid", "UID", POLICY_MATCH_UID, uid_parse, NULL };
static const struct sched_match m_cgroup = { "cgroup", "PATH", POLICY_MATCH_CGROUP, cgroup_parse,
					     NULL };

/* The table, in the order help and messages list the words. */
static const struct sched_match *const matches[] = {
	&m_comm, &m_pid, &m_uid, &m_cgroup, &sched_match_tree, &sched_match_pod,
};

#define NMATCHES (sizeof(matches) / sizeof(matches[0]))

static const struct sched_match *match_of_kind(__u32 kind)
{
	for (size_t i = 0; i < NMATCHES; i++)
		if (matches[i]->kind == kind)
			return matches[i];
	return NULL;
}

const char *sched_match_alts(void)
{
	static char buf[160];

	buf[0] = '\0';
	for (size_t i = 0; i < NMATCHES; i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, sizeof(buf) - used, "%s%s:%s", i ? " | " : "",
			 matches[i]->name, matches[i]->value);
	}
	return buf;
}

void sched_match_text(const struct policy_rule *r, char *buf, size_t len)
{
	const struct sched_match *m = match_of_kind(r->match);

	if (!m)
		snprintf(buf, len, "any");
	else if (r->match == POLICY_MATCH_COMM)
		snprintf(buf, len, "%s:%.*s", m->name, TSG_COMM_LEN, r->comm);
	else if (r->match == POLICY_MATCH_PID || r->match == POLICY_MATCH_UID)
		snprintf(buf, len, "%s:%llu", m->name, (unsigned long long)r->id);
	else
		snprintf(buf, len, "%s: (cgroup id %llu)", m->name, (unsigned long long)r->id);
}

int sched_match_parse(const char *arg, struct policy_rule *r)
{
	const char *val = strchr(arg, ':');
	size_t klen = val ? (size_t)(val - arg) : 0;

	for (size_t i = 0; val && val[1] && i < NMATCHES; i++) {
		const struct sched_match *m = matches[i];

		if (strlen(m->name) != klen || strncmp(arg, m->name, klen))
			continue;
		r->match = m->kind;
		return m->parse(val + 1, r);
	}
	return usage_err("invalid MATCH '%s': one of %s", arg, sched_match_alts());
}

bool sched_match_refresh(struct policy *pol)
{
	bool changed = false;

	for (__u32 k = 0; k < pol->nrules && k < POLICY_RULES; k++) {
		const struct sched_match *m = match_of_kind(pol->rules[k].match);

		if (m && m->refresh && m->refresh(&pol->rules[k]))
			changed = true;
	}
	return changed;
}

void sched_match_copy(struct policy *to, const struct policy *from)
{
	for (__u32 k = 0; k < to->nrules && k < POLICY_RULES; k++) {
		struct policy_rule *t = &to->rules[k];

		if (!match_of_kind(t->match) || !match_of_kind(t->match)->refresh)
			continue;
		for (__u32 j = 0; j < from->nrules && j < POLICY_RULES; j++) {
			const struct policy_rule *f = &from->rules[j];

			if (f->match == t->match && f->cls == t->cls &&
			    !memcmp(f->comm, t->comm, sizeof(f->comm))) {
				t->id = f->id;
				t->cg_level = f->cg_level;
				break;
			}
		}
	}
}
