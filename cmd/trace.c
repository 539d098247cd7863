// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - gpuctl trace: UVM driver events on the stock driver, live
 * (faults, migrations, evictions, replays, prefetch) and TSG events (the rm
 * backend), recorded to a file, and reported back (summary, event list, SVG
 * heatmap, model trace).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "optsets.h"
#include "safefile.h"
#include "target.h"
#include "rm.h"		/* RM_DEFAULT_DEVICE */
#include "trace/backend.h"
#include "trace/record.h"
#include "trace/recmeta.h"
#include "trace/recload.h"	/* RL_MAX_INPUTS */
#include "trace/report.h"
#include "trace/summary.h"

#define DEFAULT_FILE "gpuctl.trace"

/* ------------------------------------------------------------ options */

struct topts {
	struct tb_opts tb;
	uint64_t duration_ns;
	unsigned long long max_events, top;
	const char *events;	/* record: "all" or "tsg" */
	const char *file;	/* record -o */
	struct opt_paths inputs;	/* report -i, up to RL_MAX_INPUTS */
	const char *svg;
	const char *format;	/* report: summary | events | model | chrome | csv */
	const char *sort;
	int backend, format_i, sort_i;	/* the rows' indexes */
};

static const char *const backends[] = { "auto", "bpf", "uvm-tools", "rm", NULL };
static const char *const formats[] = { "summary", "events", "model", "chrome", "csv", NULL };
static const char *const sorts[] = { "faults", "bytes", "address", NULL };

#define TO(f) offsetof(struct topts, f)
#define ROW_PID { .name = "pid", .key = 'p', .kind = OPT_PID, .off = TO(tb.target.pid), \
		  .arg = "PID", .help = "one process (default: system-wide where the backend can)", \
		  .flags = OPT_ONCE }
#define ROW_DURATION { .name = "duration", .kind = OPT_DURATION, .off = TO(duration_ns), \
		       .arg = "S", .help = "stop after S (10, 500ms, 2m)", .unit = NSEC_PER_SEC, \
		       .min = NSEC_PER_MSEC, .max = 86400 * 365 * NSEC_PER_SEC }
#define ROW_MAX_EVENTS { .name = "max-events", .kind = OPT_UINT, .off = TO(max_events), \
			 .arg = "N", .help = "stop after N events", .min = 1, .max = ~0ull >> 1 }
#define ROW_BACKEND { .name = "backend", .kind = OPT_ENUM, .off = TO(backend), .arg = "B", \
		      .help = "auto, bpf, uvm-tools or rm", .words = backends }
#define ROW_DEVICE { .name = "device", .kind = OPT_PATH, .off = TO(tb.device), .arg = "PATH", \
		     .help = "the RM device of TSG events (default " RM_DEFAULT_DEVICE ")" }
#define ROW_END { .name = NULL }

static const struct opt live_rows[] = { ROW_PID, ROW_DURATION, ROW_MAX_EVENTS, ROW_BACKEND, ROW_END };
static const struct opt tsg_rows[] = { ROW_PID, ROW_DURATION, ROW_MAX_EVENTS, ROW_BACKEND, ROW_DEVICE,
				       ROW_END };
static const struct opt record_rows[] = {
	ROW_PID, ROW_DURATION, ROW_MAX_EVENTS, ROW_BACKEND, ROW_DEVICE,
	{ .name = "output", .key = 'o', .kind = OPT_PATH, .off = TO(file), .arg = "FILE",
	  .help = "the record (- : standard output; default " DEFAULT_FILE ")" },
	ROW_END,
};
static const struct opt report_rows[] = {
	{ .name = "input", .key = 'i', .kind = OPT_PATHS, .off = TO(inputs), .arg = "FILE",
	  .help = "a record (- : standard input; default " DEFAULT_FILE "); several merge",
	  .max = RL_MAX_INPUTS },
	{ .name = "sort", .kind = OPT_ENUM, .off = TO(sort_i), .arg = "KEY",
	  .help = "the hottest ranges by faults, bytes or address", .words = sorts },
	{ .name = "top", .kind = OPT_UINT, .off = TO(top), .arg = "N",
	  .help = "how many ranges (10)", .min = 1, .max = 100000 },
	{ .name = "format", .kind = OPT_ENUM, .off = TO(format_i), .arg = "FORMAT",
	  .help = "summary, events, model, chrome or csv", .words = formats },
	{ .name = "svg", .kind = OPT_PATH, .off = TO(svg), .arg = "FILE",
	  .help = "a heat map of the faults into FILE (- : standard output)" },
	ROW_END,
};

