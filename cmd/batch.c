// SPDX-License-Identifier: GPL-2.0
/*
 * batch.c - "gpuctl batch file FILE": many commands in one process.  Also
 * what batch and shell share: splitting a line into words the way a shell
 * would (quotes, backslashes, # comments, backslash-newline continuation)
 * and running one line through the dispatch main passes down.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "batch.h"

/* Set while a batch or shell runs: neither may start inside the other. */
bool batch_nested;

/* What batch_main was given, for batch_file (a struct cmd has no context argument). */
static const struct dispatch *cur_dispatch;

void words_free(struct words *w)
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
enum split_result split_line(const char *line, struct words *out,
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

int chomp(char *s, size_t len)
{
	size_t n = strlen(s);

	if (n != len)
		return -1;
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return 0;
}

int run_line(const struct dispatch *d, int argc, char **argv)
{
	bool json_before = json_output, had_wtr = json_wtr != NULL;
	int ret = d->run(argc, argv);

	if (json_output != json_before) {
		/* the line turned -j on for itself only */
		if (json_wtr && !had_wtr) {
			jsonw_flush(json_wtr);
			jsonw_destroy(&json_wtr);
		}
		json_output = json_before;
	}
	return ret;
}

/* Appends more to *acc (dropping the backslash that ends *acc). */
int join_continuation(char **acc, const char *more)
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

static int batch_run(const struct dispatch *d, FILE *f)
{
	unsigned long lineno = 0, done = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = EXIT_OK;

	if (json_output)
		jsonw_start_array(json_wtr);

	ssize_t got;

	while ((got = getline(&line, &cap, f)) >= 0) {
		unsigned long first = ++lineno;
		char context[64];
		struct words w = { 0 };
		const char *err = NULL;
		enum split_result r = SPLIT_ERROR;
		bool nul = chomp(line, got) != 0;
		char *acc;

		acc = strdup(line);
		if (!acc) {
			p_err("out of memory");
			ret = EXIT_FAIL;
			break;
		}
		while (!nul && (r = split_line(acc, &w, &err)) == SPLIT_MORE) {
			got = getline(&line, &cap, f);
			if (got < 0) {
				/* A backslash ends the file: take the line as it is. */
				acc[strlen(acc) - 1] = '\0';
				continue;
			}
			lineno++;
			if (chomp(line, got)) {
				nul = true;
				break;
			}
			if (join_continuation(&acc, line)) {
				r = SPLIT_ERROR;
				err = "out of memory";
				break;
			}
		}
		free(acc);
		if (nul) {
			r = SPLIT_ERROR;
			err = "the line holds a NUL byte";
		}

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

		ret = run_line(d, w.argc, w.argv);
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
	if (batch_nested)
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
	batch_nested = true;
	ret = batch_run(cur_dispatch, f);
	batch_nested = false;
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

const struct cmd batch_cmds[] = {
	{ "help",	batch_help },
	{ "file",	batch_file },
	{ NULL, NULL },
};

int batch_main(const struct dispatch *d, int argc, char **argv)
{
	cur_dispatch = d;
	return cmd_select(batch_cmds, argc, argv, "batch");
}
