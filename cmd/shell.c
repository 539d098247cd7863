// SPDX-License-Identifier: GPL-2.0
/*
 * shell.c - "gpuctl shell": a readline prompt with history and completion
 * of every object's command words and policy names (from the objects'
 * command tables, which main passes down), each line run as batch runs it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "gpuctl.h"
#include "policy/kinds.h"

/* What shell_main was given: readline's callbacks take no context. */
static const struct dispatch *cur;

/* ---------------------------------------------------------------- shell */

static int shell_help(void)
{
	if (json_output)
		return EXIT_OK;	/* run_command writes null */
	fprintf(stdout,
		"Usage: %1$s shell\n"
		"       %1$s shell help\n"
		"\n"
		"Reads commands at a 'gpuctl> ' prompt, with history and tab\n"
		"completion, and runs each as '%1$s [OPTIONS] COMMAND' would.  A\n"
		"failing command does not end the shell; 'quit', 'exit' or end of\n"
		"input (Ctrl-D) does.  History is kept in $GPUCTL_HISTORY, by default\n"
		"~/.gpuctl_history (set GPUCTL_HISTORY= to keep none).\n",
		bin_name);
	return EXIT_OK;
}

static const char *const *completion_list;

static char *completion_next(const char *text, int state)
{
	static size_t idx, len;

	if (!state) {
		idx = 0;
		len = strlen(text);
	}
	while (completion_list && completion_list[idx]) {
		const char *w = completion_list[idx++];

		if (!strncmp(w, text, len))
			return strdup(w);
	}
	return NULL;
}

/* The entry of list that word names (exact, or unique prefix); NULL if none. */
static const char *resolve(const char *const *list, const char *word)
{
	const char *found = NULL;

	for (int i = 0; list && list[i]; i++) {
		if (!strcmp(list[i], word))
			return list[i];
		if (is_prefix(word, list[i])) {
			if (found)
				return NULL;
			found = list[i];
		}
	}
	return found;
}

/* A growing NULL-terminated word list (static storage, reused per completion). */
struct wordlist {
	const char **w;
	size_t n, cap;
};

static void wl_add(struct wordlist *l, const char *word)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->w[i], word))
			return;
	if (l->n + 2 > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		const char **w = realloc(l->w, cap * sizeof(*w));

		if (!w)
			return;
		l->w = w;
		l->cap = cap;
	}
	l->w[l->n++] = word;
	l->w[l->n] = NULL;
}

static void wl_add_cmds(struct wordlist *l, const struct cmd *cmds)
{
	for (; cmds && cmds->name; cmds++)
		wl_add(l, cmds->name);
}

static struct wordlist words;	/* what completion_list points into */

static const char *const *wl_done(void)
{
	return words.n ? words.w : NULL;
}

static const struct object *find_object(const char *name)
{
	for (const struct object *const *o = cur->objects; *o; o++)
		if (!strcmp((*o)->name, name))
			return *o;
	return NULL;
}

/* The top-level words: every object, batch, shell, help, version. */
static void object_names(struct wordlist *l)
{
	for (const struct object *const *o = cur->objects; *o; o++)
		wl_add(l, (*o)->name);
	wl_add(l, "batch");
	wl_add(l, "shell");
	wl_add(l, "help");
	wl_add(l, "version");
}

/* complete_words' candidates, copied (its buffers do not outlive the call). */
static char *owned[256];
static int nowned;

static void take_word(const char *w, void *ctx)
{
	char *c;

	if (nowned == (int)(sizeof(owned) / sizeof(owned[0])) || !(c = strdup(w)))
		return;
	owned[nowned++] = c;
	wl_add(ctx, c);
}

/*
 * The words before the cursor and text through the one completion source
 * (complete.c): true when it answered (words filled, or file names allowed).
 */
static bool rows_complete(char *prefix, const char *text)
{
	char *argv[64];
	int argc = 0;

	for (char *save = NULL, *tok = strtok_r(prefix, " \t", &save);
	     tok && argc < 62; tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc++] = (char *)text;
	argv[argc] = NULL;
	while (nowned)
		free(owned[--nowned]);
	words.n = 0;
	if (complete_words(cur, argc, argv, take_word, &words))
		return false;
	if (words.n == 1 && !strncmp(words.w[0], "__", 2)) {	/* a marker (complete.h) */
		words.n = 0;
		rl_attempted_completion_over = 0;	/* readline's file names */
	}
	return true;
}