#define TRACE_SET(var, name, r, f) \
	const struct optset var = { .object = "trace", .command = name, .rows = r, .flags = f, \
				    .cmd_off = TO(tb.target.cmd) }
TRACE_SET(trace_faults_opts, "faults", live_rows, OPTS_CMD);
TRACE_SET(trace_migrations_opts, "migrations", live_rows, OPTS_CMD);
TRACE_SET(trace_evictions_opts, "evictions", live_rows, OPTS_CMD);
TRACE_SET(trace_replays_opts, "replays", live_rows, OPTS_CMD);
TRACE_SET(trace_prefetch_opts, "prefetch", live_rows, OPTS_CMD);
TRACE_SET(trace_tsg_opts, "tsg", tsg_rows, OPTS_CMD);
TRACE_SET(trace_record_opts, "record", record_rows, OPTS_CMD | OPTS_WORDS);
TRACE_SET(trace_report_opts, "report", report_rows, 0);

/*
 * record's EVENTS words: all (UVM events), tsg (TSG events), or both words
 * (one record of both, two back-ends: "all+tsg").  0, or EXIT_USAGE after p_err.
 */
static int parse_events(int argc, char **argv, struct topts *o)
{
	bool all = false, tsg = false;

	for (int i = 0; i < argc; i++) {
		bool *w = !strcmp(argv[i], "all") ? &all : !strcmp(argv[i], "tsg") ? &tsg : NULL;

		if (!w || *w || i > 1)
			return usage_err(!w ? "unknown event kind '%s' (all, tsg, or both: all tsg)" :
					 "unexpected argument '%s'", argv[i]);
		*w = true;
	}
	o->events = all && tsg ? "all+tsg" : tsg ? "tsg" : all ? "all" : NULL;
	return 0;
}

/* The rows of set into o: 0, -1 (the help was printed), or EXIT_USAGE after p_err. */
static int parse_opts(int argc, char **argv, struct topts *o, const struct optset *set)
{
	struct opts_result r;
	int rc;

	o->top = 10;
	if (opts_parse(set, argc, argv, o, &r))
		return EXIT_USAGE;
	if (r.help)
		return -1;
	o->format = formats[o->format_i];
	o->sort = sorts[o->sort_i];
	if (tb_parse_kind(backends[o->backend], &o->tb.kind))
		return usage_err("unknown backend '%s'", backends[o->backend]);
	rc = parse_events(r.argc, r.argv, o);
	return rc ? rc : target_check(&o->tb.target, 0);
}

/* ------------------------------------------------------------ live */

enum live_mode { LIVE_PRINT, LIVE_RECORD };

struct live {
	enum live_mode mode;
	uint32_t show;		/* types printed */
	int cause;		/* only this migration cause, or -1 */
	struct trace_summary sum;
	unsigned long long shown, max;
	uint64_t t0;		/* event times are printed relative to it */
	FILE *out;
	const char *path;	/* of out, when a file */
	struct safefile sf;	/* out's file, renamed into place at the end */
	int write_err;
	struct tb *t;		/* for the process names the backend knows */
	struct recmeta *meta;	/* record: names, GPUs, allocations (version 2) */
};

static void live_event(const struct gt_event *e, void *arg)
{
	struct live *l = arg;

	if (!l->t0 && e->ts_ns)
		l->t0 = e->ts_ns;
	if (l->cause >= 0 && e->type == GT_EV_MIGRATION && e->cause != l->cause)
		return;
	if (l->max && l->shown >= l->max && e->type != GT_EV_LOST)
		return;
	ts_add(&l->sum, e);
	if (gt_is_tsg(e->type) && l->t)
		ts_comm(&l->sum, e->pid, tb_event_comm(l->t));
	if (l->mode == LIVE_RECORD) {
		int mrc = l->write_err ? 0 : recmeta_before(l->meta, l->out, e,
							    l->t ? tb_event_comm(l->t) : NULL);

		if (mrc)
			l->write_err = -mrc;
		if (!l->write_err && gt_write_event(l->out, e))
			l->write_err = errno ? errno : EIO;
		if (e->type != GT_EV_LOST)
			l->shown++;
		return;
	}
	if (l->show & (1u << e->type)) {
		tr_print_event(stdout, e, l->t0, l->t ? tb_event_comm(l->t) : NULL);
		l->shown++;
	}
}

