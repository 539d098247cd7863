// SPDX-License-Identifier: GPL-2.0
/*
 * trace.c - gpuctl trace: UVM driver events on the stock driver, live
 * (faults, migrations, evictions, replays, prefetch) and TSG events (the rm
 * backend), recorded to a file, and reported back (summary, event list, SVG
 * heatmap, model trace).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "record.h"
#include "rm.h"
#include "trace_backend.h"
#include "trace_rm.h"
#include "trace_summary.h"

#define DEFAULT_FILE "gpuctl.trace"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void trace_install_signals(void);
void trace_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	interrupted = 0;
}

bool trace_interrupted(void);
bool trace_interrupted(void)
{
	return interrupted;
}

/* -j given after the object: same as before it. */
void trace_json_on(void);
void trace_json_on(void)
{
	if (json_wtr)
		return;
	json_output = true;
	json_wtr = jsonw_new(stdout);
}

/* ------------------------------------------------------------ options */

struct topts {
	struct tb_opts tb;
	unsigned long long duration_s, max_events, top;
	const char *events;	/* record: "all" or "tsg" */
	const char *file;	/* record -o / report -i */
	const char *svg;
	const char *format;	/* report: summary | events | model */
	const char *sort;
};

/* Parses the options of every trace command; which are allowed is a set of letters. */
static int parse_opts(int argc, char **argv, struct topts *o, const char *allowed)
{
	unsigned long long v;

	o->top = 10;
	o->sort = "faults";
	o->format = "summary";
	while (argc > 0) {
		const char *a = argv[0];

#define TAKES(flag) ({ if (!strchr(allowed, flag)) return usage_err("option '%s' does not apply here", a); \
		if (argc < 2) return usage_err("option '%s' needs a value", a); })
		if (!strcmp(a, "--")) {
			if (!strchr(allowed, 'c'))
				return usage_err("a command does not apply here");
			if (argc < 2)
				return usage_err("'--' must be followed by a command");
			o->tb.cmd = argv + 1;
			break;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			TAKES('p');
			if (parse_u64("pid", argv[1], 1, 4194304, &v))
				return EXIT_USAGE;
			o->tb.pid = (pid_t)v;
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
			o->file = argv[1];
		} else if (!strcmp(a, "--svg")) {
			TAKES('s');
			o->svg = argv[1];
		} else if (!strcmp(a, "--format")) {
			TAKES('f');
			if (strcmp(argv[1], "summary") && strcmp(argv[1], "events") &&
			    strcmp(argv[1], "model"))
				return usage_err("unknown format '%s' (summary, events, model)", argv[1]);
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
			trace_json_on();
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
	if (o->tb.pid && o->tb.cmd)
		return usage_err("give either -p PID or -- CMD, not both");
	return 0;
}

/* ------------------------------------------------------------- output */

static uint64_t t0;

static bool is_tsg(unsigned int type)
{
	return type < 32 && ((1u << type) & GT_TSG_TYPES);
}

static void print_header(bool tsg)
{
	if (json_output)
		return;
	if (tsg) {
		printf("%-12s %7s %-16s %-9s %-10s %-10s %5s %s\n", "TIME(s)", "PID", "COMM",
		       "EVENT", "CLIENT", "TSG", "SEQ", "VALUE");
		return;
	}
	printf("%-12s %7s %4s %-10s %-18s %-8s %-9s %10s %10s\n", "TIME(s)", "PID", "GPU",
	       "EVENT", "ADDRESS", "ACCESS", "CAUSE", "BYTES", "LAT(us)");
}

/* "timeslice 500us", "interleave high", "preempt", "with its client", "at exit", "-" */
static void tsg_value(const struct gt_event *e, char *buf, size_t len)
{
	if (e->type == GT_EV_TSG_FREE)
		snprintf(buf, len, "%s", e->flags & GT_F_WITH_CLIENT ? "with its client" :
			 e->flags & GT_F_AT_EXIT ? "at exit" : "-");
	else if (e->type != GT_EV_TSG_SET)
		snprintf(buf, len, "-");
	else if (e->cause == GT_TSG_CTL_TIMESLICE)
		snprintf(buf, len, "timeslice %lluus", (unsigned long long)e->bytes);
	else if (e->cause == GT_TSG_CTL_INTERLEAVE)
		snprintf(buf, len, "interleave %s", e->bytes <= 2 ?
			 rm_level_name((__u32)e->bytes) : "?");
	else
		snprintf(buf, len, "%s", gt_tsg_ctl_name(e->cause));
}

