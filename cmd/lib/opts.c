// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c - the one option parser (opts.h): rows in, values out, with
 * getopt_long's rules and one error line for every bad word.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "opts.h"
#include "units.h"
#include "target.h"

enum { G_JSON, G_PRETTY, G_DEBUG, G_HELP };

const struct opt opts_global[] = {
	[G_JSON] = { .name = "json", .key = 'j', .kind = OPT_FLAG, .help = "write JSON" },
	[G_PRETTY] = { .name = "pretty", .kind = OPT_FLAG, .help = "write indented JSON (implies -j)" },
	[G_DEBUG] = { .name = "debug", .key = 'd', .kind = OPT_FLAG,
		      .help = "print libbpf's debug messages and verifier logs" },
	[G_HELP] = { .name = "help", .key = 'h', .kind = OPT_FLAG, .help = "print this help" },
	{ .name = NULL },
};

void json_turn_on(bool pretty)
{
	json_output = true;
	if (pretty)
		pretty_output = true;
	if (!json_wtr)
		json_wtr = json_stdout_writer();
	if (json_wtr)
		jsonw_pretty(json_wtr, pretty_output);
}

/* One walk over argv: dry (only -j/--pretty, nothing said) or for real. */
struct walk {
	const struct optset *s;
	void *base;
	struct opts_result *res;
	bool dry;
	int npos;
};

static bool takes_value(const struct opt *o)
{
	return o->kind != OPT_FLAG && o->kind != OPT_COUNT;
}

const char *opt_spelling(const struct opt *o, char *buf, size_t len)
{
	if (o->key)
		snprintf(buf, len, "-%c, --%s%s%s", o->key, o->name,
			 takes_value(o) ? " " : "", takes_value(o) ? o->arg : "");
	else
		snprintf(buf, len, "--%s%s%s", o->name, takes_value(o) ? " " : "",
			 takes_value(o) ? o->arg : "");
	return buf;
}

static int bad(struct walk *w, const char *fmt, const char *a, const char *b)
{
	if (!w->dry)
		usage_err(fmt, a, b);
	return EXIT_USAGE;
}

/* The row --name (len bytes of it) names: exact, else a unique prefix. */
static const struct opt *find_long(struct walk *w, const char *name, size_t len)
{
	const struct opt *sets[2] = { w->s->rows, opts_global }, *hit = NULL;
	char cands[256] = "";
	int n = 0;

	for (int k = 0; k < 2; k++)
		for (const struct opt *o = sets[k]; o && o->name; o++)
			if (strlen(o->name) == len && !strncmp(o->name, name, len))
				return o;
	for (int k = 0; k < 2; k++) {
		for (const struct opt *o = sets[k]; o && o->name; o++) {
			if ((o->flags & OPT_HIDDEN) || strncmp(o->name, name, len))
				continue;
			if (hit && hit->off == o->off && hit->kind == o->kind && k == 0)
				continue;	/* two spellings of one value */
			hit = o;
			n++;
			size_t u = strlen(cands);
			snprintf(cands + u, sizeof(cands) - u, "%s--%s", u ? ", " : "", o->name);
		}
	}
	if (n == 1)
		return hit;
	if (!w->dry) {
		char word[128];

		snprintf(word, sizeof(word), "--%.*s", (int)len, name);
		if (n > 1)
			usage_err("ambiguous option '%s': %s", word, cands);
		else
			usage_err("unknown option '%s'; try '%s %s help'", word, bin_name,
				  w->s->object);
	}
	return NULL;
}

static const struct opt *find_short(struct walk *w, char c)
{
	const struct opt *sets[2] = { w->s->rows, opts_global };

	for (int k = 0; k < 2; k++)
		for (const struct opt *o = sets[k]; o && o->name; o++)
			if (o->key == c)
				return o;
	if (!w->dry)
		usage_err("unknown option '-%c'; try '%s %s help'", c, bin_name, w->s->object);
	return NULL;
}

static int set_enum(struct walk *w, const struct opt *o, const char *spelled, const char *v,
		    int *out)
{
	char alts[256] = "";
	int hit = -1, n = 0;

	for (int i = 0; o->words[i]; i++) {
		size_t u = strlen(alts);

		snprintf(alts + u, sizeof(alts) - u, "%s%s", u ? ", " : "", o->words[i]);
		if (!strcmp(o->words[i], v)) {
			*out = i;
			return 0;
		}
		if (*v && is_prefix(v, o->words[i])) {
			hit = i;
			n++;
		}
	}
	if (n == 1) {
		*out = hit;
		return 0;
	}
	if (!w->dry)
		usage_err("invalid %s '%s': %s (one of: %s)", spelled, v,
			  n ? "ambiguous" : "unknown", alts);
	return EXIT_USAGE;
}