/* record: the output, created once the command line and capabilities are known good. */
static int open_record(struct topts *o, struct live *l)
{
	l->path = o->file ? o->file : DEFAULT_FILE;
	if (!strcmp(l->path, "-")) {
		l->path = NULL;
		if (isatty(STDOUT_FILENO)) {
			p_err("refusing to write a binary record to a terminal; "
			      "redirect stdout or give -o FILE");
			return EXIT_USAGE;
		}
		l->out = stdout;
		return 0;
	}
	if (safefile_open(&l->sf, l->path, 0644))
		return EXIT_FAIL;
	l->out = l->sf.f;
	return 0;
}

/* Polls until Ctrl-C, the duration, the event limit, a write error or the target's end. */
static void live_loop(struct topts *o, struct live *l, struct tb *t)
{
	double start = mono_s();

	while (!stop_requested()) {
		if (!tb_poll(t, 100))
			break;
		if (l->max && l->shown >= l->max)
			break;
		if (l->write_err)
			break;
		if (o->duration_ns && mono_s() - start >= o->duration_ns / 1e9)
			break;
		if (l->mode == LIVE_PRINT)
			fflush(stdout);
	}
}

/* The end of a record: its file closed, one line saying where it went, the summary. */
static int finish_record(struct topts *o, struct live *l)
{
	int rc = EXIT_OK;

	if (l->out == stdout && fflush(stdout) && !l->write_err)
		l->write_err = errno ? errno : EIO;
	if (l->write_err) {
		p_err("writing the record failed: %s", strerror(l->write_err));
		if (l->out != stdout)
			safefile_abort(&l->sf);
		rc = EXIT_FAIL;
	} else if (l->out != stdout && safefile_commit(&l->sf)) {
		rc = EXIT_FAIL;
	} else if (!json_output) {
		fprintf(stderr, "recorded %llu events to %s\n", l->shown,
			l->path ? l->path : "stdout");
	}
	/* The summary goes where the record does not: stderr, or stdout under -j. */
	if (l->out != stdout && !json_output)
		ts_print(&l->sum, o->sort, (unsigned int)o->top, stderr);
	else if (l->out != stdout && !rc)
		ts_print(&l->sum, o->sort, (unsigned int)o->top, stdout);
	return rc;
}

static int run_live(struct topts *o, struct live *l, const char *what)
{
	struct gt_file_header h;
	bool failed;
	struct tb *t;
	int rc, status;

	ts_init(&l->sum);
	l->sum.tsg_only = !(o->tb.types & ~GT_TSG_TYPES);
	l->max = o->max_events;
	o->tb.fn = live_event;
	o->tb.arg = l;
	if (l->mode == LIVE_RECORD) {
		rc = tb_check(&o->tb);
		if (!rc)
			rc = open_record(o, l);
		if (rc)
			return rc;
	}
	stop_signals_install();
	t = tb_start(&o->tb, &rc);
	if (!t) {
		if (l->out && l->out != stdout)
			safefile_abort(&l->sf);
		return rc;
	}
	l->t = t;
	l->t0 = tb_now_ns(t);
	if (l->mode == LIVE_RECORD) {
		/* NULL (no memory): a record of events only */
		l->meta = recmeta_new(!strncmp(tb_name(t), "uvm-tools", 9));
		gt_header_init(&h, tb_name(t), what, (uint32_t)tb_target(t), l->t0);
		if (gt_write_header(l->out, &h))
			l->write_err = errno ? errno : EIO;
	} else {
		tr_print_header(stdout, l->sum.tsg_only);
	}
	p_info("Tracing %s with the %s backend%s... Ctrl-C to end.", what, tb_name(t),
	       o->tb.target.pid ? " on one process" : o->tb.target.cmd ? " for the command" : " system-wide");
	/* Event lines are many small documents: flushed once a poll, not one by one. */
	if (json_wtr)
		jsonw_autoflush(json_wtr, false);
	live_loop(o, l, t);
	tb_stop(t, stop_requested() || (l->max && l->shown >= l->max) || o->duration_ns ||
		tb_failed(t));
	if (json_wtr)
		jsonw_autoflush(json_wtr, true);
	status = tb_cmd_status(t);
	l->t = NULL;
	failed = tb_failed(t);
	tb_free(t);
	if (failed) {
		rc = EXIT_FAIL;
		if (l->out && l->out != stdout)
			safefile_abort(&l->sf);
	} else if (l->mode == LIVE_RECORD) {
		rc = finish_record(o, l);
	} else {
		ts_print(&l->sum, o->sort, (unsigned int)o->top, stdout);
	}
	ts_free(&l->sum);
	recmeta_free(l->meta);
	if (!failed && status > 0)
		p_info("the command exited with status %d", status);
	return rc;
}