/* A process name may hold any byte: quote it as JSON (bytes past ASCII as \u00XX). */
static void put_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* A TSG event; comm is NULL when not known (a record has none). */
static void print_tsg_event(const struct gt_event *e, const char *comm, double t)
{
	char name[17], value[48];

	snprintf(name, sizeof(name), "%.16s", comm ? comm : "");
	if (json_output) {
		printf("{\"time_s\":%.9f,\"event\":\"%s\",\"pid\":%u,\"comm\":", t,
		       gt_type_name(e->type), e->pid);
		if (comm)
			put_json_string(name);
		else
			printf("null");
		printf(",\"client\":\"0x%x\",\"tsg\":\"0x%llx\",\"seq\":%u", e->batch,
		       (unsigned long long)e->addr, e->count);
		if (e->type == GT_EV_TSG_SET)
			printf(",\"control\":\"%s\",\"value\":%llu", gt_tsg_ctl_name(e->cause),
			       (unsigned long long)e->bytes);
		else if (e->type == GT_EV_TSG_FREE)
			printf(",\"with_client\":%s,\"at_exit\":%s",
			       e->flags & GT_F_WITH_CLIENT ? "true" : "false",
			       e->flags & GT_F_AT_EXIT ? "true" : "false");
		printf("}\n");
		return;
	}
	tsg_value(e, value, sizeof(value));
	printf("%-12.6f %7u %-16s %-9s 0x%-8x 0x%-8llx %5u %s\n", t, e->pid,
	       name[0] ? name : "-", gt_type_name(e->type), e->batch,
	       (unsigned long long)e->addr, e->count, value);
}

static void print_event(const struct gt_event *e, const char *comm)
{
	double t = e->ts_ns >= t0 ? (e->ts_ns - t0) / 1e9 : 0;

	if (is_tsg(e->type)) {
		print_tsg_event(e, comm, t);
		return;
	}
	if (json_output) {
		printf("{\"time_s\":%.9f,\"event\":\"%s\",\"pid\":%u,", t, gt_type_name(e->type),
		       e->pid);
		if (e->gpu != GT_GPU_NONE)
			printf("\"gpu\":%u,", e->gpu);
		else
			printf("\"gpu\":null,");
		printf("\"addr\":\"0x%llx\",\"access\":\"%s\",\"cause\":\"%s\",\"bytes\":%llu,"
		       "\"latency_ns\":%llu,\"batch\":%u,\"count\":%u,\"duplicate\":%s}\n",
		       (unsigned long long)e->addr, gt_access_name(e->access),
		       gt_cause_name(e->cause), (unsigned long long)e->bytes,
		       (unsigned long long)e->latency_ns, e->batch, e->count,
		       e->flags & GT_F_DUPLICATE ? "true" : "false");
		return;
	}
	char gpu[8], lat[24], acc[16];

	if (e->gpu == GT_GPU_NONE)
		snprintf(gpu, sizeof(gpu), "-");
	else
		snprintf(gpu, sizeof(gpu), "%u", e->gpu);
	if (e->latency_ns)
		snprintf(lat, sizeof(lat), "%.1f", e->latency_ns / 1000.0);
	else
		snprintf(lat, sizeof(lat), "-");
	snprintf(acc, sizeof(acc), "%s%s", gt_access_name(e->access),
		 e->flags & GT_F_DUPLICATE ? "*" : "");
	printf("%-12.6f %7u %4s %-10s 0x%-16llx %-8s %-9s %10llu %10s\n", t, e->pid, gpu,
	       gt_type_name(e->type), (unsigned long long)e->addr, acc, gt_cause_name(e->cause),
	       (unsigned long long)e->bytes, lat);
}

/* ------------------------------------------------------------ live */

enum live_mode { LIVE_PRINT, LIVE_RECORD };

struct live {
	enum live_mode mode;
	uint32_t show;		/* types printed */
	int cause;		/* only this migration cause, or -1 */
	struct trace_summary sum;
	unsigned long long shown, max;
	FILE *out;
	int write_err;
	struct tb *t;		/* for the process names the backend knows */
};

