/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opts.h - a command's options as rows, one parser for all of them (opts.c)
 * with getopt_long's rules:
 *   -p 1, -p1, --pid 1, --pid=1; flags cluster (-jd); -x, is -x ","
 *   a long option may be shortened to any unique prefix (--inter);
 *   words that are not options are kept in order (the command's own
 *   words, as bpftool has them), options may come before or after them;
 *   "--" ends the options: the rest is CMD when the set takes one, else
 *   plain words.
 * Every set also takes the global options after the object: -j/--json,
 * --pretty, -d/--debug, and -h/--help (prints the help made from the rows).
 * After an object -p is always a PID (before it, gpuctl's -p is --pretty).
 *
 * The rows are data: help text, `gpuctl __complete` and the man-page test
 * read the same rows the parser does.  A value lands at base + off (base:
 * the struct the caller passes), typed by kind as the enum says.
 */
#ifndef GPUCTL_LIB_OPTS_H
#define GPUCTL_LIB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "units.h"

enum opt_kind {
	OPT_FLAG,	/* bool, set to true */
	OPT_COUNT,	/* unsigned int, one more each time */
	OPT_UINT,	/* unsigned long long within min..max (decimal or 0x) */
	OPT_SIZE,	/* uint64_t bytes within min..max (units.h) */
	OPT_DURATION,	/* uint64_t ns within min..max; a bare number is in `unit` ns */
	OPT_PERCENT,	/* double within min..max */
	OPT_ENUM,	/* int: the index of the value in words (a unique prefix will do) */
	OPT_STRING,	/* const char *, not empty */
	OPT_PATH,	/* const char *, a file (completion offers files) */
	OPT_PID,	/* pid_t, 1..TARGET_PID_MAX (target.h) */
	OPT_GPU,	/* const char *: an index, a UUID or a PCI bus id (gpus.h resolves it) */
	OPT_PATHS,	/* struct opt_paths: files, one per use (at most max, OPT_PATHS_MAX) */
	OPT_TSG,	/* as OPT_UINT: a TSG id (completion offers the watcher's) */
};

#define OPT_PATHS_MAX 8
struct opt_paths {
	const char *v[OPT_PATHS_MAX];
	int n;
};

enum opt_flags {
	OPT_HIDDEN = 1,	/* an old spelling: parsed, not listed in help or completion */
	OPT_ONCE = 2,	/* giving it twice is an error (else the last one wins) */
};

struct opt {
	const char *name;	/* long name without "--"; NULL ends the rows */
	char key;		/* short letter, 0: none */
	enum opt_kind kind;
	size_t off;		/* offsetof() the value in the caller's struct */
	const char *arg;	/* the value's name in help: "MS", "SEP", "PID" */
	const char *help;	/* one line */
	uint64_t min, max;	/* UINT, SIZE, DURATION (ns); PERCENT: whole percents */
	uint64_t unit;		/* DURATION: what a bare number counts, in ns */
	const char *const *words;	/* ENUM: NULL-terminated */
	unsigned int flags;
};

enum opts_set_flags {
	OPTS_WORDS = 1,		/* takes words that are not options */
	OPTS_CMD = 2,		/* "--" CMD ARGS...: into cmd_off (char **) */
};

struct optset {
	const char *object;	/* "stat" */
	const char *command;	/* "list" for gpuctl sched list; NULL: the object's own options */
	const char *const *usage;	/* lines after "Usage: gpuctl ", NULL-terminated */
	const char *about;	/* a paragraph for help, or NULL */
	const struct opt *rows;
	unsigned int flags;
	size_t cmd_off;		/* OPTS_CMD: where char ** CMD goes */
};

/* What a parse leaves beside the values. */
struct opts_result {
	int argc;		/* the plain words, in order (in the caller's argv) */
	char **argv;
	uint64_t seen;		/* bit i: rows[i] was given */
	bool help;		/* -h/--help: the help was printed, nothing else to do */
};

/*
 * Parses argv[0..argc) into base by s's rows.  0 (res filled; when
 * res->help the caller returns EXIT_OK), or EXIT_USAGE after one error
 * line that names the accepted form.  argv is reordered in place (the
 * plain words first), as getopt does.
 */
int opts_parse(const struct optset *s, int argc, char **argv, void *base,
	       struct opts_result *res);

/* Whether the row named name was given. */
bool opts_seen(const struct optset *s, const struct opts_result *res, const char *name);

/* The help made from the rows: Usage lines, about, the options.  Under -j: null. */
int opts_help(const struct optset *s);

/* The option list alone ("Options of CMD:"), for an object's own help text. */
void opts_help_rows(const struct optset *s);

/* "-I, --interval MS" of a row into buf. */
const char *opt_spelling(const struct opt *o, char *buf, size_t len);

/* The global options every set takes after its object (a NULL name ends them). */
extern const struct opt opts_global[];

/* -j after an object: JSON on from here (the writer made now). */
void json_turn_on(bool pretty);

#endif
