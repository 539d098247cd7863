// SPDX-License-Identifier: GPL-2.0
/*
 * policies.c - the scheduling policies gpuctl sched run knows: their words
 * and defaults (one table entry each), how their arguments become the
 * watcher's rules (struct policy, tsg_watch.h), and the decision those rules
 * take, in C, for TSGs that existed before the run (the watcher takes the
 * same decision in BPF for new ones).
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
#include "tsg_match.h"	/* the rule the watcher decides by, too */


/* MATCH := comm:NAME | pid:PID | uid:UID | cgroup:PATH */
static const char *const match_names[POLICY_MATCH_NR] = {
	[POLICY_MATCH_COMM] = "comm",
	[POLICY_MATCH_PID] = "pid",
	[POLICY_MATCH_UID] = "uid",
	[POLICY_MATCH_CGROUP] = "cgroup",
};

enum word_kind { W_MATCH, W_TIMESLICE, W_INTERLEAVE, W_HINT, W_HINT_HOLD, W_HINT_MODE, W_HINT_MIN_OFF, W_ROTATE, W_BE_OFF,
		 W_FLOOR, W_STALL };

/* One word of a policy's ARGS: what it sets, for which class. */
struct policy_word {
	const char *word;
	enum word_kind kind;
	__u32 cls;
};

struct class_values {
	__u64 timeslice;	/* 0: leave as is */
	__u32 interleave;	/* level + 1, 0: leave as is */
};

struct sched_policy {
	const char *name;
	const struct policy_word *words;	/* ends with a NULL word */
	__u32 classes[2];			/* its classes, in rule order */
	struct class_values defaults[POLICY_CLASS_NR];
	__u32 catch_all;	/* the class of every TSG no MATCH names */
	int max_matches;	/* MATCH rules, leaving room for the catch-all rule */
	__u32 need_match;	/* a class that needs a MATCH (need_msg says so) */
	bool need_value;	/* a timeslice or a level must be given (need_msg) */
	const char *need_msg;
};

#define LEVEL(l) (NVA06C_CTRL_INTERLEAVE_LEVEL_##l + 1)

static const struct policy_word lcbe_words[] = {
	{ "lc", W_MATCH, POLICY_CLASS_LC },
	{ "be", W_MATCH, POLICY_CLASS_BE },
	{ "lc-timeslice", W_TIMESLICE, POLICY_CLASS_LC },
	{ "be-timeslice", W_TIMESLICE, POLICY_CLASS_BE },
	{ "lc-interleave", W_INTERLEAVE, POLICY_CLASS_LC },
	{ "be-interleave", W_INTERLEAVE, POLICY_CLASS_BE },
	{ "hint", W_HINT, POLICY_CLASS_BE },
	{ "hint-hold", W_HINT_HOLD, POLICY_CLASS_BE },
	{ "hint-mode", W_HINT_MODE, POLICY_CLASS_BE },
	{ "hint-min-off", W_HINT_MIN_OFF, POLICY_CLASS_BE },
	{ "be-rotate", W_ROTATE, POLICY_CLASS_BE },
	{ "be-off", W_BE_OFF, POLICY_CLASS_BE },
	{ "be-floor", W_FLOOR, POLICY_CLASS_BE },
	{ "be-stall", W_STALL, POLICY_CLASS_BE },
	{ NULL },
};

static const struct policy_word fixed_words[] = {
	{ "match", W_MATCH, POLICY_CLASS_FIXED },
	{ "timeslice", W_TIMESLICE, POLICY_CLASS_FIXED },
	{ "interleave", W_INTERLEAVE, POLICY_CLASS_FIXED },
	{ NULL },
};

static const struct sched_policy policies[] = {
	{
		/* latency-critical processes get long slices, the rest short ones */
		.name = "lc-be",
		.words = lcbe_words,
		.classes = { POLICY_CLASS_LC, POLICY_CLASS_BE },
		.defaults = {
			/* LC timeslice 0 here: derived from be-floor (sched_policy_parse) */
			[POLICY_CLASS_LC] = { 0, LEVEL(HIGH) },
			[POLICY_CLASS_BE] = { 200, LEVEL(LOW) },
		},
		.catch_all = POLICY_CLASS_BE,
		.max_matches = POLICY_RULES - 1,
		.need_match = POLICY_CLASS_LC,
		.need_msg = "lc-be needs at least one 'lc MATCH' (the latency-critical processes)",
	},
	{
		.name = "fixed",
		.words = fixed_words,
		.classes = { POLICY_CLASS_FIXED },
		.catch_all = POLICY_CLASS_FIXED,
		.max_matches = POLICY_RULES,
		.need_value = true,
		.need_msg = "fixed needs 'timeslice US' and/or 'interleave LEVEL'",
	},
};

#define NPOLICIES (sizeof(policies) / sizeof(policies[0]))

const struct sched_policy *sched_policy_find(const char *name)
{
	for (size_t i = 0; i < NPOLICIES; i++)
		if (!strcmp(name, policies[i].name))
			return &policies[i];
	return NULL;
}

