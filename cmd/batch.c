// SPDX-License-Identifier: GPL-2.0
/*
 * batch.c - "gpuctl batch file FILE" and "gpuctl shell": many commands in one
 * process.  Both read command lines, split them into words the way a shell
 * would (quotes, backslashes, # comments, backslash-newline continuation) and
 * hand them to run_command().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "gpuctl.h"

/* Set while a batch or shell runs: neither may start inside the other. */
static bool nested;

struct words {
	int argc;
	int cap;
	char **argv;
};

static void words_free(struct words *w)
{
	for (int i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	memset(w, 0, sizeof(*w));
}

static int words_add(struct words *w, const char *s, size_t len)
{
	if (w->argc + 2 > w->cap) {
		int cap = w->cap ? w->cap * 2 : 8;
		char **v = realloc(w->argv, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->argv = v;
		w->cap = cap;
	}
	w->argv[w->argc] = strndup(s, len);
	if (!w->argv[w->argc])
		return -ENOMEM;
	w->argc++;
	w->argv[w->argc] = NULL;
	return 0;
}

enum split_result {
	SPLIT_DONE,	/* out holds the words */
	SPLIT_MORE,	/* the line ends in a backslash: append the next one */
	SPLIT_ERROR,	/* *err says why */
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Splits line into words:
 *   - blanks separate words; a word starting with # begins a comment;
 *   - '...' keeps everything up to the next ' as it is;
 *   - "..." keeps everything up to the next ", where \" and \\ stand for
 *     " and \ (other backslashes are kept);
 *   - outside quotes, a backslash takes the next character as it is; at the
 *     very end of the line it asks for the next line (SPLIT_MORE).
 */
static enum split_result split_line(const char *line, struct words *out,
				    const char **err)
{
	size_t cap = strlen(line) + 1;
	char *buf = malloc(cap);
	const char *s = line;
	enum split_result ret = SPLIT_DONE;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	if (!buf) {
		*err = "out of memory";
		return SPLIT_ERROR;
	}
	for (;;) {
		size_t len = 0;

		while (is_blank(*s))
			s++;
		if (!*s || *s == '#')
			break;
		while (*s && !is_blank(*s)) {
			if (*s == '\'') {
				const char *close = strchr(s + 1, '\'');

				if (!close) {
					*err = "unterminated single quote";
					goto fail;
				}
				memcpy(buf + len, s + 1, close - s - 1);
				len += close - s - 1;
				s = close + 1;
			} else if (*s == '"') {
				s++;
				while (*s && *s != '"') {
					if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
						s++;
					buf[len++] = *s++;
				}
				if (!*s) {
					*err = "unterminated double quote";
					goto fail;
				}
				s++;
			} else if (*s == '\\') {
				if (!s[1]) {
					ret = SPLIT_MORE;
					goto out;
				}
				buf[len++] = s[1];
				s += 2;
			} else {
				buf[len++] = *s++;
			}
		}
		if (words_add(out, buf, len)) {
			*err = "out of memory";
			goto fail;
		}
	}
out:
	free(buf);
	if (ret == SPLIT_MORE)
		words_free(out);
	return ret;
fail:
	free(buf);
	words_free(out);
	return SPLIT_ERROR;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* Appends more to *acc (dropping the backslash that ends *acc). */
static int join_continuation(char **acc, const char *more)
{
	size_t n = strlen(*acc);
	char *joined;

	if (n && (*acc)[n - 1] == '\\')
		(*acc)[--n] = '\0';
	if (asprintf(&joined, "%s%s", *acc, more) < 0)
		return -ENOMEM;
	free(*acc);
	*acc = joined;
	return 0;
}

/* ---------------------------------------------------------------- batch */

static int batch_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output)
		return EXIT_OK;	/* run_command writes null */
	fprintf(stdout,
		"Usage: %1$s batch file FILE\n"
		"       %1$s batch help\n"
		"\n"
		"       COMMAND := { file | help }\n"
		"       FILE := { PATH | - }\n"
		"\n"
		"Runs one command per line of FILE (- reads standard input), in\n"
		"one process, and stops at the first command that fails.  Lines\n"
		"are split like a shell does: '...' and \"...\" quote, a backslash\n"
		"escapes, # starts a comment, a backslash at the end of a line\n"
		"continues it on the next.  Under -j the output is one JSON array\n"
		"with one element per command.\n",
		bin_name);
	return EXIT_OK;
}

static int batch_run(FILE *f)
{
	unsigned long lineno = 0, done = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = EXIT_OK;

	if (json_output)
		jsonw_start_array(json_wtr);

	while (getline(&line, &cap, f) >= 0) {
		unsigned long first = ++lineno;
		char context[64];
		struct words w;
		const char *err;
		enum split_result r;
		char *acc;

		chomp(line);
		acc = strdup(line);
		if (!acc) {
			p_err("out of memory");
			ret = EXIT_FAIL;
			break;
		}
		while ((r = split_line(acc, &w, &err)) == SPLIT_MORE) {
			if (getline(&line, &cap, f) < 0) {
				/* A backslash ends the file: take the line as it is. */
				acc[strlen(acc) - 1] = '\0';
				continue;
			}
			lineno++;
			chomp(line);
			if (join_continuation(&acc, line)) {
				r = SPLIT_ERROR;
				err = "out of memory";
				break;
			}
		}
		free(acc);

		snprintf(context, sizeof(context), "batch line %lu", first);
		err_context = context;
		if (r == SPLIT_ERROR) {
			ret = usage_err("%s", err);
			err_context = NULL;
			break;
		}
		if (!w.argc) {
			err_context = NULL;
			continue;
		}

		unsigned long errs = p_err_count;

		ret = run_command(w.argc, w.argv);
		if (ret != EXIT_OK && p_err_count == errs)
			p_err("'%s' failed with exit code %d", w.argv[0], ret);
		err_context = NULL;
		words_free(&w);
		if (ret != EXIT_OK)
			break;
		done++;
	}
	if (ret == EXIT_OK && ferror(f)) {
		p_err("reading the batch file failed after line %lu: %s",
		      lineno, strerror(errno));
		ret = EXIT_FAIL;
	}
	free(line);

	if (json_output)
		jsonw_end_array(json_wtr);
	else if (debug_output)
		fprintf(stderr, "batch: %lu command(s) ran\n", done);
	return ret;
}

static int batch_file(int argc, char **argv)
{
	FILE *f;
	int ret;

	if (argc < 1)
		return usage_err("'batch file' needs a FILE (or - for standard input)");
	if (argc > 1)
		return usage_err("unexpected argument '%s'", argv[1]);
	if (nested)
		return usage_err("'batch' cannot run inside a batch or shell");

	if (!strcmp(argv[0], "-")) {
		f = stdin;
	} else {
		f = fopen(argv[0], "r");
		if (!f) {
			p_err("cannot open batch file '%s': %s", argv[0], strerror(errno));
			return EXIT_FAIL;
		}
	}
	nested = true;
	ret = batch_run(f);
	nested = false;
	if (f != stdin)
		fclose(f);
	return ret;
}

int do_batch(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "help",	batch_help },
		{ "file",	batch_file },
		{ NULL, NULL },
	};

	return cmd_select(cmds, argc, argv, "batch");
}

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
static const char *const batch_words[] = { "file", "help", NULL };
static const char *const help_only_words[] = { "help", NULL };

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

	for (int i = 0; list[i]; i++) {
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

/* list + extra, NULL-terminated, in a static buffer that grows as needed. */
static const char *const *joined_list(const char *const *list,
				      const char *const *extra)
{
	static const char **buf;
	static size_t cap;
	size_t n = 0;

	for (int i = 0; list && list[i]; i++)
		n++;
	for (int i = 0; extra && extra[i]; i++)
		n++;
	if (n + 1 > cap) {
		const char **b = realloc(buf, (n + 1) * sizeof(*b));

		if (!b)
			return list;
		buf = b;
		cap = n + 1;
	}
	n = 0;
	for (int i = 0; list && list[i]; i++)
		buf[n++] = list[i];
	for (int i = 0; extra && extra[i]; i++) {
		bool dup = false;

		for (size_t j = 0; j < n; j++)
			dup |= !strcmp(buf[j], extra[i]);
		if (!dup)
			buf[n++] = extra[i];
	}
	buf[n] = NULL;
	return buf;
}

/* Command words and policy names of the objects that have them. */
struct object_words {
	const char *object;
	const char *const *words;
	const char *const *policies;
};

static const struct object_words *object_completion(const char *obj)
{
	static const struct object_words table[] = {
		{ "prefetch", prefetch_words, prefetch_policy_words },
		{ "evict", evict_words, evict_policy_words },
		{ "replay", replay_words, replay_policy_words },
		{ "sched", sched_words, NULL },
		{ "trace", trace_words, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(obj, table[i].object))
			return &table[i];
	return NULL;
}

static char **shell_complete(const char *text, int start, int end)
{
	const struct object_words *ow;
	static const char *const quit_words[] = { "quit", "exit", NULL };
	static const char *const file_word[] = { "file", NULL };
	const char *before[4] = { NULL };
	const char *obj, *cmd;
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
	completion_list = NULL;
	if (n == 0) {
		completion_list = joined_list(object_words, quit_words);
		goto done;
	}
	obj = resolve(object_words, before[0]);
	if (!obj)
		goto done;
	if (!strcmp(obj, "help")) {
		if (n == 1)
			completion_list = object_words;
	} else if ((ow = object_completion(obj))) {
		if (n == 1) {
			completion_list = ow->words;
			goto done;
		}
		cmd = resolve(ow->words, before[1]);
		/* "load { POLICY ... | file PATH }"; the others take no policy. */
		if (!ow->policies || !cmd || strcmp(cmd, "load"))
			goto done;
		if (n == 2)
			completion_list = joined_list(ow->policies, file_word);
		else if (n == 3 && !strcmp(before[2], "file"))
			rl_attempted_completion_over = 0;
	} else if (!strcmp(obj, "batch")) {
		if (n == 1)
			completion_list = batch_words;
		else if (n == 2 && is_prefix(before[1], "file"))
			rl_attempted_completion_over = 0;
	} else if (n == 1 && strcmp(obj, "version")) {
		completion_list = help_only_words;
	}
done:
	free(prefix);
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

/* One command line from the terminal (readline) or from a pipe (getline). */
static char *shell_read(bool interactive, const char *prompt)
{
	char *line = NULL;
	size_t cap = 0;

	if (interactive)
		return readline(prompt);
	if (getline(&line, &cap, stdin) < 0) {
		free(line);
		return NULL;
	}
	chomp(line);
	return line;
}

static int shell_loop(bool interactive)
{
	int last = EXIT_OK;
	char *line;

	while ((line = shell_read(interactive, "gpuctl> "))) {
		enum split_result r;
		struct words w;
		const char *err;

		while ((r = split_line(line, &w, &err)) == SPLIT_MORE) {
			char *more = shell_read(interactive, "> ");

			if (!more) {
				line[strlen(line) - 1] = '\0';
				continue;
			}
			if (join_continuation(&line, more)) {
				free(more);
				r = SPLIT_ERROR;
				err = "out of memory";
				break;
			}
			free(more);
		}
		if (interactive && *line) {
			HIST_ENTRY *prev = history_length ? history_get(history_base + history_length - 1) : NULL;

			if (!prev || strcmp(prev->line, line))
				add_history(line);
		}
		free(line);

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
		last = run_command(w.argc, w.argv);
		words_free(&w);
	}
	if (interactive)
		fputc('\n', rl_outstream ? rl_outstream : stdout);
	return last;
}

int do_shell(int argc, char **argv)
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
	if (nested)
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
	nested = true;
	ret = shell_loop(interactive);
	nested = false;
	if (hist) {
		write_history(hist);
		free(hist);
	}
	return ret;
}