static void live_event(const struct gt_event *e, void *arg)
{
	struct live *l = arg;

	if (!t0 && e->ts_ns)
		t0 = e->ts_ns;
	if (l->cause >= 0 && e->type == GT_EV_MIGRATION && e->cause != l->cause)
		return;
	if (l->max && l->shown >= l->max && e->type != GT_EV_LOST)
		return;
	ts_add(&l->sum, e);
	if (is_tsg(e->type) && l->t)
		ts_comm(&l->sum, e->pid, tb_event_comm(l->t));
	if (l->mode == LIVE_RECORD) {
		if (!l->write_err && gt_write_event(l->out, e))
			l->write_err = errno ? errno : EIO;
		if (e->type != GT_EV_LOST)
			l->shown++;
		return;
	}
	if (l->show & (1u << e->type)) {
		print_event(e, l->t ? tb_event_comm(l->t) : NULL);
		l->shown++;
	}
}

static int run_live(struct topts *o, struct live *l, const char *what)
{
	struct gt_file_header h;
	struct timespec start, now;
	struct tb *t;
	int rc, status;

	ts_init(&l->sum);
	l->sum.tsg_only = (o->tb.types & GT_TSG_TYPES) != 0;
	l->max = o->max_events;
	o->tb.fn = live_event;
	o->tb.arg = l;
	if (l->mode == LIVE_RECORD) {
		const char *path = o->file ? o->file : DEFAULT_FILE;

		if (!strcmp(path, "-")) {
			if (isatty(STDOUT_FILENO)) {
				p_err("refusing to write a binary record to a terminal; "
				      "redirect stdout or give -o FILE");
				return EXIT_USAGE;
			}
			l->out = stdout;
		} else {
			l->out = fopen(path, "wb");
			if (!l->out) {
				p_err("cannot create '%s': %s", path, strerror(errno));
				return EXIT_FAIL;
			}
		}
	}
	trace_install_signals();
	t = tb_start(&o->tb, &rc);
	if (!t) {
		if (l->out && l->out != stdout) {
			fclose(l->out);
			remove(o->file ? o->file : DEFAULT_FILE);
		}
		return rc;
	}
	l->t = t;
	t0 = tb_now_ns(t);
	if (l->mode == LIVE_RECORD) {
		gt_header_init(&h, tb_name(t), what, (uint32_t)tb_target(t), t0);
		if (gt_write_header(l->out, &h))
			l->write_err = errno ? errno : EIO;
	} else {
		print_header(l->sum.tsg_only);
	}
	if (!json_output)
		fprintf(stderr, "Tracing %s with the %s backend%s... Ctrl-C to end.\n", what,
			tb_name(t), o->tb.pid ? " on one process" : o->tb.cmd ? " for the command" :
			" system-wide");
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!interrupted) {
		bool alive = tb_poll(t, 100);

		if (!alive)
			break;
		if (l->max && l->shown >= l->max)
			break;
		if (l->write_err)
			break;
		if (o->duration_s) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - start.tv_sec) * 1000000000LL +
			    (now.tv_nsec - start.tv_nsec) >= (long long)o->duration_s * 1000000000LL)
				break;
		}
		if (l->mode == LIVE_PRINT)
			fflush(stdout);
	}
	tb_stop(t, interrupted || (l->max && l->shown >= l->max) || o->duration_s || tb_failed(t));
	status = tb_cmd_status(t);
	l->t = NULL;
	if (tb_failed(t)) {
		tb_free(t);
		ts_free(&l->sum);
		if (l->out && l->out != stdout)
			fclose(l->out);
		return EXIT_FAIL;
	}
	tb_free(t);

	rc = EXIT_OK;
	if (l->mode == LIVE_RECORD) {
		if (l->out != stdout && fclose(l->out) && !l->write_err)
			l->write_err = errno;
		else if (l->out == stdout)
			fflush(stdout);
		if (l->write_err) {
			p_err("writing the record failed: %s", strerror(l->write_err));
			rc = EXIT_FAIL;
		} else if (!json_output) {
			fprintf(stderr, "recorded %llu events to %s\n", l->shown,
				o->file && strcmp(o->file, "-") ? o->file :
				o->file ? "stdout" : DEFAULT_FILE);
		}
		if (l->out != stdout && !json_output)
			ts_print(&l->sum, o->sort, (unsigned int)o->top, stderr);
		else if (json_output && l->out != stdout)
			ts_print(&l->sum, o->sort, (unsigned int)o->top, stdout);
	} else {
		ts_print(&l->sum, o->sort, (unsigned int)o->top, stdout);
	}
	ts_free(&l->sum);
	if (status > 0 && !json_output)
		fprintf(stderr, "the command exited with status %d\n", status);
	return rc;
}

