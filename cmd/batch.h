/* SPDX-License-Identifier: GPL-2.0 */
/* batch.h - what batch.c lends shell.c: line splitting and running one line. */
#ifndef GPUCTL_BATCH_H
#define GPUCTL_BATCH_H

#include "gpuctl.h"

/* Set while a batch or shell runs: neither may start inside the other. */
extern bool batch_nested;

struct words {
	int argc;
	int cap;
	char **argv;
};

void words_free(struct words *w);

enum split_result {
	SPLIT_DONE,	/* out holds the words */
	SPLIT_MORE,	/* the line ends in a backslash: append the next one */
	SPLIT_ERROR,	/* *err says why */
};

enum split_result split_line(const char *line, struct words *out, const char **err);
/* Strips the line end; 0, or -1 when the line held a NUL byte (len: what getline read). */
int chomp(char *s, size_t len);
/* Appends more to *acc (dropping the backslash that ends *acc). */
int join_continuation(char **acc, const char *more);

/*
 * Runs one line's words through d; -j turned on by the line itself (after
 * an object: 'trace -j ...') ends with the line.
 */
int run_line(const struct dispatch *d, int argc, char **argv);

#endif