/* A value for row o (spelled as the user did) into base. */
static int set_value(struct walk *w, const struct opt *o, const char *spelled, const char *v)
{
	char *at = (char *)w->base + o->off;
	unsigned long long u;
	double pct;

	err_code("USAGE");	/* a value the parsers below refuse is a bad command line */

	switch (o->kind) {
	case OPT_UINT:
	case OPT_TSG:
		if (parse_u64(spelled, v, o->min, o->max, &u))
			return EXIT_USAGE;
		*(unsigned long long *)at = u;
		return 0;
	case OPT_SIZE:
		return parse_size(spelled, v, o->min, o->max, (uint64_t *)at) ? EXIT_USAGE : 0;
	case OPT_DURATION:
		return parse_duration(spelled, v, o->unit, o->min, o->max, (uint64_t *)at) ?
			EXIT_USAGE : 0;
	case OPT_PERCENT:
		if (parse_percent(spelled, v, (double)o->min, (double)o->max, &pct))
			return EXIT_USAGE;
		*(double *)at = pct;
		return 0;
	case OPT_ENUM:
		return set_enum(w, o, spelled, v, (int *)at);
	case OPT_PID:
		return target_parse_pid(v, (pid_t *)at);
	case OPT_PATHS: {
		struct opt_paths *l = (struct opt_paths *)at;
		unsigned long long cap = o->max && o->max < OPT_PATHS_MAX ? o->max : OPT_PATHS_MAX;

		if (!*v)
			return usage_err("%s needs a non-empty %s", spelled, o->arg);
		if ((unsigned long long)l->n >= cap)
			return usage_err("%s at most %llu times", spelled, cap);
		l->v[l->n++] = v;
		return 0;
	}
	case OPT_STRING:
	case OPT_PATH:
	case OPT_GPU:
		if (!*v)
			return usage_err("%s needs a non-empty %s", spelled, o->arg);
		*(const char **)at = v;
		return 0;
	case OPT_FLAG:
	case OPT_COUNT:
		break;
	}
	return EXIT_USAGE;
}

static bool is_global(const struct opt *o)
{
	for (int g = G_JSON; g <= G_HELP; g++)
		if (o == &opts_global[g])
			return true;
	return false;
}

/* Row o was given (value v, or NULL for a flag). */
static int take(struct walk *w, const struct opt *o, const char *spelled, const char *v)
{
	int idx, err;

	if (is_global(o)) {
		if (o == &opts_global[G_JSON] || o == &opts_global[G_PRETTY])
			json_turn_on(o == &opts_global[G_PRETTY]);
		else if (w->dry)
			return 0;
		else if (o == &opts_global[G_DEBUG])
			debug_output = true;
		else
			w->res->help = true;
		return 0;
	}
	if (w->dry)
		return 0;
	idx = (int)(o - w->s->rows);
	if ((o->flags & OPT_ONCE) && idx < 64 && (w->res->seen >> idx & 1))
		return usage_err("give %s once", spelled);
	if (idx < 64)
		w->res->seen |= 1ull << idx;
	if (o->kind == OPT_FLAG) {
		*(bool *)((char *)w->base + o->off) = true;
		return 0;
	}
	if (o->kind == OPT_COUNT) {
		(*(unsigned int *)((char *)w->base + o->off))++;
		return 0;
	}
	err = set_value(w, o, spelled, v);
	err_code(NULL);
	return err;
}

/* --name[=value] at argv[*i]. */
static int long_opt(struct walk *w, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct opt *o = find_long(w, a, len);
	char spelled[80];

	if (!o)
		return EXIT_USAGE;
	snprintf(spelled, sizeof(spelled), "--%s", o->name);
	if (!takes_value(o)) {
		if (eq)
			return bad(w, "option '%s' takes no value (not '%s')", spelled, argv[*i]);
		return take(w, o, spelled, NULL);
	}
	if (eq)
		return take(w, o, spelled, eq + 1);
	if (*i + 1 >= argc) {
		char form[96];

		return bad(w, "option '%s' needs a value (%s)", spelled,
			   opt_spelling(o, form, sizeof(form)));
	}
	(*i)++;
	return take(w, o, spelled, argv[*i]);
}

