// SPDX-License-Identifier: GPL-2.0
/*
 * policies.c - the table of scheduling policies gpuctl sched run knows (one
 * row each, policy.h; `fixed` is defined here, a row without hooks, lc-be's
 * is cmd/sched/lcbe/row.c), how a row's words become the watcher's rules
 * (struct policy, tsg_watch.h), and the decision those rules take, in C, for
 * TSGs that existed before the run (the watcher takes the same decision in
 * BPF for new ones).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuctl.h"
#include "target.h"
#include "sched.h"
#include "match.h"	/* the MATCH words, one row each */
#include "tsg_match.h"	/* the rule the watcher decides by, too */


#define LEVEL(l) (NVA06C_CTRL_INTERLEAVE_LEVEL_##l + 1)

static const struct sched_word fixed_words[] = {
	{ "match", SW_MATCH, POLICY_CLASS_FIXED, NULL },
	{ "timeslice", SW_TIMESLICE, POLICY_CLASS_FIXED, NULL },
	{ "interleave", SW_INTERLEAVE, POLICY_CLASS_FIXED, NULL },
	{ NULL },
};

/* fixed: every TSG a MATCH names (or every TSG) gets one timeslice and/or level. */
static const struct sched_policy sched_policy_fixed = {
	.name = "fixed",
	.words = fixed_words,
	.classes = { POLICY_CLASS_FIXED },
	.catch_all = POLICY_CLASS_FIXED,
	.max_matches = POLICY_RULES,
	.need_value = true,
	.need_msg = "fixed needs 'timeslice US' and/or 'interleave LEVEL'",
};

/* The table: one row per policy (policy.h), in the order messages list them. */
static const struct sched_policy *const policies[] = {
	&sched_policy_lcbe,
	&sched_policy_fixed,
};

#define NPOLICIES (sizeof(policies) / sizeof(policies[0]))

const struct sched_policy *sched_policy_find(const char *name)
{
	for (size_t i = 0; i < NPOLICIES; i++)
		if (!strcmp(name, policies[i]->name))
			return policies[i];
	return NULL;
}

const struct sched_policy *sched_policy_at(int i)
{
	return i >= 0 && (size_t)i < NPOLICIES ? policies[i] : NULL;
}

const char *sched_policy_name(const struct sched_policy *p)
{
	return p->name;
}

/* The table's names joined: sep between two, last before the last one. */
static const char *names_joined(char *buf, size_t len, const char *sep, const char *last)
{
	buf[0] = '\0';
	for (size_t i = 0; i < NPOLICIES; i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%s",
			 !i ? "" : i + 1 == NPOLICIES ? last : sep, policies[i]->name);
	}
	return buf;
}

const char *sched_policy_list(void)
{
	static char buf[128];

	return names_joined(buf, sizeof(buf), ", ", " or ");
}

const char *sched_policy_alts(void)
{
	static char buf[128];

	return names_joined(buf, sizeof(buf), " | ", " | ");
}

void sched_policy_status(pid_t runner)
{
	for (size_t i = 0; i < NPOLICIES; i++)
		if (SCHED_HOOK(policies[i], status))
			policies[i]->hooks->status(runner);
}

void sched_policy_sweep(void)
{
	for (size_t i = 0; i < NPOLICIES; i++)
		if (SCHED_HOOK(policies[i], sweep))
			policies[i]->hooks->sweep();
}

/* The word of p that key is, or NULL. */
static const struct sched_word *word_of(const struct sched_policy *p, const char *key)
{
	for (const struct sched_word *w = p->words; w->word; w++)
		if (!strcmp(w->word, key))
			return w;
	return NULL;
}

