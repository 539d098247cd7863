// SPDX-License-Identifier: GPL-2.0
/*
 * stat.c - gpuctl stat: UVM counters for the system, a process, or a
 * command, laid out like perf stat.  Counters only: no per-fault events,
 * so it costs next to nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "optsets.h"
#include "safefile.h"
#include "stat/stat.h"
#include "target.h"
#include "trace/backend.h"
#include "units.h"

struct sopts {
	struct tb_opts tb;
	uint64_t interval_ns, duration_ns;
	unsigned long long icount;
	unsigned long long repeat;	/* -r N: runs of -- CMD (0, 1: once) */
	int backend;		/* index in stat_backends */
	const char *sep;	/* -x */
	const char *out;	/* -o FILE */
	char target[256];	/* "'CMD ARGS'", "process id N", "system wide" */
};

static const char *const stat_backends[] = { "auto", "bpf", "uvm-tools", NULL };

static const struct opt stat_opt_rows[] = {
	{ .name = "pid", .key = 'p', .kind = OPT_PID, .off = offsetof(struct sopts, tb.target.pid),
	  .arg = "PID", .help = "count one process (default: system wide)", .flags = OPT_ONCE },
	{ .name = "interval", .key = 'I', .kind = OPT_DURATION, .off = offsetof(struct sopts, interval_ns),
	  .arg = "MS", .help = "print the counts of every interval (100, 500ms, 2s)",
	  .unit = NSEC_PER_MSEC, .min = NSEC_PER_MSEC, .max = 3600 * NSEC_PER_SEC },
	{ .name = "interval-count", .kind = OPT_UINT, .off = offsetof(struct sopts, icount),
	  .arg = "N", .help = "stop after N intervals (with -I)", .min = 1, .max = ~0ull >> 1 },
	{ .name = "duration", .kind = OPT_DURATION, .off = offsetof(struct sopts, duration_ns),
	  .arg = "S", .help = "stop after S (5, 500ms, 2m)",
	  .unit = NSEC_PER_SEC, .min = NSEC_PER_MSEC, .max = 86400 * 365 * NSEC_PER_SEC },
	{ .name = "field-separator", .key = 'x', .kind = OPT_STRING, .off = offsetof(struct sopts, sep),
	  .arg = "SEP", .help = "write SEP-separated values (-x, for CSV)" },
	{ .name = "backend", .kind = OPT_ENUM, .off = offsetof(struct sopts, backend),
	  .arg = "BACKEND", .help = "auto, bpf or uvm-tools (default: auto)", .words = stat_backends },
	{ .name = "repeat", .key = 'r', .kind = OPT_UINT, .off = offsetof(struct sopts, repeat),
	  .arg = "N", .help = "run CMD N times: the means and their spread", .min = 1,
	  .max = STAT_MAX_RUNS },
	{ .name = "output", .key = 'o', .kind = OPT_PATH, .off = offsetof(struct sopts, out),
	  .arg = "FILE", .help = "write the counts to FILE (whole, at the end), not stdout" },
	{ .name = NULL },
};

static const char *const stat_usage[] = {
	"stat [-p PID] [-I MS] [--interval-count N] [-x SEP] [--duration S] [-o FILE] [-- CMD ARGS...]",
	"stat -r N [-x SEP] [-o FILE] -- CMD ARGS...",
	"stat [--backend auto|bpf|uvm-tools] ...",
	"stat help",
	NULL,
};

const struct optset stat_opts = {
	.object = "stat",
	.usage = stat_usage,
	.about = "UVM counters (GPU faults, duplicates, batches, replays, CPU faults, bytes\n"
		 "host->device and device->host, prefetch and eviction bytes, thrashing),\n"
		 "system-wide, for one process, or for CMD, which it runs.  -I prints the\n"
		 "counts of every interval; -x SEP writes SEP-separated values; -r N runs\n"
		 "CMD N times and prints each counter's mean and spread; -o FILE writes\n"
		 "the counts to FILE.",
	.rows = stat_opt_rows,
	.flags = OPTS_CMD,
	.cmd_off = offsetof(struct sopts, tb.target.cmd),
};

static int stat_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return opts_help(&stat_opts);
}

/* 0, EXIT_USAGE after p_err, or -1: the help was asked for and printed. */
static int parse_opts(int argc, char **argv, struct sopts *o)
{
	struct opts_result r;
	int rc = opts_parse(&stat_opts, argc, argv, o, &r);

	if (rc)
		return rc;
	if (r.help)
		return -1;
	if (target_check(&o->tb.target, 0))
		return EXIT_USAGE;
	if (o->icount && !o->interval_ns)
		return usage_err("--interval-count needs -I MS");
	if (o->repeat > 1 && !o->tb.target.cmd)
		return usage_err("-r N repeats a command: give it after -- (stat -r 5 -- CMD)");
	if (o->repeat > 1 && o->interval_ns)
		return usage_err("-r N and -I MS do not go together: each run's counts are whole");
	if (tb_parse_kind(stat_backends[o->backend], &o->tb.kind))
		return usage_err("backend '%s' is not built in", stat_backends[o->backend]);
	return 0;
}

static void target_name(struct sopts *o)
{
	size_t used = 0, len = sizeof(o->target);

	if (o->tb.target.cmd) {
		used += snprintf(o->target, len, "'");
		for (int i = 0; o->tb.target.cmd[i] && used < len - 2; i++)
			used += snprintf(o->target + used, len - used, "%s%s", i ? " " : "",
					 o->tb.target.cmd[i]);
		if (used < len - 1)
			snprintf(o->target + used, len - used, "'");
	} else if (o->tb.target.pid) {
		snprintf(o->target, len, "process id %d", o->tb.target.pid);
	} else {
		snprintf(o->target, len, "system wide");
	}
}

