/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat.h - gpuctl stat's output: one block of counters (a run, or an
 * interval of it) and, for -r N, the runs' means and spread, laid out like
 * perf stat, as SEP-separated values (-x) or one JSON document (-j).
 */
#ifndef GPUCTL_STAT_H
#define GPUCTL_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json_writer.h"
#include "trace/backend.h"	/* struct tb_counters, TC_NR */

/* The counters' names (JSON keys, -x), units ("", "us", "B") and meanings. */
struct stat_row {
	const char *name;
	const char *unit;
	const char *what;
};
extern const struct stat_row stat_rows[TC_NR];
/* 1234567 as "1,234,567". */
void stat_commas(char *buf, size_t len, uint64_t v);
/* ": 1.0 MiB" for a row counted in bytes or microseconds, else "". */
const char *stat_human(const char *unit, uint64_t v);

/* -r N's bound. */
#define STAT_MAX_RUNS 1000

/* Where and how a block is written. */
struct stat_out {
	FILE *f;		/* text and -x */
	json_writer_t *w;	/* -j: json_wtr, or -o FILE's own */
	const char *sep;	/* -x SEP, or NULL */
	const char *target;	/* "'CMD ARGS'", "process id N", "system wide" */
	const char *backend;
};

/*
 * One block: the counts since prev (NULL: the totals); t is the interval's
 * time (interval) or the run's elapsed time; cmd_status is -- CMD's exit
 * status (shell convention), -1 when none ran.
 */
void stat_print_block(const struct stat_out *so, const struct tb_counters *c,
		      const uint64_t *prev, double t, bool interval, int cmd_status);

/* The runs of -r N: each run's totals, kept for the means and the spread. */
struct stat_run {
	bool have[TC_NR];
	uint64_t total[TC_NR];
	double elapsed;
	int cmd_status;
};

struct stat_runs {
	unsigned int asked, n;
	struct stat_run *run;	/* asked entries */
};

/* 0, or -1 (out of memory, said). */
int stat_runs_init(struct stat_runs *r, unsigned int asked);
void stat_runs_add(struct stat_runs *r, const struct tb_counters *c, double elapsed,
		   int cmd_status);
/* The means, each with its spread (perf stat -r's "( +- x% )"). */
void stat_runs_print(const struct stat_out *so, const struct stat_runs *r);
void stat_runs_free(struct stat_runs *r);

#endif
