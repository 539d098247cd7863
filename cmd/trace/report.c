// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - gpuctl trace report: a record read back as a summary, as
 * event lines, as a fault heatmap (SVG) or as a trace the UVM model
 * replays.  Nothing in the file is trusted: the reader refuses impossible
 * values, the summary saturates, strings are escaped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "safefile.h"
#include "record.h"
#include "report.h"
#include "summary.h"
#include "recload.h"
#include "svg.h"
#include "export.h"

struct fault_pt {
	uint64_t ts, addr;
	uint32_t pid;
	uint8_t write;
};

struct faults {
	struct fault_pt *v;
	size_t n, cap;
};

static int faults_add(struct faults *f, const struct gt_event *e)
{
	if (f->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 4096;
		struct fault_pt *p = realloc(f->v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		f->v = p;
		f->cap = nc;
	}
	f->v[f->n++] = (struct fault_pt){ e->ts_ns, e->addr, e->pid,
					 e->access == GT_ACC_WRITE || e->access == GT_ACC_ATOMIC };
	return 0;
}

/*
 * The heat map into path ("-": out), through safefile: a temporary file
 * renamed into place when complete; what was at path stays when it fails.
 */
static int write_svg(const char *path, const struct rl *l, FILE *out)
{
	struct safefile sf;
	int rc;

	if (!strcmp(path, "-")) {
		rc = svg_write(out, l);
	} else {
		if (safefile_open(&sf, path, 0644))
			return EXIT_FAIL;
		rc = svg_write(sf.f, l);
		if (rc) {
			safefile_abort(&sf);
		} else if (safefile_commit(&sf)) {
			return EXIT_FAIL;
		}
	}
	if (rc)
		p_err("writing the SVG failed: %s", strerror(-rc));
	return rc ? EXIT_FAIL : EXIT_OK;
}

static void emit_model(FILE *out, const struct faults *f)
{
	uint64_t base = ~0ull;
	uint32_t pids[8] = { 0 };
	int npids = 0;

	for (size_t i = 0; i < f->n; i++)
		base = f->v[i].addr < base ? f->v[i].addr : base;
	base &= ~((1ull << 21) - 1);
	fprintf(out, "# gpuctl trace report --format model: ADDR_HEX r|w TENANT, offsets from 0x%llx\n",
		(unsigned long long)base);
	for (size_t i = 0; i < f->n; i++) {
		int t;

		for (t = 0; t < npids && pids[t] != f->v[i].pid; t++)
			;
		if (t == npids) {
			if (npids < 8)
				pids[npids++] = f->v[i].pid;
			else
				t = 7;
		}
		fprintf(out, "%llx %c %d\n", (unsigned long long)(f->v[i].addr - base),
			f->v[i].write ? 'w' : 'r', t);
	}
}

/* "record: version 1, host ..." with every string of the file escaped. */
static void print_record_line(FILE *out, const struct gt_file_header *h)
{
	char host[4 * GT_HOST_LEN], driver[4 * GT_DRIVER_LEN];
	char backend[4 * GT_NAME_LEN], what[4 * GT_NAME_LEN], when[64] = "?";
	time_t secs = (time_t)(h->start_realtime_ns / 1000000000ull);
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	str_printable(host, sizeof(host), h->host, sizeof(h->host));
	str_printable(driver, sizeof(driver), h->driver, sizeof(h->driver));
	str_printable(backend, sizeof(backend), h->backend, sizeof(h->backend));
	str_printable(what, sizeof(what), h->what, sizeof(h->what));
	fprintf(out, "record: version %u, host %s, driver %s, backend %s, events %s, "
		"pid %u, started %s UTC\n", h->version, host, driver[0] ? driver : "?",
		backend, what, h->target_pid, when);
}

struct rep {
	const struct report_opts *o;
	FILE *out;
	bool events, model, load;
	struct faults f;
	struct trace_summary sum;
	struct rl l;
};

/* One record read: summed, printed as events, kept for the model or the pictures. */
static int read_one(struct rep *p, FILE *in, const char *name)
{
	struct gt_reader r;
	struct gt_event e;
	uint64_t shift;
	char safe[256];
	int n;

	str_printable(safe, sizeof(safe), name, strlen(name));
	if (gt_reader_open(&r, in, NULL, 0)) {
		p_err("%s: %s", safe, r.err);
		return EXIT_FAIL;
	}
	if (!p->l.nin) {
		p->sum.tsg_only = !strcmp(r.hdr.what, "tsg");
		if (p->events)
			tr_print_header(p->out, p->sum.tsg_only);
	}
	if (recl_begin(&p->l, &r, safe))
		return EXIT_FAIL;
	/* A later record's times onto the first one's clock, through the real-time starts. */
	shift = r.hdr.start_realtime_ns - p->l.hdr[0].start_realtime_ns +
		(p->l.hdr[0].start_ts_ns - r.hdr.start_ts_ns);
	while ((n = gt_reader_next(&r, &e)) > 0) {
		struct gt_event se = e;

		se.ts_ns += se.ts_ns ? shift : 0;
		ts_add(&p->sum, &se);
		/* a process's name (version 2) for the TSG table, as the live trace has it */
		if (e.type == GT_EV_META && e.cause == GT_META_COMM && e.pid)
			ts_comm(&p->sum, e.pid, r.meta);
		if (p->events && e.type != GT_EV_META)
			tr_print_event(p->out, &e, r.hdr.start_ts_ns, NULL);
		if ((p->model && e.type == GT_EV_GPU_FAULT && faults_add(&p->f, &e)) ||
		    (p->load && recl_add(&p->l, &e, &r))) {
			n = -1;
			snprintf(r.err, sizeof(r.err), "out of memory");
			break;
		}
	}
	if (n < 0) {
		p_err("%s: %s", safe, r.err);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* What the records give, in the format asked, after they are all read. */
static int emit(struct rep *p)
{
	const struct report_opts *o = p->o;
	int rc = EXIT_OK;

	/* The heatmap first: a file that cannot be written is the only error. */
	if (o->svg && strcmp(o->svg, "-")) {
		rc = write_svg(o->svg, &p->l, p->out);
		if (rc)
			return rc;
	}
	if (p->model) {
		emit_model(p->out, &p->f);
	} else if (!strcmp(o->format, "chrome") || !strcmp(o->format, "csv")) {
		rc = !strcmp(o->format, "chrome") ? export_chrome(p->out, &p->l) :
						  export_csv(p->out, &p->l);
		if (rc) {
			p_err("writing the %s output failed: %s", o->format, strerror(-rc));
			return EXIT_FAIL;
		}
	} else {
		if (!strcmp(o->format, "summary") && !json_output)
			for (int k = 0; k < p->l.nin; k++)
				print_record_line(p->out, &p->l.hdr[k]);
		p->sum.hdrs = p->l.hdr;		/* -j: the records' headers */
		p->sum.nhdrs = p->l.nin;
		if (!p->events || !json_output)
			ts_print(&p->sum, o->sort, o->top, p->out);
	}
	if (o->svg && !strcmp(o->svg, "-"))
		rc = write_svg(o->svg, &p->l, p->out);
	return rc;
}

int tr_report_many(FILE *const *in, const char *const *names, int n,
		   const struct report_opts *o, FILE *out)
{
	struct rep p = { .o = o, .out = out };
	int rc = EXIT_OK;

	p.events = !strcmp(o->format, "events");
	p.model = !strcmp(o->format, "model");
	p.load = o->svg || !strcmp(o->format, "chrome") || !strcmp(o->format, "csv");
	ts_init(&p.sum);
	recl_init(&p.l);
	/* Event lines are many small documents: written in batches, not one by one. */
	if (json_wtr)
		jsonw_autoflush(json_wtr, false);
	for (int i = 0; i < n && !rc; i++)
		rc = read_one(&p, in[i], names[i]);
	if (json_wtr)
		jsonw_autoflush(json_wtr, true);
	if (!rc) {
		recl_finish(&p.l);
		rc = emit(&p);
	}
	free(p.f.v);
	ts_free(&p.sum);
	recl_free(&p.l);
	return rc;
}

int tr_report(FILE *in, const char *name, const struct report_opts *o, FILE *out)
{
	return tr_report_many(&in, &name, 1, o, out);
}

int tr_report_files(const char *const *paths, int n, const struct report_opts *o, FILE *out)
{
	FILE *in[RL_MAX_INPUTS] = { 0 };
	int rc = EXIT_OK, k, stdin_uses = 0;
	char safe[256];

	for (k = 0; k < n && k < RL_MAX_INPUTS && !rc; k++) {
		if (!strcmp(paths[k], "-") && stdin_uses++) {
			rc = usage_err("standard input (-i -) can be read once");
			break;
		}
		in[k] = strcmp(paths[k], "-") ? fopen(paths[k], "rb") : stdin;
		if (!in[k]) {
			p_err("cannot open '%s': %s", str_printable(safe, sizeof(safe), paths[k],
								   strlen(paths[k])), strerror(errno));
			rc = EXIT_FAIL;
		}
	}
	if (!rc)
		rc = tr_report_many(in, paths, n < RL_MAX_INPUTS ? n : RL_MAX_INPUTS, o, out);
	for (int i = 0; i < k; i++)
		if (in[i] && in[i] != stdin)
			fclose(in[i]);
	return rc;
}
