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

enum { SVG_W = 120, SVG_H = 64, SVG_CW = 7, SVG_CH = 7, SVG_ML = 140, SVG_MT = 30 };

/* Faults per cell of the heatmap, address (y) against time (x); the peak. */
static uint32_t svg_grid(const struct faults *f, uint32_t grid[SVG_H][SVG_W],
			 uint64_t *amin, uint64_t *amax, uint64_t *tmin, uint64_t *tmax)
{
	uint32_t peak = 0;

	*amin = *tmin = ~0ull;
	*amax = *tmax = 0;
	for (size_t i = 0; i < f->n; i++) {
		*amin = f->v[i].addr < *amin ? f->v[i].addr : *amin;
		*amax = f->v[i].addr > *amax ? f->v[i].addr : *amax;
		*tmin = f->v[i].ts < *tmin ? f->v[i].ts : *tmin;
		*tmax = f->v[i].ts > *tmax ? f->v[i].ts : *tmax;
	}
	for (size_t i = 0; i < f->n; i++) {
		int x = *tmax > *tmin ? (int)((f->v[i].ts - *tmin) * (double)(SVG_W - 1) /
					      (*tmax - *tmin)) : 0;
		int y = *amax > *amin ? (int)((f->v[i].addr - *amin) * (double)(SVG_H - 1) /
					      (*amax - *amin)) : 0;

		/* Doubles round: never past the last cell. */
		x = x < SVG_W ? x : SVG_W - 1;
		y = y < SVG_H ? y : SVG_H - 1;
		if (++grid[SVG_H - 1 - y][x] > peak)
			peak = grid[SVG_H - 1 - y][x];
	}
	return peak;
}

static void svg_write(FILE *out, const struct faults *f)
{
	static uint32_t grid[SVG_H][SVG_W];
	uint64_t amin, amax, tmin, tmax;
	uint32_t peak;

	memset(grid, 0, sizeof(grid));
	peak = svg_grid(f, grid, &amin, &amax, &tmin, &tmax);
	fprintf(out, "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" font-family=\"monospace\" font-size=\"11\">\n",
		SVG_ML + SVG_W * SVG_CW + 20, SVG_MT + SVG_H * SVG_CH + 40);
	fprintf(out, "<title>gpuctl trace: GPU faults, address x time</title>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%d\" y=\"18\">GPU faults: %zu, address 0x%llx..0x%llx, %.3f s</text>\n",
		SVG_ML, f->n, (unsigned long long)amin, (unsigned long long)amax,
		f->n ? (tmax - tmin) / 1e9 : 0.0);
	for (int y = 0; y < SVG_H; y++) {
		for (int x = 0; x < SVG_W; x++) {
			double v;
			int c;

			if (!grid[y][x])
				continue;
			/* log2 scale (bit length): one fault is light, the peak is dark red */
			v = peak > 1 ? (double)(32 - __builtin_clz(grid[y][x])) /
				       (32 - __builtin_clz(peak)) : 1.0;
			c = 230 - (int)(v * 200);
			fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				"fill=\"rgb(255,%d,%d)\"><title>%u</title></rect>\n",
				SVG_ML + x * SVG_CW, SVG_MT + y * SVG_CH, SVG_CW, SVG_CH, c, c / 2,
				grid[y][x]);
		}
	}
	fprintf(out, "<text x=\"4\" y=\"%d\">0x%llx</text>\n", SVG_MT + 10,
		(unsigned long long)amax);
	fprintf(out, "<text x=\"4\" y=\"%d\">0x%llx</text>\n", SVG_MT + SVG_H * SVG_CH,
		(unsigned long long)amin);
	fprintf(out, "<text x=\"%d\" y=\"%d\">time -&gt;</text>\n</svg>\n", SVG_ML,
		SVG_MT + SVG_H * SVG_CH + 25);
}

/*
 * The heatmap into path ("-": out), through safefile: a temporary file
 * renamed into place when complete; what was at path stays when it fails.
 */
static int write_svg(const char *path, const struct faults *f, FILE *out)
{
	struct safefile sf;

	if (!strcmp(path, "-")) {
		svg_write(out, f);
		return EXIT_OK;
	}
	if (safefile_open(&sf, path, 0644))
		return EXIT_FAIL;
	svg_write(sf.f, f);
	return safefile_commit(&sf) ? EXIT_FAIL : EXIT_OK;
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

int tr_report(FILE *in, const char *name, const struct report_opts *o, FILE *out)
{
	bool events = !strcmp(o->format, "events"), model = !strcmp(o->format, "model");
	struct faults f = { 0 };
	struct trace_summary sum;
	struct gt_reader r;
	struct gt_event e;
	int rc = EXIT_OK, n;
	char safe[256];

	str_printable(safe, sizeof(safe), name, strlen(name));
	if (gt_reader_open(&r, in, NULL, 0)) {
		p_err("%s: %s", safe, r.err);
		return EXIT_FAIL;
	}
	ts_init(&sum);
	sum.tsg_only = !strcmp(r.hdr.what, "tsg");
	if (events)
		tr_print_header(out, sum.tsg_only);
	/* Event lines are many small documents: written in batches, not one by one. */
	if (json_wtr)
		jsonw_autoflush(json_wtr, false);
	while ((n = gt_reader_next(&r, &e)) > 0) {
		ts_add(&sum, &e);
		if (events)
			tr_print_event(out, &e, r.hdr.start_ts_ns, NULL);
		if ((o->svg || model) && e.type == GT_EV_GPU_FAULT && faults_add(&f, &e)) {
			n = -1;
			snprintf(r.err, sizeof(r.err), "out of memory");
			break;
		}
	}
	if (json_wtr)
		jsonw_autoflush(json_wtr, true);
	if (n < 0) {
		p_err("%s: %s", safe, r.err);
		rc = EXIT_FAIL;
		goto out;
	}
	/* The heatmap first: a file that cannot be written is the only error. */
	if (o->svg && strcmp(o->svg, "-")) {
		rc = write_svg(o->svg, &f, out);
		if (rc)
			goto out;
	}
	if (model) {
		emit_model(out, &f);
	} else {
		if (!strcmp(o->format, "summary") && !json_output)
			print_record_line(out, &r.hdr);
		if (!events || !json_output)
			ts_print(&sum, o->sort, o->top, out);
	}
	if (o->svg && !strcmp(o->svg, "-"))
		rc = write_svg(o->svg, &f, out);
out:
	free(f.v);
	ts_free(&sum);
	return rc;
}