static int do_events(int argc, char **argv, const char *what, uint32_t types, uint32_t show,
		     int cause, const char *allowed)
{
	struct topts o = { 0 };
	struct live l = { .mode = LIVE_PRINT, .show = show, .cause = cause };
	int rc = parse_opts(argc, argv, &o, allowed);

	if (rc)
		return rc;
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
	o.tb.stdout_is_data = o.file && !strcmp(o.file, "-");
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

struct fault_pt {
	uint64_t ts, addr;
	uint32_t pid;
	uint8_t write;
};

static int write_svg(const char *path, const struct fault_pt *f, size_t n)
{
	enum { W = 120, H = 64, CW = 7, CH = 7, ML = 140, MT = 30 };
	static uint32_t grid[H][W];
	uint64_t amin = ~0ull, amax = 0, tmin = ~0ull, tmax = 0;
	uint32_t peak = 0;
	FILE *out;

	memset(grid, 0, sizeof(grid));
	for (size_t i = 0; i < n; i++) {
		amin = f[i].addr < amin ? f[i].addr : amin;
		amax = f[i].addr > amax ? f[i].addr : amax;
		tmin = f[i].ts < tmin ? f[i].ts : tmin;
		tmax = f[i].ts > tmax ? f[i].ts : tmax;
	}
	for (size_t i = 0; i < n; i++) {
		int x = tmax > tmin ? (int)((f[i].ts - tmin) * (double)(W - 1) / (tmax - tmin)) : 0;
		int y = amax > amin ? (int)((f[i].addr - amin) * (double)(H - 1) / (amax - amin)) : 0;

		if (++grid[H - 1 - y][x] > peak)
			peak = grid[H - 1 - y][x];
	}
	out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!out) {
		p_err("cannot create '%s': %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	fprintf(out, "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" font-family=\"monospace\" font-size=\"11\">\n",
		ML + W * CW + 20, MT + H * CH + 40);
	fprintf(out, "<title>gpuctl trace: GPU faults, address x time</title>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"18\">GPU faults: %zu, address 0x%llx..0x%llx, %.3f s</text>\n",
		ML, n, (unsigned long long)amin, (unsigned long long)amax,
		n ? (tmax - tmin) / 1e9 : 0.0);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			double v;
			int c;

			if (!grid[y][x])
				continue;
			/* log2 scale (bit length): one fault is light, the peak is dark red */
			v = peak > 1 ? (double)(32 - __builtin_clz(grid[y][x])) / (32 - __builtin_clz(peak)) : 1.0;
			c = 230 - (int)(v * 200);
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"rgb(255,%d,%d)\"><title>%u</title></rect>\n",
				ML + x * CW, MT + y * CH, CW, CH, c, c / 2, grid[y][x]);
		}
	}
	fprintf(out, "<text x=\"4\" y=\"%d\">0x%llx</text>\n", MT + 10, (unsigned long long)amax);
	fprintf(out, "<text x=\"4\" y=\"%d\">0x%llx</text>\n", MT + H * CH,
		(unsigned long long)amin);
	fprintf(out, "<text x=\"%d\" y=\"%d\">time -&gt;</text>\n</svg>\n", ML,
		MT + H * CH + 25);
	if (out != stdout && fclose(out)) {
		p_err("writing '%s' failed: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int emit_model(const struct fault_pt *f, size_t n)
{
	uint64_t base = ~0ull;
	uint32_t pids[8] = { 0 };
	int npids = 0;

	for (size_t i = 0; i < n; i++)
		base = f[i].addr < base ? f[i].addr : base;
	base &= ~((1ull << 21) - 1);
	printf("# gpuctl trace report --format model: ADDR_HEX r|w TENANT, offsets from 0x%llx\n",
	       (unsigned long long)base);
	for (size_t i = 0; i < n; i++) {
		int t;

		for (t = 0; t < npids && pids[t] != f[i].pid; t++)
			;
		if (t == npids) {
			if (npids < 8)
				pids[npids++] = f[i].pid;
			else
				t = 7;
		}
		printf("%llx %c %d\n", (unsigned long long)(f[i].addr - base),
		       f[i].write ? 'w' : 'r', t);
	}
	return EXIT_OK;
}

static int do_report(int argc, char **argv)
{
	struct topts o = { 0 };
	const char *path;
	struct trace_summary sum;
	struct fault_pt *faults = NULL;
	size_t nf = 0, capf = 0;
	struct gt_reader r;
	struct gt_event e;
	FILE *f;
	int rc = parse_opts(argc, argv, &o, "ifs"), n;
	bool keep = false;

	if (rc)
		return rc;
	path = o.file ? o.file : DEFAULT_FILE;
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		p_err("cannot open '%s': %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	if (gt_reader_open(&r, f, NULL, 0)) {
		p_err("%s: %s", path, r.err);
		if (f != stdin)
			fclose(f);
		return EXIT_FAIL;
	}
	keep = o.svg || !strcmp(o.format, "model");
	ts_init(&sum);
	sum.tsg_only = !strcmp(r.hdr.what, "tsg");
	t0 = r.hdr.start_ts_ns;
	if (!strcmp(o.format, "events"))
		print_header(sum.tsg_only);
	while ((n = gt_reader_next(&r, &e)) > 0) {
		ts_add(&sum, &e);
		if (!strcmp(o.format, "events"))
			print_event(&e, NULL);
		if (keep && e.type == GT_EV_GPU_FAULT) {
			if (nf == capf) {
				size_t nc = capf ? capf * 2 : 4096;
				struct fault_pt *p = realloc(faults, nc * sizeof(*p));

				if (!p) {
					n = -1;
					snprintf(r.err, sizeof(r.err), "out of memory");
					break;
				}
				faults = p;
				capf = nc;
			}
			faults[nf++] = (struct fault_pt){ e.ts_ns, e.addr, e.pid,
							  e.access == GT_ACC_WRITE ||
							  e.access == GT_ACC_ATOMIC };
		}
	}
	if (f != stdin)
		fclose(f);
	if (n < 0) {
		p_err("%s: %s", path, r.err);
		rc = EXIT_FAIL;
		goto out;
	}
	if (!strcmp(o.format, "model")) {
		rc = emit_model(faults, nf);
	} else {
		if (!strcmp(o.format, "summary") && !json_output) {
			char when[64];
			time_t secs = (time_t)(r.hdr.start_realtime_ns / 1000000000ull);
			struct tm tm;

			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&secs, &tm));
			printf("record: version %u, host %s, driver %s, backend %s, events %s, "
			       "pid %u, started %s UTC\n", r.hdr.version, r.hdr.host,
			       r.hdr.driver[0] ? r.hdr.driver : "?", r.hdr.backend, r.hdr.what,
			       r.hdr.target_pid, when);
		}
		if (strcmp(o.format, "events") || !json_output)
			ts_print(&sum, o.sort, (unsigned int)o.top, stdout);
	}
	if (!rc && o.svg)
		rc = write_svg(o.svg, faults, nf);
out:
	free(faults);
	ts_free(&sum);
	return rc;
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
		"       %1$s trace report [-i FILE|-] [--sort KEY] [--top N] [--format FORMAT] [--svg FILE]\n"
		"       %1$s trace COMMAND [-p PID | -- CMD...] [--duration S] [--max-events N] [--backend B]\n"
		"       %1$s trace help\n"
		"\n"
		"       COMMAND := { faults | migrations | evictions | replays | prefetch | tsg |\n"
		"                    record | report | help }\n"
		"       EVENTS := { all | tsg }\n"
		"       B := { auto | bpf | uvm-tools | rm }\n"
		"\n"
		"One line per event (-j: one JSON object per line); at the end (Ctrl-C, the\n"
		"duration, the event limit, or the end of CMD) a summary: counts, a log2\n"
		"histogram, the hottest 2 MiB ranges.  FILE defaults to " DEFAULT_FILE ".\n"
		"--format model writes 'ADDR r|w TENANT' lines for 'uvmsim run trace file F'.\n"
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