const char *sched_policy_name(const struct sched_policy *p)
{
	return p->name;
}

const char *sched_policy_list(void)
{
	static char buf[128];

	buf[0] = '\0';
	for (size_t i = 0; i < NPOLICIES; i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, sizeof(buf) - used, "%s%s",
			 !i ? "" : i + 1 == NPOLICIES ? " or " : ", ", policies[i].name);
	}
	return buf;
}

static int bad_match(const char *arg)
{
	return usage_err("invalid MATCH '%s': comm:NAME, pid:PID, uid:UID or cgroup:PATH", arg);
}

static int parse_match(const char *arg, struct policy_rule *r)
{
	const char *val = strchr(arg, ':');
	size_t klen = val ? (size_t)(val - arg) : 0;
	unsigned long long v;
	int m;

	if (!val || !val[1])
		return bad_match(arg);
	val++;
	for (m = 0; m < POLICY_MATCH_NR; m++)
		if (match_names[m] && strlen(match_names[m]) == klen &&
		    !strncmp(arg, match_names[m], klen))
			break;
	switch (m) {
	case POLICY_MATCH_COMM:
		if (strlen(val) >= TSG_COMM_LEN)
			return usage_err("comm '%s' is longer than %d characters (the kernel "
					 "keeps 15)", val, TSG_COMM_LEN - 1);
		strncpy(r->comm, val, TSG_COMM_LEN - 1);
		break;
	case POLICY_MATCH_PID:
		if (parse_u64("PID", val, 1, TARGET_PID_MAX, &v))
			return EXIT_USAGE;
		r->id = v;
		break;
	case POLICY_MATCH_UID:
		if (parse_u64("UID", val, 0, 0xfffffffeULL, &v))
			return EXIT_USAGE;
		r->id = v;
		break;
	case POLICY_MATCH_CGROUP: {
		struct stat st;
		char path[512];

		snprintf(path, sizeof(path), "%s%s", val[0] == '/' &&
			 strncmp(val, "/sys/fs/cgroup", 14) ? "/sys/fs/cgroup" : "", val);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			return usage_err("cgroup '%s': no such cgroup v2 directory", path);
		r->id = st.st_ino;	/* the cgroup id on cgroup v2 */
		break;
	}
	default:
		return bad_match(arg);
	}
	r->match = m;
	return 0;
}

/* The word of p that key is, or NULL. */
static const struct policy_word *word_of(const struct sched_policy *p, const char *key)
{
	for (const struct policy_word *w = p->words; w->word; w++)
		if (!strcmp(w->word, key))
			return w;
	return NULL;
}

/* hint FILE: a path whose directory exists (the file itself gpuctl creates). */
static int parse_hint(const char *arg, struct gate_opts *g)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(arg, '/');
	struct stat st;

	if (!*arg || (slash && !slash[1]))
		return usage_err("invalid hint FILE '%s': a file path", arg);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - arg) + (slash == arg) : 1,
		 slash ? arg : ".");
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return usage_err("hint FILE '%s': no directory %s", arg, dir);
	g->hint = arg;
	return 0;
}

/* The gate's words, with the values they need. */
static int parse_gate_word(const struct policy_word *w, const char *arg, struct gate_opts *g)
{
	unsigned long long v;

	switch (w->kind) {
	case W_HINT:
		return parse_hint(arg, g);
	case W_HINT_HOLD:
		if (parse_u64("hint-hold (ms)", arg, 0, 3600000, &v))
			return EXIT_USAGE;
		g->hold_ms = v;
		return 0;
	case W_HINT_MIN_OFF:
		if (parse_u64("hint-min-off (ms)", arg, 0, GATE_MIN_OFF_MS_MAX, &v))
			return EXIT_USAGE;
		g->min_off_ms = v;
		return 0;
	case W_ROTATE:
		if (parse_u64("be-rotate (ms)", arg, 1, 3600000, &v))
			return EXIT_USAGE;
		g->rotate_ms = v;
		return 0;
	case W_FLOOR:
		if (parse_u64("be-floor (%)", arg, 0, GATE_FLOOR_MAX, &v))
			return EXIT_USAGE;
		g->floor_pct = v;
		return 0;
	case W_STALL:
		if (parse_u64("be-stall (ms)", arg, GATE_STALL_MIN_MS, 3600000, &v))
			return EXIT_USAGE;
		g->stall_ms = v;
		return 0;
	case W_BE_OFF:
		for (int m = 0; m < GATE_OFF_NR; m++)
			if (!strcmp(arg, gate_off_names[m])) {
				g->be_off = m;
				return 0;
			}
		return usage_err("invalid be-off '%s': schedule or channels", arg);
	case W_HINT_MODE: {
		char *end;

		errno = 0;
		v = strtoull(arg, &end, 8);
		if (errno || end == arg || *end || v > 0777)
			return usage_err("invalid hint-mode '%s': octal permissions such as 0660",
					 arg);
		g->mode = v;
		return 0;
	}
	default:
		return 0;
	}
}

