// SPDX-License-Identifier: GPL-2.0
/*
 * complete_words.c - the words gpuctl __complete offers that are not option
 * rows: policy names and their parameters (the policy families' tables, the
 * engine's built-ins), evict's pid/cgroup triples, sched run's policies and
 * their words (the sched table, the MATCH words, pods the kubelet logs),
 * prefetch advise's hints.  Every list is read from where the parser reads it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "complete.h"
#include "evict.h"	/* EV_PRIO_* */
#include "policy/policy.h"
#include "policy/kinds.h"
#include "pfengine/pfengine.h"
#include "sched/sched.h"
#include "sched/match.h"
#include "tsgw/tsgw.h"
#include "rm.h"
#include "uvm.h"

static const struct policy_def *def_of(const struct policy_kind *k, const char *name)
{
	for (unsigned int i = 0; i < k->ndefs; i++)
		if (!strcmp(k->defs[i].name, name))
			return &k->defs[i];
	return NULL;
}

static void offer_params(const struct param *p, int n)
{
	for (int i = 0; i < n; i++)
		complete_offer(p[i].name);
}

/* A policy's parameter names: the family's built-in, else prefetch's engine's. */
static void offer_policy_params(const struct object *obj, const char *policy)
{
	const struct policy_def *d = def_of(obj->kind, policy);
	const struct pfe_policy *e;

	if (d) {
		offer_params(d->params, (int)d->nparams);
		return;
	}
	if (!strcmp(obj->name, "prefetch") && (e = pfe_policy_find(policy)))
		offer_params(e->params, e->nparams);
}

/*
 * KEY VALUE pairs (and for evict's priority and quota, pid PID VALUE and
 * cgroup PATH VALUE triples) after the policy: w[0..n) the words after it.
 */
static int offer_pairs(const struct object *obj, const char *policy, char **w, int n)
{
	bool procs = !strcmp(obj->name, "evict") && (!policy || evict_takes_pids(policy));
	int i = 0, start = 0, at;

	while (i < n) {
		start = i;
		i += procs && (!strcmp(w[i], "pid") || !strcmp(w[i], "cgroup")) ? 3 : 2;
	}
	if (i == n) {
		if (policy)
			offer_policy_params(obj, policy);
		else	/* set: the loaded policy's, whichever it is */
			for (unsigned int d = 0; d < obj->kind->ndefs; d++)
				offer_params(obj->kind->defs[d].params, (int)obj->kind->defs[d].nparams);
		if (procs) {
			complete_offer("pid");
			complete_offer("cgroup");
		}
		return 0;
	}
	at = n - start;	/* 1: the group's second word, 2: its third */
	if (!strcmp(w[start], "pid") && at == 1 && procs)
		complete_uvm_pids();
	else if (!strcmp(w[start], "cgroup") && at == 1 && procs)
		complete_mark("__cgroups__");
	else if (at == 2 && procs && !(policy && evict_is_quota(policy)))
		for (int l = EV_PRIO_LOW; l < EV_PRIO_END; l++)
			complete_offer(evict_prio_names[l]);
	return 0;
}

static int load_words(const struct object *obj, char **w, int n)
{
	const struct policy_kind *k = obj->kind;

	if (n == 0) {
		for (unsigned int i = 0; i < k->ndefs; i++)
			complete_offer(k->defs[i].name);
		if (!strcmp(obj->name, "prefetch"))
			for (int i = 0; pfe_builtin(i); i++)
				complete_offer(pfe_builtin(i)->name);
		complete_offer("file");
		return 0;
	}
	if (!strcmp(w[0], "file")) {
		if (n == 1)
			complete_mark("__files__ o");
		return 0;
	}
	return offer_pairs(obj, w[0], w + 1, n - 1);
}