/* One word and its value into matches/val (or the policy's options). */
static int parse_word(const struct sched_policy *p, const struct sched_word *w, const char *arg,
		      struct policy_rule *matches, int *nm, struct class_values *val, bool *given,
		      void *self)
{
	unsigned long long v;
	int l;

	switch (w->kind) {
	case SW_MATCH:
		if (*nm >= p->max_matches)
			return usage_err("at most %d MATCH rules", p->max_matches);
		l = sched_match_parse(arg, &matches[*nm]);
		if (l)
			return l;
		matches[(*nm)++].cls = w->cls;
		return 0;
	case SW_TIMESLICE:
		if (parse_u64("timeslice (us)", arg, SCHED_TS_MIN_US, SCHED_TS_MAX_US, &v))
			return EXIT_USAGE;
		val[w->cls].timeslice = v;
		*given = true;
		return 0;
	case SW_INTERLEAVE:
		l = rm_level_parse(arg);
		if (l < 0)
			return usage_err("invalid interleave level '%s': low, medium or high", arg);
		val[w->cls].interleave = l + 1;
		*given = true;
		return 0;
	case SW_OWN:
		return p->hooks->word(self, w->word, arg);
	}
	return 0;
}

/* The rules of p's classes, in order, each class's values given. */
static int build_rules(const struct sched_policy *p, const struct policy_rule *matches, int nm,
		       const struct class_values *val, struct policy *pol)
{
	memset(pol, 0, sizeof(*pol));
	for (size_t c = 0; c < sizeof(p->classes) / sizeof(p->classes[0]); c++) {
		__u32 cls = p->classes[c];
		__u32 before = pol->nrules;

		if (!cls)
			continue;
		for (int i = 0; i < nm; i++)
			if (matches[i].cls == cls)
				pol->rules[pol->nrules++] = matches[i];
		if (pol->nrules == before && cls == p->need_match)
			return usage_err("%s", p->need_msg);
		if (pol->nrules == before && cls == p->catch_all)
			pol->rules[pol->nrules++] = (struct policy_rule){
				.match = POLICY_MATCH_ANY, .cls = cls,
			};
		for (__u32 i = before; i < pol->nrules; i++) {
			pol->rules[i].timeslice = val[cls].timeslice;
			pol->rules[i].interleave = val[cls].interleave;
		}
	}
	return 0;
}

int sched_policy_parse(const struct sched_policy *p, int argc, char **argv, struct policy *pol,
		       void **self)
{
	struct policy_rule matches[POLICY_RULES] = { 0 };
	struct class_values val[POLICY_CLASS_NR];
	bool given = false;
	int nm = 0, err;

	*self = NULL;
	if (SCHED_HOOK(p, make) && !(*self = p->hooks->make())) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	memcpy(val, p->defaults, sizeof(val));
	for (; argc > 0; argc -= 2, argv += 2) {
		const struct sched_word *w = word_of(p, argv[0]);

		if (!w)
			return usage_err("unknown %s argument '%s'", p->name, argv[0]);
		if (argc < 2)
			return usage_err("'%s' needs a value", argv[0]);
		err = parse_word(p, w, argv[1], matches, &nm, val, &given, *self);
		if (err)
			return err;
	}
	if (p->need_value && !given)
		return usage_err("%s", p->need_msg);
	if (SCHED_HOOK(p, parsed) && (err = p->hooks->parsed(*self, val)))
		return err;
	return build_rules(p, matches, nm, val, pol);
}

void policy_decide(const struct policy *pol, struct tsg_info *i)
{
	const struct policy_rule *r = tsg_rule_first(pol, i);

	if (!r)
		return;
	i->want_class = r->cls;
	i->want_timeslice = r->timeslice;
	i->want_interleave = r->interleave;
}

bool policy_redecide(const struct policy *pol, struct tsg_info *i)
{
	struct tsg_info now = *i;

	now.want_class = 0;
	now.want_timeslice = 0;
	now.want_interleave = 0;
	policy_decide(pol, &now);
	if (!now.want_class || now.want_class == i->want_class)
		return false;
	*i = now;
	return true;
}
