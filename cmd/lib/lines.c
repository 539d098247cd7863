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
/*
 * cont: line goes on a word the text before it left open (a continuation's
 * next piece).  On SPLIT_MORE, *open tells whether the backslash ended a
 * word already begun (the next piece then continues that word).
 */
static enum split_result split_core(const char *line, bool cont, struct words *out,
				    const char **err, bool *open)
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
		const char *begin;

		if (!cont) {
			while (is_blank(*s))
				s++;
			if (!*s || *s == '#')
				break;
		}
		begin = cont ? NULL : s;	/* cont: the word began before line */
		cont = false;
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
					*open = s != begin;
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

enum split_result split_line(const char *line, struct words *out, const char **err)
{
	bool open;

	return split_core(line, false, out, err, &open);
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

ssize_t read_cmdline(FILE *f, char **line, size_t *cap)
{
	size_t n = 0;
	int c;

	errno = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (n + 2 > *cap) {
			size_t want = *cap ? *cap * 2 : 256;
			char *p;

			if (n >= LINE_MAX_BYTES) {
				errno = E2BIG;
				return -1;
			}
			if (want > LINE_MAX_BYTES + 2)
				want = LINE_MAX_BYTES + 2;
			p = realloc(*line, want);
			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			*line = p;
			*cap = want;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (c == EOF && (ferror(f) || !n)) {
		if (!ferror(f))
			errno = 0;
		else if (!errno)
			errno = EIO;
		return -1;
	}
	(*line)[n] = '\0';
	return (ssize_t)n;
}

int linejoin_add(struct linejoin *j, const char *piece)
{
	size_t n = strlen(piece);

	if (j->len && j->buf[j->len - 1] == '\\')
		j->buf[--j->len] = '\0';	/* the continuation's backslash */
	if (j->len + n > LINE_MAX_BYTES)
		return -E2BIG;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		char *p;

		while (cap < j->len + n + 1)
			cap *= 2;
		p = realloc(j->buf, cap);
		if (!p)
			return -ENOMEM;
		j->buf = p;
		j->cap = cap;
	}
	j->last = j->len;
	memcpy(j->buf + j->len, piece, n + 1);
	j->len += n;
	j->pieces++;
	return 0;
}

/*
 * Only the piece just added is scanned for "does it go on" (the text
 * before it ended outside quotes and comments, in a word or not: j->open),
 * so that a command continued over many lines costs time linear in its
 * length; the whole command is split once, when it is complete.
 */
enum split_result linejoin_split(struct linejoin *j, struct words *out, const char **err)
{
	enum split_result r;
	bool open = false;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	r = split_core(j->buf + j->last, j->pieces > 1 && j->open, out, err, &open);
	words_free(out);
	if (r == SPLIT_MORE) {
		j->open = open;
		return r;
	}
	return split_line(j->buf, out, err);
}

void linejoin_free(struct linejoin *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}