/*
 * Counts until Ctrl-C, the duration, the interval count or the target's end:
 * true at the target's end (-- CMD ended by itself), false when stat stopped.
 */
static bool count_loop(struct sopts *o, const struct stat_out *so, struct tb *t,
		       struct tb_counters *c, double start)
{
	uint64_t prev[TC_NR] = { 0 };
	unsigned long long intervals = 0;
	double step = o->interval_ns / 1e9, next = start + step;

	while (!stop_requested()) {
		int wait = 100;

		if (o->interval_ns) {
			double left = next - mono_s();

			wait = left > 0 ? (int)(left * 1000) + 1 : 0;
			if (wait > 100)
				wait = 100;
		}
		if (!tb_poll(t, wait))
			return true;
		if (o->duration_ns && mono_s() - start >= o->duration_ns / 1e9)
			break;
		if (o->interval_ns && mono_s() >= next) {
			tb_read_counters(t, c);
			stat_print_block(so, c, prev, mono_s() - start, true, -1);
			fflush(so->f);
			memcpy(prev, c->total, sizeof(prev));
			next += step;
			if (o->icount && ++intervals >= o->icount)
				break;
		}
	}
	return false;
}

/*
 * One run of the target, to its end: printed (once), or kept in runs (-r).
 * EXIT_OK with *status (-- CMD's, -1: none) and *ended (the target ended by
 * itself), or an exit code after p_err.
 */
static int run_once(struct sopts *o, struct stat_out *so, struct stat_runs *runs, int *status,
		    bool *ended)
{
	struct tb_counters c = { 0 };
	double start, elapsed;
	struct tb *t;
	int rc;

	t = tb_start(&o->tb, &rc);
	if (!t)
		return rc;
	so->backend = tb_name(t);
	start = mono_s();
	*ended = count_loop(o, so, t, &c, start);
	tb_stop(t, !*ended || tb_failed(t));
	if (tb_failed(t)) {
		tb_free(t);
		free(c.rows);
		return EXIT_FAIL;
	}
	elapsed = mono_s() - start;
	*status = tb_cmd_status(t);
	tb_read_counters(t, &c);
	if (runs->asked)
		stat_runs_add(runs, &c, elapsed, *status);
	else if (!o->interval_ns)
		stat_print_block(so, &c, NULL, elapsed, false, o->tb.target.cmd ? *status : -1);
	else if (!json_output && !o->sep)
		fprintf(so->f, " %14.6f seconds time elapsed\n", elapsed);
	free(c.rows);
	tb_free(t);
	return EXIT_OK;
}

/*
 * -o FILE: written through safefile (whole, at the end, never through a
 * link); under -j a writer of its own, stamped as standard output's is.
 */
static int out_open(const char *path, struct safefile *sf, struct stat_out *so)
{
	if (safefile_open(sf, path, 0644))
		return -1;
	so->f = sf->f;
	if (json_output) {
		so->w = json_file_writer(sf->f);
		if (!so->w) {
			safefile_abort(sf);
			p_err("out of memory");
			return -1;
		}
	}
	return 0;
}

static int out_close(struct safefile *sf, struct stat_out *so, bool keep)
{
	if (so->w && so->w != json_wtr)
		jsonw_destroy(&so->w);
	if (!keep) {
		safefile_abort(sf);
		return 0;
	}
	return safefile_commit(sf) ? -1 : 0;
}

static int do_stat(int argc, char **argv)
{
	struct sopts o = { .tb = { .what = "stat" } };
	struct stat_out so = { .f = stdout };
	struct stat_runs runs = { 0 };
	struct safefile sf = { .f = NULL };
	int rc, status = -1;
	bool ended = true;

	if (argc > 0 && (is_prefix(argv[0], "help") && strcmp(argv[0], "h")))
		return stat_help(argc - 1, argv + 1);
	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	target_name(&o);
	so.sep = o.sep;
	so.target = o.target;
	so.w = json_wtr;
	o.tb.types = 0;	/* counters; uvm-tools adds its rare events itself */
	if (o.repeat > 1 && stat_runs_init(&runs, (unsigned int)o.repeat))
		return EXIT_FAIL;
	if (o.out && out_open(o.out, &sf, &so)) {
		stat_runs_free(&runs);
		return EXIT_FAIL;
	}
	stop_signals_install();
	/* -r: a run whose command fails ends the repetition (its status is stat's) */
	do {
		rc = run_once(&o, &so, &runs, &status, &ended);
	} while (!rc && runs.n < runs.asked && !stop_requested() && status <= 0);
	if (!rc && runs.n)
		stat_runs_print(&so, &runs);
	stat_runs_free(&runs);
	if (o.out && out_close(&sf, &so, !rc) && !rc)
		rc = EXIT_FAIL;
	if (rc)
		return rc;
	/* -- CMD: its failure is the caller's, as with perf stat (unless stat stopped it) */
	if (status > 0 && ended && !stop_requested()) {
		p_info("the command exited with status %d", status);
		return status;
	}
	return EXIT_OK;
}

/* stat takes options, not commands: its table is help alone. */
static const struct cmd stat_cmds[] = {
	{ "help", stat_help },
	{ NULL, NULL },
};

const struct object stat_object = { "stat", do_stat, stat_cmds, NULL };
