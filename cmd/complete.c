// SPDX-License-Identifier: GPL-2.0
/*
 * complete.c - gpuctl __complete WORDS...: what may come next on a command
 * line, read from the same tables the parser uses (objects, command tables,
 * option rows), for the shell's completer (bash-completion/gpuctl asks it).
 *
 * WORDS are the words after "gpuctl", the last one the word being completed
 * (possibly empty).  Prints the candidates that start with it, one a line,
 * and exits 0; markers (complete.h) stand for what the shell completes
 * itself: "__files__" (a file name), "__command__" (a command after "--").
 * The words that are not option rows (policy names, sched run's words) come
 * from complete_words.c.  Exits 1, printing nothing, for a line it cannot
 * read (an unknown object or command).
 * gpuctl __complete __optsets lists the commands whose options are rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "complete.h"
#include "optsets.h"

#define NOT_MINE COMPLETE_NOT_MINE
#define MAX_POS 64

static void offer_opt(const struct opt *o)
{
	char buf[80];

	if (o->flags & OPT_HIDDEN)
		return;
	snprintf(buf, sizeof(buf), "--%s", o->name);
	complete_offer(buf);
	if (o->key) {
		snprintf(buf, sizeof(buf), "-%c", o->key);
		complete_offer(buf);
	}
}

static void offer_value(const struct opt *o)
{
	switch (o->kind) {
	case OPT_ENUM:
		for (int i = 0; o->words[i]; i++)
			complete_offer(o->words[i]);
		break;
	case OPT_PID:
		complete_uvm_pids();
		break;
	case OPT_GPU:
		complete_gpus();
		break;
	case OPT_TSG:
		complete_tsg_ids();
		break;
	case OPT_PATH:
	case OPT_PATHS:
		complete_mark("__files__");
		break;
	default:
		break;	/* a number, a size, a duration: nothing to offer */
	}
}

static const struct opt *row_named(const struct optset *s, const char *name, size_t len)
{
	const struct opt *sets[2] = { s->rows, opts_global }, *hit = NULL;
	int n = 0;

	for (int k = 0; k < 2; k++)
		for (const struct opt *o = sets[k]; o && o->name; o++) {
			if (strlen(o->name) == len && !strncmp(o->name, name, len))
				return o;
			if (!strncmp(o->name, name, len) && !(o->flags & OPT_HIDDEN)) {
				hit = o;
				n++;
			}
		}
	return n == 1 ? hit : NULL;
}

static const struct opt *row_keyed(const struct optset *s, char key)
{
	const struct opt *sets[2] = { s->rows, opts_global };

	for (int k = 0; k < 2; k++)
		for (const struct opt *o = sets[k]; o && o->name; o++)
			if (o->key == key)
				return o;
	return NULL;
}

static bool takes_value(const struct opt *o)
{
	return o && o->kind != OPT_FLAG && o->kind != OPT_COUNT;
}

/* The option whose value words[i] would be, or NULL. */
static const struct opt *wants_value(const struct optset *s, const char *w)
{
	if (w[0] == '-' && w[1] == '-' && w[2] && !strchr(w, '=')) {
		const struct opt *o = row_named(s, w + 2, strlen(w + 2));

		return takes_value(o) ? o : NULL;
	}
	if (w[0] == '-' && w[1] && w[1] != '-') {
		for (const char *c = w + 1; *c; c++) {
			const struct opt *o = row_keyed(s, *c);

			if (takes_value(o))
				return c[1] ? NULL : o;	/* -I100 holds its value */
		}
	}
	return NULL;
}

/* The words after the object (and command) whose options are s's rows. */
static int complete_set(const struct object *obj, const struct optset *s, char **words, int n,
			const char *const *cmds)
{
	char *pos[MAX_POS];
	int npos = 0;

	for (int j = 0; j < n; j++) {
		const struct opt *o;

		if (!strcmp(words[j], "--") && (s->flags & OPTS_CMD)) {
			complete_mark(j + 1 == n ? "__command__" : "__files__");
			return 0;
		}
		o = wants_value(s, words[j]);
		if (o && j + 1 == n) {
			offer_value(o);
			return 0;
		}
		if (o)
			j++;
		else if (words[j][0] != '-' && npos < MAX_POS)
			pos[npos++] = words[j];	/* a plain word: the command's own */
	}
	if (complete_cur()[0] == '-') {
		for (const struct opt *o = s->rows; o && o->name; o++)
			offer_opt(o);
		for (const struct opt *o = opts_global; o->name; o++)
			offer_opt(o);
		if (s->flags & OPTS_CMD)
			complete_offer("--");
		return 0;
	}
	if ((s->flags & OPTS_WORDS) && !cmds)	/* the command's own words (policy names) */
		return complete_positional(obj, s->command, pos, npos);
	for (int i = 0; cmds && cmds[i]; i++)
		complete_offer(cmds[i]);
	return 0;
}