/*
 * lc-be's floor, by construction: while an LC TSG is busy, RM gives a BE
 * TSG its timeslice between two of the LC's, so BE keeps
 * be/(be + lc) of the GPU.  With the hint the gate may also keep BE off up
 * to half the time (GATE_HINT_DUTY), so the RM part must give twice the floor.
 * No lc-timeslice given: the largest one that keeps the floor.  One given:
 * kept, and whether the floor holds with it is recorded (the run says so).
 */
void gate_floor_timeslices(struct gate_opts *g, __u64 *lc_ts, __u64 be_ts)
{
	double need = g->floor_pct / 100.0 * (g->hint ? 1.0 / GATE_HINT_DUTY : 1.0);

	if (!be_ts)
		be_ts = GATE_RM_TS_DEFAULT_US;	/* RM's own, when be-timeslice is left as is */
	if (need > 0.9)
		need = 0.9;
	g->lc_derived = !*lc_ts && g->floor_pct;
	if (!*lc_ts)
		*lc_ts = !g->floor_pct ? GATE_LC_TS_NOFLOOR_US :
			 (__u64)(be_ts * (1.0 - need) / need);
	if (!*lc_ts)
		*lc_ts = 1;
	g->lc_ts = *lc_ts;
	g->be_ts = be_ts;
}

int sched_policy_parse(const struct sched_policy *p, int argc, char **argv, struct policy *pol,
		       struct gate_opts *gate)
{
	struct policy_rule matches[POLICY_RULES] = { 0 };
	struct class_values val[POLICY_CLASS_NR];
	bool given = false, gate_word = false, off_word = false;
	int nm = 0;

	memset(gate, 0, sizeof(*gate));
	gate->hold_ms = GATE_HOLD_MS_DEFAULT;
	gate->min_off_ms = GATE_MIN_OFF_MS_DEFAULT;
	gate->mode = GATE_MODE_DEFAULT;
	gate->be_off = GATE_OFF_CHANNELS;	/* GPFIFO_SCHEDULE takes nothing off on 580 (GSP) */
	gate->floor_pct = GATE_FLOOR_DEFAULT;
	gate->stall_ms = GATE_STALL_MS_DEFAULT;
	memcpy(val, p->defaults, sizeof(val));
	for (; argc > 0; argc -= 2, argv += 2) {
		const struct policy_word *w = word_of(p, argv[0]);
		unsigned long long v;
		int l;

		if (!w)
			return usage_err("unknown %s argument '%s'", p->name, argv[0]);
		if (argc < 2)
			return usage_err("'%s' needs a value", argv[0]);
		switch (w->kind) {
		case W_MATCH:
			if (nm >= p->max_matches)
				return usage_err("at most %d MATCH rules", p->max_matches);
			if (parse_match(argv[1], &matches[nm]))
				return EXIT_USAGE;
			matches[nm++].cls = w->cls;
			break;
		case W_TIMESLICE:
			if (parse_u64("timeslice (us)", argv[1], SCHED_TS_MIN_US, SCHED_TS_MAX_US, &v))
				return EXIT_USAGE;
			val[w->cls].timeslice = v;
			given = true;
			break;
		case W_INTERLEAVE:
			l = rm_level_parse(argv[1]);
			if (l < 0)
				return usage_err("invalid interleave level '%s': low, medium or high",
						 argv[1]);
			val[w->cls].interleave = l + 1;
			given = true;
			break;
		case W_HINT:
		case W_HINT_HOLD:
		case W_HINT_MODE:
		case W_HINT_MIN_OFF:
		case W_ROTATE:
		case W_BE_OFF:
		case W_FLOOR:
		case W_STALL:
			if (parse_gate_word(w, argv[1], gate))
				return EXIT_USAGE;
			gate_word |= w->kind == W_HINT_HOLD || w->kind == W_HINT_MODE ||
				     w->kind == W_HINT_MIN_OFF;
			off_word |= w->kind == W_BE_OFF;
			break;
		}
	}
	if (p->need_value && !given)
		return usage_err("%s", p->need_msg);
	if (gate_word && !gate->hint)
		return usage_err("'hint-hold', 'hint-mode' and 'hint-min-off' need 'hint FILE'");
	if (off_word && !gate->hint && !gate->rotate_ms)
		return usage_err("'be-off' needs 'hint FILE' or 'be-rotate MS'");
	if (p->catch_all == POLICY_CLASS_BE)
		gate_floor_timeslices(gate, &val[POLICY_CLASS_LC].timeslice,
				      val[POLICY_CLASS_BE].timeslice);
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

void policy_decide(const struct policy *pol, struct tsg_info *i)
{
	for (__u32 k = 0; k < pol->nrules && k < POLICY_RULES; k++) {
		if (!tsg_rule_hits(&pol->rules[k], i))
			continue;
		i->want_class = pol->rules[k].cls;
		i->want_timeslice = pol->rules[k].timeslice;
		i->want_interleave = pol->rules[k].interleave;
		return;
	}
}