static int do_events(int argc, char **argv, const char *what, uint32_t types, uint32_t show,
		     int cause, const struct optset *set)
{
	struct topts o = { 0 };
	struct live l = { .mode = LIVE_PRINT, .show = show, .cause = cause };
	int rc = parse_opts(argc, argv, &o, set);
	char name[32];

	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	snprintf(name, sizeof(name), "trace %s", what);
	o.tb.what = name;
	o.tb.types = types;
	return run_live(&o, &l, what);
}

#define B(x) (1u << (x))

static int do_faults(int argc, char **argv)
{
	return do_events(argc, argv, "faults",
			 B(GT_EV_GPU_FAULT) | B(GT_EV_BATCH) | B(GT_EV_REPLAY),
			 B(GT_EV_GPU_FAULT), -1, &trace_faults_opts);
}

static int do_migrations(int argc, char **argv)
{
	return do_events(argc, argv, "migrations", B(GT_EV_MIGRATION), B(GT_EV_MIGRATION), -1,
			 &trace_migrations_opts);
}

static int do_evictions(int argc, char **argv)
{
	return do_events(argc, argv, "evictions", B(GT_EV_EVICTION), B(GT_EV_EVICTION), -1,
			 &trace_evictions_opts);
}

static int do_replays(int argc, char **argv)
{
	return do_events(argc, argv, "replays", B(GT_EV_REPLAY), B(GT_EV_REPLAY), -1,
			 &trace_replays_opts);
}

static int do_prefetch_ev(int argc, char **argv)
{
	return do_events(argc, argv, "prefetch", B(GT_EV_MIGRATION), B(GT_EV_MIGRATION),
			 GT_CAUSE_PREFETCH, &trace_prefetch_opts);
}

/* TSGs created and freed, and the controls processes set on them: the rm backend. */
static int do_tsg(int argc, char **argv)
{
	return do_events(argc, argv, "tsg", GT_TSG_TYPES, GT_TSG_TYPES, -1, &trace_tsg_opts);
}

static int do_record(int argc, char **argv)
{
	struct topts o = { 0 };
	struct live l = { .mode = LIVE_RECORD, .cause = -1 };
	int rc = parse_opts(argc, argv, &o, &trace_record_opts);

	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	o.tb.what = "trace record";
	o.tb.stdout_is_data = o.file && !strcmp(o.file, "-");
	if (o.tb.stdout_is_data && json_output)
		return usage_err("'-o -' puts the record on standard output, where -j puts JSON; "
				 "give -o FILE, or leave -j out");
	if (o.events && !strcmp(o.events, "tsg")) {
		o.tb.types = GT_TSG_TYPES;
		return run_live(&o, &l, "tsg");
	}
	if (o.tb.device && (!o.events || !strcmp(o.events, "all")))
		return usage_err("--device applies to TSG events only ('record tsg', 'record all tsg')");
	o.tb.types = B(GT_EV_GPU_FAULT) | B(GT_EV_CPU_FAULT) | B(GT_EV_MIGRATION) |
		     B(GT_EV_EVICTION) | B(GT_EV_REPLAY) | B(GT_EV_BATCH) | B(GT_EV_THRASHING);
	/* all tsg: the UVM events' back-end and rm beside it, one record (backend/pair.c) */
	if (o.events && !strcmp(o.events, "all+tsg"))
		o.tb.types |= GT_TSG_TYPES;
	return run_live(&o, &l, o.events && !strcmp(o.events, "all+tsg") ? "all+tsg" : "all");
}

/* ------------------------------------------------------------ report */