/* The command word names: itself, or the one it is a unique prefix of. */
static const struct cmd *cmd_of(const struct cmd *cmds, const char *word)
{
	const struct cmd *hit = NULL;
	int n = 0;

	for (const struct cmd *c = cmds; c && c->name; c++) {
		if (!strcmp(c->name, word))
			return c;
		if (is_prefix(word, c->name)) {
			hit = c;
			n++;
		}
	}
	return n == 1 ? hit : NULL;
}

static const struct optset *const optsets[] = { GPUCTL_OPTSETS, NULL };

/* The rows of gpuctl OBJECT [COMMAND] (command NULL: the object's own), or NULL. */
static const struct optset *set_of(const char *object, const char *command)
{
	for (int i = 0; optsets[i]; i++) {
		const struct optset *s = optsets[i];

		if (strcmp(s->object, object))
			continue;
		if (!command ? !s->command : s->command && !strcmp(s->command, command))
			return s;
	}
	return NULL;
}

static int complete_object(const struct object *obj, char **words, int n)
{
	const struct optset *own = set_of(obj->name, NULL);
	const char *names[32];
	const struct cmd *c;
	int k = 0;

	for (c = obj->cmds; c && c->name && k < 31; c++)
		names[k++] = c->name;
	names[k] = NULL;
	if (own)	/* options of its own, "help" its one command */
		return complete_set(obj, own, words, n, n == 0 ? names : NULL);
	if (n == 0) {
		for (int i = 0; names[i]; i++)
			complete_offer(names[i]);
		return 0;
	}
	c = cmd_of(obj->cmds, words[0]);
	if (!c)
		return NOT_MINE;
	own = set_of(obj->name, c->name);
	if (own)
		return complete_set(obj, own, words + 1, n - 1, NULL);
	if (complete_cur()[0] == '-') {	/* no rows: the global options alone */
		for (const struct opt *o = opts_global; o->name; o++)
			offer_opt(o);
		return 0;
	}
	return complete_positional(obj, c->name, words + 1, n - 1);	/* its words, or none */
}

/* gpuctl help OBJECT, batch file FILE (no rows: their words). */
static int complete_other(const struct dispatch *d, const char *first, char **words, int n)
{
	if (!strcmp(first, "help")) {
		for (const struct object *const *o = d->objects; n == 0 && *o; o++)
			complete_offer((*o)->name);
		return 0;
	}
	if (!strcmp(first, "batch")) {
		for (const struct cmd *c = d->batch_cmds; n == 0 && c && c->name; c++)
			complete_offer(c->name);
		if (n == 1 && is_prefix(words[0], "file"))
			complete_mark("__files__");
		return 0;
	}
	if (!strcmp(first, "shell")) {
		if (n == 0)
			complete_offer("help");
		return 0;
	}
	return !strcmp(first, "version") ? 0 : NOT_MINE;
}

static void print_word(const char *word, void *ctx)
{
	(void)ctx;
	printf("%s\n", word);
}

int complete_words(const struct dispatch *d, int argc, char **argv,
		   void (*fn)(const char *word, void *ctx), void *ctx)
{
	static const char *const globals[] = { "-j", "--json", "-p", "--pretty", "-d", "--debug",
					       "-V", "--version", "-h", "--help", NULL };
	static const char *const others[] = { "help", "batch", "shell", "version", NULL };
	int i = 0;

	const char *cur = argc > 0 ? argv[argc - 1] : "";

	complete_begin(cur, fn, ctx);
	while (i < argc - 1 && argv[i][0] == '-')
		i++;
	if (i >= argc - 1) {
		const char *const *list = cur[0] == '-' ? globals : others;

		for (int k = 0; list[k]; k++)
			complete_offer(list[k]);
		for (const struct object *const *o = d->objects; cur[0] != '-' && *o; o++)
			complete_offer((*o)->name);
		return EXIT_OK;
	}
	const struct object *hit = NULL;
	int n = 0;

	for (const struct object *const *o = d->objects; *o; o++) {
		if (!strcmp((*o)->name, argv[i])) {
			hit = *o;
			n = 1;
			break;
		}
		if (is_prefix(argv[i], (*o)->name)) {
			hit = *o;
			n++;
		}
	}
	if (n != 1)
		return complete_other(d, argv[i], argv + i + 1, argc - 1 - (i + 1));
	return complete_object(hit, argv + i + 1, argc - 1 - (i + 1));
}

int complete_main(const struct dispatch *d, int argc, char **argv)
{
	json_output = false;	/* candidates are text, whatever came before */
	if (argc == 1 && !strcmp(argv[0], "__optsets")) {
		/* the commands whose options are rows: "OBJECT [COMMAND]" (for tests) */
		for (int k = 0; optsets[k]; k++)
			printf("%s%s%s\n", optsets[k]->object, optsets[k]->command ? " " : "",
			       optsets[k]->command ? optsets[k]->command : "");
		return EXIT_OK;
	}
	return complete_words(d, argc, argv, print_word, NULL);
}
