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
	unsigned long long duration_s, max_events, top;
	const char *events;	/* record: "all" or "tsg" */
	const char *file;	/* record -o */
	const char *inputs[RL_MAX_INPUTS];	/* report -i, up to 4 */
	int ninputs;
	const char *svg;
	const char *format;	/* report: summary | events | model */
	const char *sort;
};

/* Parses the options of every trace command; which are allowed is a set of letters. */
static int parse_opts(int argc, char **argv, struct topts *o, const char *allowed)
{

	o->top = 10;
	o->sort = "faults";
	o->format = "summary";
	while (argc > 0) {
		const char *a = argv[0];

#define TAKES(flag) ({ if (!strchr(allowed, flag)) return usage_err("option '%s' does not apply here", a); \
		if (argc < 2) return usage_err("option '%s' needs a value", a); })
		if (!strcmp(a, "--") || !strcmp(a, "-p") || !strcmp(a, "--pid")) {
			int n;

			if (!strcmp(a, "--") && !strchr(allowed, 'c'))
				return usage_err("a command does not apply here");
			if (strcmp(a, "--") && !strchr(allowed, 'p'))
				return usage_err("option '%s' does not apply here", a);
			n = target_take(&o->tb.target, argc, argv);
			if (n < 0)
				return -n;
			argc -= n;
			argv += n;
			continue;
		} else if (!strcmp(a, "--duration")) {
			TAKES('d');
			if (parse_u64("duration", argv[1], 1, 86400 * 365, &o->duration_s))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--max-events")) {
			TAKES('m');
			if (parse_u64("max-events", argv[1], 1, ~0ull >> 1, &o->max_events))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--device")) {
			TAKES('D');
			o->tb.device = argv[1];
		} else if (!strcmp(a, "--backend")) {
			TAKES('b');
			if (tb_parse_kind(argv[1], &o->tb.kind))
				return usage_err("unknown backend '%s' (auto, bpf, uvm-tools, rm)", argv[1]);
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			TAKES('o');
			o->file = argv[1];
		} else if (!strcmp(a, "-i") || !strcmp(a, "--input")) {
			TAKES('i');
			if (o->ninputs == RL_MAX_INPUTS)
				return usage_err("at most %d records (-i) at once", RL_MAX_INPUTS);
			o->inputs[o->ninputs++] = argv[1];
		} else if (!strcmp(a, "--svg")) {
			TAKES('s');
			o->svg = argv[1];
		} else if (!strcmp(a, "--format")) {
			TAKES('f');
			if (strcmp(argv[1], "summary") && strcmp(argv[1], "events") &&
			    strcmp(argv[1], "model") && strcmp(argv[1], "chrome") &&
			    strcmp(argv[1], "csv"))
				return usage_err("unknown format '%s' (summary, events, model, chrome, csv)",
						 argv[1]);
			o->format = argv[1];
		} else if (!strcmp(a, "--sort")) {
			TAKES('s');
			if (strcmp(argv[1], "faults") && strcmp(argv[1], "bytes") &&
			    strcmp(argv[1], "address"))
				return usage_err("unknown sort key '%s' (faults, bytes, address)", argv[1]);
			o->sort = argv[1];
		} else if (!strcmp(a, "--top")) {
			TAKES('s');
			if (parse_u64("top", argv[1], 1, 100000, &o->top))
				return EXIT_USAGE;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			tb_json_on();
			argc--;
			argv++;
			continue;
		} else if (a[0] != '-' && strchr(allowed, 'e') && !o->events) {
			if (strcmp(a, "all") && strcmp(a, "tsg"))
				return usage_err("unknown event kind '%s' (all, tsg)", a);
			o->events = a;
			argc--;
			argv++;
			continue;
		} else {
			return usage_err("unknown option '%s'; try '%s trace help'", a, bin_name);
		}
