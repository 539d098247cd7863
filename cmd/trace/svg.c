// SPDX-License-Identifier: GPL-2.0
/* svg.c - the heat map drawn (svg.h); heat.c counts, svg_axes.c writes ticks and keys. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "units.h"
#include "heat.h"
#include "svg.h"
#include "svg_axes.h"

#define SEG_GAP 8		/* pixels between two segments: the address gap, not drawn */
#define STRIP_H 10

static const char *const kind_id[HK_NR] = {
	"fault-read", "fault-write", "migration-fault", "migration-prefetch",
	"migration-other", "eviction", "cpu-fault",
};

struct sv {
	FILE *o;
	const struct rl *l;
	struct heat *h;
	struct sv_time t;
	double y;
};

/* A duration as SVG text: "70 &#181;s". */
static void dur_text(FILE *o, uint64_t ns)
{
	char buf[UNITS_BUF];
	size_t n;

	units_fmt_duration(ns, UNITS_HUMAN, buf, sizeof(buf));
	n = strlen(buf);
	if (n > 3 && !strcmp(buf + n - 3, " us"))
		fprintf(o, "%.*s &#181;s", (int)n - 3, buf);
	else
		fputs(buf, o);
}

static const char *size_text(uint64_t bytes, char *buf)
{
	return units_fmt_size(bytes, UNITS_HUMAN, buf, UNITS_BUF);
}

static void text_start(struct sv *s, double x, const char *attrs)
{
	fprintf(s->o, "<text x=\"%.1f\" y=\"%.1f\"%s>", x, s->y, attrs);
}

static void proc_name(FILE *o, const struct rl *l, uint32_t pid)
{
	const struct recl_proc *p = pid ? recl_proc(l, pid) : NULL;

	if (!pid) {
		fputs("several or unknown processes", o);
		return;
	}
	if (p && p->comm[0]) {
		sv_esc(o, p->comm, sizeof(p->comm));
		fprintf(o, " (pid %u)", pid);
	} else {
		fprintf(o, "pid %u", pid);
	}
}

static void title(struct sv *s)
{
	const struct gt_file_header *hd = &s->l->hdr[0];
	time_t secs = (time_t)(s->l->t0_realtime / 1000000000ull);
	char when[64] = "?";
	struct tm tm;

	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	s->y = 20;
	text_start(s, 10, " font-size=\"15\" font-weight=\"bold\"");
	fputs("gpuctl trace: ", s->o);
	sv_esc(s->o, hd->host, sizeof(hd->host));
	fputs(", driver ", s->o);
	sv_esc(s->o, hd->driver[0] ? hd->driver : "?", sizeof(hd->driver));
	fputs(", backend ", s->o);
	sv_esc(s->o, hd->backend, sizeof(hd->backend));
	for (int k = 1; k < s->l->nin; k++) {
		fputs(" + ", s->o);
		sv_esc(s->o, s->l->hdr[k].backend, sizeof(s->l->hdr[k].backend));
	}
	fprintf(s->o, ", record version %u</text>\n", hd->version);
	s->y += 18;
	text_start(s, 10, "");
	fprintf(s->o, "started %s; events over ", when);
	dur_text(s->o, s->h->have_time ? s->h->span : 0);
	fputs(", the first ", s->o);
	dur_text(s->o, s->h->tmin);
	fprintf(s->o, " after the start; %zu events, %llu lost", s->l->n,
		(unsigned long long)s->l->lost);
	if (s->l->nin > 1)
		fprintf(s->o, "; %d records merged on their real-time starts", s->l->nin);
	fputs("</text>\n", s->o);
}

static void gpu_lines(struct sv *s)
{
	for (int g = 0; g < GPUCTL_MAX_GPUS; g++) {
		const struct rl_gpu *gp = &s->l->gpus[g];

		if (!gp->seen)
			continue;
		s->y += SV_LINE;
		text_start(s, 10, "");
		fprintf(s->o, "GPU %d: ", g);
		if (gp->named) {
			sv_esc(s->o, gp->name[0] ? gp->name : "?", sizeof(gp->name));
			fputs(" (", s->o);
			sv_esc(s->o, gp->uuid, sizeof(gp->uuid));
			fputs(")", s->o);
		} else {
			fputs("not named in the record (version 1; the bpf back-end, whose index is "
			      "UVM's own; or not known to RM)", s->o);
		}
		fprintf(s->o, ", %llu events</text>\n", (unsigned long long)gp->events);
	}
}