static char **shell_complete(const char *text, int start, int end)
{
	const char *before[4] = { NULL };
	const struct object *ob;
	const char *obj, *cmd;
	struct wordlist all = { 0 };
	char *prefix;
	int n = 0;

	(void)end;
	/* The words before the one being completed (plain blanks split them). */
	prefix = strndup(rl_line_buffer, start);
	if (!prefix)
		return NULL;
	for (char *save = NULL, *tok = strtok_r(prefix, " \t", &save);
	     tok; tok = strtok_r(NULL, " \t", &save)) {
		if (n < 4)
			before[n] = tok;
		n++;
	}

	rl_attempted_completion_over = 1;	/* no file names unless we say so */
	{
		char *again = strndup(rl_line_buffer, start);

		if (again && n > 0 && rows_complete(again, text)) {
			free(again);
			free(prefix);
			completion_list = wl_done();
			return completion_list ? rl_completion_matches(text, completion_next) : NULL;
		}
		free(again);
	}
	words.n = 0;
	object_names(&all);
	if (n == 0) {
		object_names(&words);
		wl_add(&words, "quit");
		wl_add(&words, "exit");
		goto done;
	}
	obj = resolve(all.w, before[0]);
	if (!obj)
		goto done;
	if (!strcmp(obj, "help")) {
		if (n == 1)
			object_names(&words);
	} else if ((ob = find_object(obj))) {
		struct wordlist cmds = { 0 };

		wl_add_cmds(&cmds, ob->cmds);
		if (n == 1) {
			wl_add_cmds(&words, ob->cmds);
		} else if ((cmd = resolve(cmds.w, before[1])) && !strcmp(cmd, "load") &&
			   ob->kind) {
			/* "load { POLICY ... | file PATH }" */
			if (n == 2) {
				const char *w;

				for (unsigned int i = 0; (w = policy_kind_word(ob->kind, i)); i++)
					wl_add(&words, w);
				wl_add(&words, "file");
			} else if (n == 3 && !strcmp(before[2], "file")) {
				rl_attempted_completion_over = 0;
			}
		}
		free(cmds.w);
	} else if (!strcmp(obj, "batch")) {
		if (n == 1)
			wl_add_cmds(&words, cur->batch_cmds);
		else if (n == 2 && is_prefix(before[1], "file"))
			rl_attempted_completion_over = 0;
	} else if (n == 1 && strcmp(obj, "version")) {
		wl_add(&words, "help");
	}
done:
	free(all.w);
	free(prefix);
	completion_list = wl_done();
	if (!completion_list)
		return NULL;
	return rl_completion_matches(text, completion_next);
}

static char *history_path(void)
{
	const char *env = getenv("GPUCTL_HISTORY");
	const char *home;
	char *path;

	if (env)
		return *env ? strdup(env) : NULL;
	home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	if (asprintf(&path, "%s/.gpuctl_history", home) < 0)
		return NULL;
	return path;
}

/* Why the last shell_read() returned NULL: 0 at end of input, else errno. */
static int read_errno;
/* The last line read was longer than LINE_MAX_BYTES (dropped; given as ""). */
static bool too_long;

/*
 * The rest of a line longer than LINE_MAX_BYTES, read and dropped: true at
 * its end (the next line comes next), false when it goes on past
 * SKIP_MAX_BYTES or the input ends (an endless line, /dev/zero: stop).
 */
#define SKIP_MAX_BYTES (64u << 20)
static bool skip_line(FILE *f)
{
	int c;

	for (size_t n = 0; n < SKIP_MAX_BYTES; n++) {
		c = getc_unlocked(f);
		if (c == '\n')
			return true;
		if (c == EOF)
			return false;
	}
	return false;
}

/* One command line from the terminal (readline) or from a pipe (bounded). */
static char *shell_read(bool interactive, const char *prompt, bool *nul)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;

	if (interactive)
		return readline(prompt);
	got = read_cmdline(stdin, &line, &cap);
	if (got < 0 && errno == E2BIG && skip_line(stdin)) {
		/* that line is refused, not the rest of the input */
		free(line);
		too_long = true;
		return strdup("");
	}
	if (got < 0) {
		read_errno = errno;
		free(line);
		return NULL;
	}
	if (chomp(line, got))
		*nul = true;
	return line;
}