#undef TAKES
		argc -= 2;
		argv += 2;
	}
	return target_check(&o->tb.target, 0);
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
		if (o->duration_s && mono_s() - start >= (double)o->duration_s)
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
	l->sum.tsg_only = (o->tb.types & GT_TSG_TYPES) != 0;
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
		l->meta = recmeta_new(!strcmp(tb_name(t), "uvm-tools"));
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
	tb_stop(t, stop_requested() || (l->max && l->shown >= l->max) || o->duration_s ||
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
		     int cause, const char *allowed)
{
	struct topts o = { 0 };
	struct live l = { .mode = LIVE_PRINT, .show = show, .cause = cause };
	int rc = parse_opts(argc, argv, &o, allowed);
	char name[32];

	if (rc)
		return rc;
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
			 B(GT_EV_GPU_FAULT), -1, "pdmbc");
}

static int do_migrations(int argc, char **argv)
{
	return do_events(argc, argv, "migrations", B(GT_EV_MIGRATION), B(GT_EV_MIGRATION), -1,
			 "pdmbc");
}

static int do_evictions(int argc, char **argv)
{
	return do_events(argc, argv, "evictions", B(GT_EV_EVICTION), B(GT_EV_EVICTION), -1,
			 "pdmbc");
}

static int do_replays(int argc, char **argv)
{
	return do_events(argc, argv, "replays", B(GT_EV_REPLAY), B(GT_EV_REPLAY), -1, "pdmbc");
}

static int do_prefetch_ev(int argc, char **argv)
{
	return do_events(argc, argv, "prefetch", B(GT_EV_MIGRATION), B(GT_EV_MIGRATION),
			 GT_CAUSE_PREFETCH, "pdmbc");
}

/* TSGs created and freed, and the controls processes set on them: the rm backend. */
static int do_tsg(int argc, char **argv)
{
	return do_events(argc, argv, "tsg", GT_TSG_TYPES, GT_TSG_TYPES, -1, "pdmbcD");
}

static int do_record(int argc, char **argv)
{
	struct topts o = { 0 };
	struct live l = { .mode = LIVE_RECORD, .cause = -1 };
	int rc = parse_opts(argc, argv, &o, "pdmbcoeD");

	if (rc)
		return rc;
	o.tb.what = "trace record";
	o.tb.stdout_is_data = o.file && !strcmp(o.file, "-");
	if (o.tb.stdout_is_data && json_output)
		return usage_err("'-o -' puts the record on standard output, where -j puts JSON; "
				 "give -o FILE, or leave -j out");
	if (o.events && !strcmp(o.events, "tsg")) {
		o.tb.types = GT_TSG_TYPES;
		return run_live(&o, &l, "tsg");
	}
	if (o.tb.device)
		return usage_err("--device applies to TSG events only ('record tsg')");
	o.tb.types = B(GT_EV_GPU_FAULT) | B(GT_EV_CPU_FAULT) | B(GT_EV_MIGRATION) |
		     B(GT_EV_EVICTION) | B(GT_EV_REPLAY) | B(GT_EV_BATCH) | B(GT_EV_THRASHING);
	return run_live(&o, &l, "all");
}

/* ------------------------------------------------------------ report */

static int do_report(int argc, char **argv)
{
	struct topts o = { 0 };
	struct report_opts ro;
	bool file_fmt;
	int rc = parse_opts(argc, argv, &o, "ifs");

	if (rc)
		return rc;
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
	if (!o.ninputs)
		o.inputs[o.ninputs++] = DEFAULT_FILE;
	return tr_report_files(o.inputs, o.ninputs, &ro, stdout);
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
		"       EVENTS := { all | tsg }\n"
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
		"tsg: TSGs created and freed and the scheduling controls processes set on\n"
		"them themselves, counted per process at the end; only the rm backend has\n"
		"them.  The RM device is " RM_DEFAULT_DEVICE " unless --device or\n"
		"$GPUCTL_RM_DEVICE names another.\n",
		bin_name);
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
