// SPDX-License-Identifier: GPL-2.0
/*
 * batch.c - "gpuctl batch file FILE": many commands in one process, each
 * line split by the shared layer's split_line() and run through the
 * dispatch main passes down.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"

#define TOO_LONG "the command is longer than " LINE_MAX_TEXT

/* What batch_main was given, for batch_file (a struct cmd has no context argument). */
static const struct dispatch *cur_dispatch;

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

/*
 * One command: a line and the lines its continuations join to it, split
 * into w.  SPLIT_DONE (w may be empty), SPLIT_ERROR with *err, or -1 at end
 * of input; *rerr: errno of a failed read (0: none), *lineno advanced.
 */
static int batch_read(FILE *f, struct words *w, const char **err, unsigned long *lineno,
		      int *rerr)
{
	struct linejoin j = { 0 };
	int r = SPLIT_MORE;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;

	*err = NULL;
	memset(w, 0, sizeof(*w));
	while (r == SPLIT_MORE) {
		got = read_cmdline(f, &line, &cap);
		if (got < 0) {
			int e = errno;

			if (e == E2BIG) {
				r = SPLIT_ERROR;
				*err = TOO_LONG;
			} else if (e || !j.pieces) {
				*rerr = e;	/* 0: end of input */
				r = -1;
			} else {
				/* A backslash ends the file: take the line as it is. */
				do
					j.buf[--j.len] = '\0';
				while ((r = split_line(j.buf, w, err)) == SPLIT_MORE);
			}
			break;
		}
		++*lineno;
		if (chomp(line, got)) {
			r = SPLIT_ERROR;
			*err = "the line holds a NUL byte";
			break;
		}
		int e = linejoin_add(&j, line);

		if (e) {
			r = SPLIT_ERROR;
			*err = e == -E2BIG ? TOO_LONG : "out of memory";
			break;
		}
		r = linejoin_split(&j, w, err);
	}
	free(line);
	linejoin_free(&j);
	return r;
}

static int batch_run(const struct dispatch *d, FILE *f)
{
	unsigned long lineno = 0, done = 0;
	int ret = EXIT_OK, rerr = 0;

	if (json_output)
		jsonw_start_array(json_wtr);

	for (;;) {
		unsigned long first = lineno + 1;
		char context[64];
		struct words w;
		const char *err;
		int r = batch_read(f, &w, &err, &lineno, &rerr);

		if (r < 0)
			break;
		snprintf(context, sizeof(context), "batch line %lu", first);
		err_context = context;
		if (r == SPLIT_ERROR) {
			ret = strcmp(err, "out of memory") ? usage_err("%s", err) : (p_err("%s", err), EXIT_FAIL);
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
	if (ret == EXIT_OK && rerr) {
		p_err("reading the batch file failed after line %lu: %s", lineno,
		      rerr == ENOMEM ? "out of memory" : strerror(rerr));
		ret = EXIT_FAIL;
	}

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
