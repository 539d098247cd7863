// SPDX-License-Identifier: GPL-2.0
/*
 * lines.c - command lines for batch and shell: splitting a line into words
 * the way a shell would (quotes, backslashes, # comments, backslash-newline
 * continuation), and running one line through a dispatch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"

/* Set while a batch or shell runs: neither may start inside the other. */
bool batch_nested;


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