/*
 * The command that starts with first (consumed): its continuation lines
 * read and joined (linear in its length, bounded by LINE_MAX_BYTES), split
 * into w; the joined text goes to the history.
 */
static enum split_result shell_command(bool interactive, char *first, struct words *w,
				       const char **err, bool *nul)
{
	struct linejoin j = { 0 };
	enum split_result r = SPLIT_ERROR;
	char *more = first;
	int e;

	*err = "the line holds a NUL byte";
	memset(w, 0, sizeof(*w));
	while (!*nul && more) {
		e = linejoin_add(&j, more);
		free(more);
		if (e) {
			*err = e == -E2BIG ? "the command is longer than " LINE_MAX_TEXT : "out of memory";
			r = SPLIT_ERROR;
			break;
		}
		r = linejoin_split(&j, w, err);
		if (r != SPLIT_MORE)
			break;
		more = shell_read(interactive, "> ", nul);
		if (!more && read_errno) {
			r = SPLIT_ERROR;
			break;
		} else if (!more) {
			/* end of input after a backslash: take the line as it is */
			do
				j.buf[--j.len] = '\0';
			while ((r = split_line(j.buf, w, err)) == SPLIT_MORE);
		}
	}
	if (interactive && j.len) {
		HIST_ENTRY *prev = history_length ? history_get(history_base + history_length - 1) : NULL;

		if (!prev || strcmp(prev->line, j.buf))
			add_history(j.buf);
	}
	if (*nul)
		free(more);
	linejoin_free(&j);
	return r;
}

static int shell_loop(bool interactive)
{
	int last = EXIT_OK;
	char *line;

	bool nul = false;

	while ((line = shell_read(interactive, "gpuctl> ", &nul))) {
		enum split_result r;
		struct words w;
		const char *err;

		r = shell_command(interactive, line, &w, &err, &nul);
		if (read_errno)
			break;	/* said below */
		if (nul) {
			r = SPLIT_ERROR;
			err = "the line holds a NUL byte";
			nul = false;
		}
		if (too_long) {
			r = SPLIT_ERROR;
			err = "the command is longer than " LINE_MAX_TEXT;
			too_long = false;
			words_free(&w);
		}
		if (r == SPLIT_ERROR) {
			if (json_output) {
				/* Each shell line is its own JSON document. */
				jsonw_start_object(json_wtr);
				jsonw_string_field(json_wtr, "error", err);
				jsonw_end_object(json_wtr);
				p_err_count++;
				last = EXIT_USAGE;
			} else {
				last = usage_err("%s", err);
			}
			continue;
		}
		if (!w.argc)
			continue;
		if (!strcmp(w.argv[0], "quit") || !strcmp(w.argv[0], "exit")) {
			words_free(&w);
			return EXIT_OK;
		}
		last = run_line(cur, w.argc, w.argv);
		words_free(&w);
	}
	if (read_errno == E2BIG)
		return usage_err("a line longer than " LINE_MAX_TEXT " goes on past %u MiB: input "
				 "stopped", SKIP_MAX_BYTES >> 20);
	if (read_errno) {
		p_err("reading standard input failed: %s",
		      read_errno == ENOMEM ? "out of memory" : strerror(read_errno));
		return EXIT_FAIL;
	}
	if (interactive)
		fputc('\n', rl_outstream ? rl_outstream : stdout);
	return last;
}

int shell_main(const struct dispatch *d, int argc, char **argv)
{
	bool interactive = isatty(STDIN_FILENO);
	char *hist = NULL;
	int ret;

	if (argc > 0) {
		if (is_prefix(argv[0], "help") && argc == 1)
			return shell_help();
		if (is_prefix(argv[0], "help"))
			return usage_err("unexpected argument '%s'", argv[1]);
		return usage_err("unknown shell command '%s'; try '%s shell help'",
				 argv[0], bin_name);
	}
	cur = d;
	if (batch_nested)
		return usage_err("'shell' cannot run inside a batch or shell");

	if (interactive) {
		rl_readline_name = "gpuctl";
		rl_attempted_completion_function = shell_complete;
		/* Keep stdout for the commands' JSON; the prompt goes elsewhere. */
		if (json_output)
			rl_outstream = stderr;
		using_history();
		stifle_history(1000);
		hist = history_path();
		if (hist)
			read_history(hist);
	}
	batch_nested = true;
	ret = shell_loop(interactive);
	batch_nested = false;
	if (hist) {
		write_history(hist);
		free(hist);
	}
	return ret;
}