/* The MATCH words ("comm:", "pod:", ...) from help's MATCH line; pod:UID of the pods here. */
static void offer_matches(void)
{
	const char *alts = sched_match_alts(), *cur = complete_cur();
	char word[32];

	for (const char *p = alts; !strchr(cur, ':') && *p;) {	/* past NAME: its value alone */
		const char *colon = strchr(p, ':'), *bar = strstr(p, " | ");

		if (!colon)
			break;
		snprintf(word, sizeof(word), "%.*s", (int)(colon - p + 1), p);
		complete_offer(word);
		if (!bar)
			break;
		p = bar + 3;
	}
	if (!strncmp(cur, "pod:", 4)) {
		DIR *d = opendir("/var/log/pods");
		struct dirent *e;
		char uid[300];

		while (d && (e = readdir(d))) {
			const char *u = strrchr(e->d_name, '_');

			if (u && u != e->d_name && strchr(e->d_name, '_') != u) {
				snprintf(uid, sizeof(uid), "pod:%s", u + 1);
				complete_offer(uid);
			}
		}
		if (d)
			closedir(d);
	}
}

static int sched_run_words(char **w, int n)
{
	const struct sched_policy *p;
	const struct sched_word *sw = NULL;

	if (n == 0) {
		for (int i = 0; (p = sched_policy_at(i)); i++)
			complete_offer(p->name);
		return 0;
	}
	p = sched_policy_find(w[0]);
	if (!p)
		return 0;
	if (n >= 2)
		for (const struct sched_word *x = p->words; x->word; x++)
			if (!strcmp(x->word, w[n - 1]))
				sw = x;
	if (sw && sw->kind == SW_MATCH) {
		offer_matches();
		return 0;
	}
	if (sw && sw->kind == SW_INTERLEAVE) {
		for (__u32 l = 0; l < 3; l++)
			complete_offer(rm_level_name(l));
		return 0;
	}
	if (sw && sw->values && !strcmp(sw->values, "__files__")) {
		complete_mark("__files__");
		return 0;
	}
	if (sw && sw->values) {	/* the word's values, "a b c" */
		char v[128], *save = NULL;

		snprintf(v, sizeof(v), "%s", sw->values);
		for (char *t = strtok_r(v, " ", &save); t; t = strtok_r(NULL, " ", &save))
			complete_offer(t);
		return 0;
	}
	if (sw)
		return 0;	/* a number */
	for (const struct sched_word *x = p->words; x->word; x++)
		complete_offer(x->word);
	return 0;
}

static enum tsg_walk offer_tsg(const struct tsg_key *key, const struct tsg_info *info, void *arg)
{
	char id[16];

	(void)key;
	(void)arg;
	snprintf(id, sizeof(id), "%u", info->id);
	complete_offer(id);
	return TSG_KEEP;
}

void complete_tsg_ids(void)
{
	struct sched s = SCHED_INIT;
	bool json = json_output;
	int saved, null;

	if (!pin_tree_exists())
		return;
	/* a watcher that cannot be read (no caps, another version) offers nothing, silently */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0 && dup2(null, STDERR_FILENO) >= 0) {
		json_output = false;
		if (!sched_open_how(&s, true)) {
			tsg_table_walk(s.w.tsgs, offer_tsg, NULL);
			sched_close(&s);
		}
		json_output = json;
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
	}
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
}

int complete_positional(const struct object *obj, const char *cmd, char **w, int n)
{
	if (!cmd)
		return 0;
	if (!strcmp(obj->name, "sched") && !strcmp(cmd, "run"))
		return sched_run_words(w, n);
	if (obj->kind && !strcmp(cmd, "load"))
		return load_words(obj, w, n);
	if (obj->kind && !strcmp(cmd, "set"))
		return offer_pairs(obj, NULL, w, n);
	if (!strcmp(obj->name, "prefetch") && !strcmp(cmd, "advise")) {
		if (n == 2)	/* -p PID ADDR LEN HINT [GPU|cpu] */
			for (int h = 0; h < HINT_NR; h++)
				complete_offer(uvm_hint_names[h]);
		if (n == 3) {
			complete_offer("cpu");
			complete_gpus();
		}
	}
	return 0;
}