/* The label right of segment sg: its start, length and owner. */
static void seg_label(struct sv *s, const struct hm_seg *sg, double y)
{
	char b[UNITS_BUF];
	double x = SV_X0 + SV_GW + 6;

	fprintf(s->o, "<text class=\"seglabel\" x=\"%.1f\" y=\"%.1f\">0x%llx, %s</text>\n", x,
		y + 10, (unsigned long long)sg->s, size_text(sg->last - sg->s + 1, b));
	fprintf(s->o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">", x, y + 22);
	if (sg->merged > 1)
		fprintf(s->o, "%u ranges merged, ", sg->merged);
	fputs(sg->inferred ? "inferred from addresses; " : "allocation of ", s->o);
	proc_name(s->o, s->l, sg->pid);
	fputs("</text>\n", s->o);
}

static void cells(struct sv *s, const struct hm_grid *g, int kind, const struct hm_seg *sg,
		  double top)
{
	char fill[16];

	for (int r = 0; r < sg->rows; r++) {
		const uint32_t *row = &g->cell[(size_t)(sg->row0 + r) * HM_COLS];

		for (int c = 0; c < HM_COLS; c++) {
			if (!row[c])
				continue;
			sv_fill(kind, row[c], g->peak, fill, sizeof(fill));
			fprintf(s->o, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\">"
				"<title>%u</title></rect>\n", SV_X0 + c * SV_CW, top + r * SV_CH,
				SV_CW, SV_CH, fill, row[c]);
		}
	}
}

static void panel(struct sv *s, int gi, int kind)
{
	const struct hm_grid *g = &s->h->grp[gi].g[kind];
	char b[UNITS_BUF];
	double top, bottom;

	s->y += 22;
	fprintf(s->o, "<g class=\"panel\" data-group=\"%d\" data-kind=\"%s\">\n", gi, kind_id[kind]);
	text_start(s, SV_X0, " font-weight=\"bold\"");
	fprintf(s->o, "%s: %llu", hm_kind_name[kind], (unsigned long long)g->events);
	if (g->dups)
		fprintf(s->o, " (%llu duplicates)", (unsigned long long)g->dups);
	if (kind >= HK_MIG_FAULT && kind <= HK_EVICT)
		fprintf(s->o, ", %s", size_text(g->bytes, b));
	fputs("</text>\n", s->o);
	sv_key(s->o, kind, g->peak, SV_X0 + 400, s->y - 9);
	top = s->y + 6;
	bottom = top;
	for (int i = 0; i < s->h->nseg; i++) {
		const struct hm_seg *sg = &s->h->seg[i];
		double y = bottom;

		if (!s->h->grp[gi].seg_used[i])
			continue;
		fprintf(s->o, "<g class=\"seg\" data-first=\"0x%llx\" data-last=\"0x%llx\">\n",
			(unsigned long long)sg->s, (unsigned long long)sg->last);
		fprintf(s->o, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"#fff\" "
			"stroke=\"#555\"/>\n", SV_X0, y, SV_GW, sg->rows * SV_CH);
		sv_time_grid(s->o, &s->t, y, y + sg->rows * SV_CH);
		cells(s, g, kind, sg, y);
		sv_offset_ticks(s->o, sg->last - sg->s, y, sg->rows * SV_CH);
		seg_label(s, sg, y);
		fputs("</g>\n", s->o);
		bottom = y + sg->rows * SV_CH + SEG_GAP;
	}
	fputs("</g>\n", s->o);
	s->y = bottom - SEG_GAP;
}

/* A row of counts on time alone (replays, lost events, ...). */
static void strip(struct sv *s, const char *name, const uint32_t *c, uint64_t n)
{
	uint32_t peak = 0;
	char fill[16];

	s->y += 4;
	for (int i = 0; i < HM_COLS; i++)
		peak = c[i] > peak ? c[i] : peak;
	fprintf(s->o, "<g class=\"strip\" data-name=\"%s\">\n", name);
	fprintf(s->o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", SV_X0 - 6,
		s->y + 9, name);
	fprintf(s->o, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"#fff\" "
		"stroke=\"#555\"/>\n", SV_X0, s->y, SV_GW, STRIP_H);
	for (int i = 0; i < HM_COLS; i++) {
		if (!c[i])
			continue;
		sv_fill(HK_NR, c[i], peak, fill, sizeof(fill));
		fprintf(s->o, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\">"
			"<title>%u</title></rect>\n", SV_X0 + i * SV_CW, s->y, SV_CW, STRIP_H, fill, c[i]);
	}
	fprintf(s->o, "<text x=\"%d\" y=\"%.1f\">%llu, at most %u a column (darker: more)</text>\n",
		SV_X0 + SV_GW + 6, s->y + 9, (unsigned long long)n, peak);
	fputs("</g>\n", s->o);
	s->y += STRIP_H;
}