/* -abc, -xVALUE, -x VALUE at argv[*i]. */
static int short_opts(struct walk *w, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 1;

	for (; *a; a++) {
		const struct opt *o = find_short(w, *a);
		char spelled[4] = { '-', *a, 0, 0 };
		int err;

		if (!o)
			return EXIT_USAGE;
		if (!takes_value(o)) {
			err = take(w, o, spelled, NULL);
			if (err)
				return err;
			continue;
		}
		if (a[1])
			return take(w, o, spelled, a + 1);
		if (*i + 1 >= argc) {
			char form[96];

			return bad(w, "option '%s' needs a value (%s)", spelled,
				   opt_spelling(o, form, sizeof(form)));
		}
		(*i)++;
		return take(w, o, spelled, argv[*i]);
	}
	return 0;
}

static int walk(struct walk *w, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		int err;

		if (!strcmp(a, "--")) {
			if (w->s->flags & OPTS_CMD) {
				if (i + 1 >= argc)
					return bad(w, "%s%s", "'--' needs a command", "");
				if (!w->dry)
					*(char ***)((char *)w->base + w->s->cmd_off) = argv + i + 1;
				return 0;
			}
			if (!(w->s->flags & OPTS_WORDS) && i + 1 < argc)
				return bad(w, "unexpected argument '%s'; try 'gpuctl %s help'", argv[i + 1],
					   w->s->object);
			for (i++; i < argc; i++)
				if (!w->dry)
					argv[w->npos++] = argv[i];
			return 0;
		}
		if (a[0] == '-' && a[1] == '-')
			err = long_opt(w, argc, argv, &i);
		else if (a[0] == '-' && a[1])
			err = short_opts(w, argc, argv, &i);
		else if (!(w->s->flags & OPTS_WORDS))
			err = bad(w, "unexpected argument '%s'; try 'gpuctl %s help'", a, w->s->object);
		else if (!w->dry)
			argv[w->npos++] = a, err = 0;
		else
			err = 0;
		if (err && !w->dry)	/* the dry walk looks past a bad word for -j */
			return err;
	}
	return 0;
}

int opts_parse(const struct optset *s, int argc, char **argv, void *base,
	       struct opts_result *res)
{
	struct walk w = { .s = s, .base = base, .res = res, .dry = true };
	int err;

	memset(res, 0, sizeof(*res));
	/* -j anywhere on the line: the error about an earlier word is JSON too */
	walk(&w, argc, argv);
	w.dry = false;
	err = walk(&w, argc, argv);
	if (err)
		return err;
	res->argc = w.npos;
	res->argv = argv;
	if (res->help)
		opts_help(s);
	return 0;
}

bool opts_seen(const struct optset *s, const struct opts_result *res, const char *name)
{
	for (int i = 0; s->rows[i].name && i < 64; i++)
		if (!strcmp(s->rows[i].name, name))
			return res->seen >> i & 1;
	return false;
}

static void help_rows(const struct opt *rows)
{
	char form[96];

	for (const struct opt *o = rows; o->name; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		opt_spelling(o, form, sizeof(form));
		if (!o->key)
			printf("      %-26s %s\n", form, o->help);
		else
			printf("  %-30s %s\n", form, o->help);
	}
}

void opts_help_rows(const struct optset *s)
{
	if (json_output || !s->rows || !s->rows[0].name)
		return;
	if (s->command)
		printf("\nOptions of %s:\n", s->command);
	else
		printf("\nOptions:\n");
	help_rows(s->rows);
}

int opts_help(const struct optset *s)
{
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	for (int i = 0; s->usage && s->usage[i]; i++)
		printf("%s %s %s\n", i ? "      " : "Usage:", bin_name, s->usage[i]);
	if (s->about)
		printf("\n%s\n", s->about);
	opts_help_rows(s);
	printf("\nAfter the object: -j, --json; --pretty; -d, --debug; -h, --help.\n"
	       "Long options take any unique prefix and --opt=VALUE; sizes, durations\n"
	       "and percentages as gpuctl(8) UNITS says (4GiB, 500ms, 10%%).\n");
	return EXIT_OK;
}