static int do_report(int argc, char **argv)
{
	struct topts o = { 0 };
	struct report_opts ro;
	bool file_fmt;
	int rc = parse_opts(argc, argv, &o, &trace_report_opts);

	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	file_fmt = !strcmp(o.format, "chrome") || !strcmp(o.format, "csv");
	/* Under -j standard output is JSON and nothing else. */
	if (json_output && (!strcmp(o.format, "model") || file_fmt))
		return usage_err("--format %s writes %s, not gpuctl's JSON; leave -j out", o.format,
				 !strcmp(o.format, "model") ? "text lines for uvmsim" :
				 !strcmp(o.format, "csv") ? "CSV" : "the Chrome trace-event format");
	if (json_output && o.svg && !strcmp(o.svg, "-"))
		return usage_err("--svg - puts the SVG on standard output, where -j puts JSON; "
				 "give --svg FILE");
	if (file_fmt && o.svg && !strcmp(o.svg, "-"))
		return usage_err("--svg - and --format %s both want standard output; give --svg FILE",
				 o.format);
	ro = (struct report_opts){ .format = o.format, .sort = o.sort,
				   .top = (unsigned int)o.top, .svg = o.svg };
	if (!o.inputs.n)
		o.inputs.v[o.inputs.n++] = DEFAULT_FILE;
	return tr_report_files(o.inputs.v, o.inputs.n, &ro, stdout);
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	fprintf(stdout,
		"Usage: %1$s trace { faults | migrations | evictions | replays | prefetch } [TARGET] [LIMITS]\n"
		"       %1$s trace tsg [TARGET] [LIMITS] [--device PATH]\n"
		"       %1$s trace record [-o FILE|-] [EVENTS] [TARGET] [LIMITS] [--device PATH]\n"
		"       %1$s trace report [-i FILE|-]... [--sort KEY] [--top N] [--format FORMAT] [--svg FILE]\n"
		"       %1$s trace COMMAND [-p PID | -- CMD...] [--duration S] [--max-events N] [--backend B]\n"
		"       %1$s trace help\n"
		"\n"
		"       COMMAND := { faults | migrations | evictions | replays | prefetch | tsg |\n"
		"                    record | report | help }\n"
		"       EVENTS := { all | tsg | all tsg }\n"
		"       FORMAT := { summary | events | model | chrome | csv }\n"
		"       B := { auto | bpf | uvm-tools | rm }\n"
		"\n"
		"One line per event (-j: one JSON object per line); at the end (Ctrl-C, the\n"
		"duration, the event limit, or the end of CMD) a summary: counts, a log2\n"
		"histogram, the hottest 2 MiB ranges.  FILE defaults to " DEFAULT_FILE ".\n"
		"--format model writes 'ADDR r|w TENANT' lines for 'uvmsim run trace file F';\n"
		"chrome the trace-event JSON Perfetto opens; csv one row an event.  --svg\n"
		"draws the heat map.  Up to 4 -i records (say 'record all' and 'record tsg'\n"
		"of one run) are merged on their real-time starts.  Under -j standard output\n"
		"is JSON only: --format model|chrome|csv, --svg - and record -o - are refused.\n"
		"record all tsg: UVM and TSG events in one record (two backends, one clock).\n"
		"tsg: TSGs created and freed and the scheduling controls processes set on\n"
		"them themselves, counted per process at the end; only the rm backend has\n"
		"them.  The RM device is " RM_DEFAULT_DEVICE " unless --device or\n"
		"$GPUCTL_RM_DEVICE names another.\n",
		bin_name);
	opts_help_rows(&trace_record_opts);	/* the live commands take its rows but -o */
	opts_help_rows(&trace_report_opts);
	return EXIT_OK;
}

static const struct cmd trace_cmds[] = {
	{ "help", do_help },
	{ "faults", do_faults },
	{ "migrations", do_migrations },
	{ "evictions", do_evictions },
	{ "replays", do_replays },
	{ "prefetch", do_prefetch_ev },
	{ "tsg", do_tsg },
	{ "record", do_record },
	{ "report", do_report },
	{ NULL, NULL },
};

static int do_trace(int argc, char **argv)
{
	return cmd_select(trace_cmds, argc, argv, "trace");
}

const struct object trace_object = { "trace", do_trace, trace_cmds, NULL };