static void axis_row(struct sv *s)
{
	sv_time_ticks(s->o, &s->t, s->y);
	s->y += 30;
	fprintf(s->o, "<text class=\"xtitle\" x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">",
		SV_X0 + SV_GW / 2, s->y);
	if (s->t.origin) {
		fputs("time after the first event (which came ", s->o);
		dur_text(s->o, s->t.origin);
		fputs(" after the record's start)", s->o);
	} else {
		fputs("time after the record's start", s->o);
	}
	fputs("; address: offset downwards from each range's start</text>\n", s->o);
}

static void group(struct sv *s, int gi)
{
	const struct hm_group *gr = &s->h->grp[gi];
	const struct rl_gpu *gp = gi < HM_GPUS ? &s->l->gpus[gi] : NULL;

	s->y += 26;
	text_start(s, 10, " font-size=\"14\" font-weight=\"bold\"");
	if (gi == HM_GPUS + 1) {
		fputs("No GPU (CPU faults, events without a GPU)", s->o);
	} else if (gi == HM_GPUS) {
		fprintf(s->o, "GPUs %d to %d, together (more than %d GPUs)", gr->gpu_lo,
			gr->gpu_hi, HM_GPUS);
	} else {
		fprintf(s->o, "GPU %d", gi);
		if (gp && gp->named) {
			fputs(": ", s->o);
			sv_esc(s->o, gp->name, sizeof(gp->name));
		}
	}
	fputs("</text>\n", s->o);
	for (int k = 0; k < HK_NR; k++)
		if (gr->g[k].cell)
			panel(s, gi, k);
	for (int st = 0; st < HS_NR; st++)
		if (gr->strip_n[st])
			strip(s, hm_strip_name[st], gr->strip[st], gr->strip_n[st]);
	s->y += 4;
	axis_row(s);
}

static const char *const tsg_fills[] = {
	"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
};

static void tsgs(struct sv *s)
{
	const struct heat *h = s->h;
	uint64_t end = h->tmin + h->span;

	s->y += 26;
	text_start(s, 10, " font-size=\"14\" font-weight=\"bold\"");
	fprintf(s->o, "TSGs (time-slice groups, rm events): %d", h->ntsg);
	if (h->tsgs_left_out)
		fprintf(s->o, " drawn, %llu more left out", (unsigned long long)h->tsgs_left_out);
	fputs("; a bar from creation to free, a black mark at each setting</text>\n", s->o);
	s->y += 6;
	sv_time_grid(s->o, &s->t, s->y, s->y + h->ntsg * 12);
	for (int i = 0; i < h->ntsg; i++) {
		const struct hm_tsg *t = &h->tsg[i];
		uint64_t a = t->t_new - h->tmin, b = (t->t_free < end ? t->t_free : end) - h->tmin;
		double x0 = sv_time_x(&s->t, h->tmin + a), x1 = sv_time_x(&s->t, h->tmin + (b > a ? b : a));

		fprintf(s->o, "<g class=\"tsg\"><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
			"height=\"8\" fill=\"%s\"><title>TSG 0x%llx of client 0x%x</title></rect>\n",
			x0, s->y + 2, x1 - x0 > 1 ? x1 - x0 : 1, tsg_fills[t->pid % 8],
			(unsigned long long)t->handle, t->client);
		for (uint32_t k = 0; k < t->sets && k < 8; k++)
			fprintf(s->o, "<rect x=\"%.2f\" y=\"%.1f\" width=\"2\" height=\"12\" fill=\"#000\"/>\n",
				sv_time_x(&s->t, t->set_t[k]) - 1, s->y);
		fprintf(s->o, "<text x=\"%d\" y=\"%.1f\" font-size=\"10\">", SV_X0 + SV_GW + 6,
			s->y + 10);
		proc_name(s->o, s->l, t->pid);
		fprintf(s->o, ": TSG 0x%llx%s%s</text></g>\n", (unsigned long long)t->handle,
			t->seen_new ? "" : " (made before)", t->t_free == UINT64_MAX ? " (not freed)" : "");
		s->y += 12;
	}
	s->y += 6;
	axis_row(s);
}

static void legend(struct sv *s)
{
	size_t shown = s->l->nprocs < 16 ? s->l->nprocs : 16;

	if (!s->l->nprocs)
		return;
	s->y += 24;
	text_start(s, 10, " font-weight=\"bold\"");
	fputs("Processes (pid, name, events)</text>\n", s->o);
	for (size_t i = 0; i < shown; i++) {
		const struct recl_proc *p = &s->l->procs[i];

		s->y += SV_LINE;
		text_start(s, 20, "");
		fprintf(s->o, "%u  ", p->pid);
		if (p->comm[0])
			sv_esc(s->o, p->comm, sizeof(p->comm));
		else
			fputs("(name not recorded)", s->o);
		fprintf(s->o, "  %llu</text>\n", (unsigned long long)p->events);
	}
	if (shown < s->l->nprocs) {
		s->y += SV_LINE;
		text_start(s, 20, "");
		fprintf(s->o, "and %zu more processes</text>\n", s->l->nprocs - shown);
	}
}

static void note(struct sv *s, const char *fmt, unsigned long long v)
{
	s->y += SV_LINE;
	text_start(s, 10, " class=\"note\"");
	fprintf(s->o, fmt, v);
	fputs("</text>\n", s->o);
}

static void notes(struct sv *s)
{
	const struct heat *h = s->h;
	bool v1 = false;

	for (int k = 0; k < s->l->nin; k++)
		v1 |= s->l->hdr[k].version < 2;
	s->y += 10 + SV_LINE;
	text_start(s, 10, " class=\"note\"");
	fprintf(s->o, "Each cell counts the events in its time column (%d columns of ", HM_COLS);
	dur_text(s->o, h->span / HM_COLS ? h->span / HM_COLS : 1);
	fprintf(s->o, ") and its address rows: %zu events in all; the key above a panel gives "
		"the counts of its colours.</text>\n", s->l->n);
	if (v1)
		note(s, "A version-%llu record: no allocations, process or GPU names; address "
		     "ranges are inferred from the 2 MiB blocks touched.", 1);
	if (h->allocs_merged)
		note(s, "More than 16 address ranges: %llu of them drawn merged at the smallest "
		     "gaps (the rows of a merged range span its gaps).", h->allocs_merged);
	if (h->untouched_allocs)
		note(s, "%llu allocations without an event are not drawn.", h->untouched_allocs);
	if (h->batches)
		note(s, "%llu fault batches are not drawn (their faults are).", h->batches);
	if (s->l->gpus_beyond)
		note(s, "%llu events name GPUs past gpuctl's table.", s->l->gpus_beyond);
}

/* The picture without its <svg> element, into o; its height. */
static double body(struct sv *s)
{
	bool any = false;

	title(s);
	gpu_lines(s);
	for (int gi = 0; gi < HM_GPUS + 2; gi++) {
		if (!s->h->grp[gi].used)
			continue;
		group(s, gi);
		any = true;
	}
	if (s->l->lost) {
		s->y += 20;
		strip(s, "lost", s->h->lost_strip, s->l->lost);
		s->y += 4;
		axis_row(s);
		any = true;
	}
	if (s->h->ntsg) {
		tsgs(s);
		any = true;
	}
	if (!any) {
		s->y += 30;
		text_start(s, 10, " font-size=\"14\"");
		fprintf(s->o, "Nothing to draw: %s.</text>\n", s->l->n ?
			"no event of this record has an address or a time to place" :
			"the record holds no events");
	}
	legend(s);
	notes(s);
	return s->y + 14;
}

int svg_write(FILE *out, const struct rl *l)
{
	struct sv s = { .l = l };
	char *buf = NULL;
	size_t len = 0;
	double height;
	int rc;

	s.h = calloc(1, sizeof(*s.h));
	if (!s.h)
		return -ENOMEM;
	rc = heat_build(s.h, l);
	s.o = rc ? NULL : open_memstream(&buf, &len);
	if (!s.o) {
		heat_free(s.h);
		free(s.h);
		return rc ? rc : -ENOMEM;
	}
	sv_time_axis(&s.t, s.h->tmin, s.h->span);
	height = body(&s);
	rc = fclose(s.o) ? -ENOMEM : 0;
	if (!rc) {
		fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
			"viewBox=\"0 0 %d %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
			"font-size=\"11\">\n<title>gpuctl trace report: events by address and time"
			"</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
			SV_WIDTH, height, SV_WIDTH, height);
		fwrite(buf, 1, len, out);
		fputs("</svg>\n", out);
		rc = ferror(out) ? -(errno ? errno : EIO) : 0;
	}
	free(buf);
	heat_free(s.h);
	free(s.h);
	return rc;
}
