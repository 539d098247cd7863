// SPDX-License-Identifier: GPL-2.0
/* export.c - Chrome trace-event JSON and CSV of a record (export.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

#define TID_NONE 0		/* no GPU */
#define TID_TSG 100000		/* rm events */
/*
 * Spans on one track must nest (Perfetto and chrome://tracing take a span
 * that ends inside a later one's as broken): a span that overlaps the last
 * one of its track goes to the track's next lane, tid + k * LANE_TID, named
 * after the track; past LANES lanes it stays an instant (its latency in args).
 * Merged bins: each (process, track, kind) its own lane (tid + (slot + 1) *
 * LANE_TID, named after the track and the kind).
 */
#define LANES 16
#define LANE_TID 200000
#define BINS 2000		/* merged: time bins ... */
#define KEYS 64			/* ... of this many (process, track, kind); the rest as one */

/* s[n] inside a JSON or CSV string: printable ASCII, \xNN for the rest. */
static void esc(FILE *o, const char *s, size_t n, char quote)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			fprintf(o, quote == '"' ? "\\\\x%02x" : "\\x%02x", c);
		else if (c == '"')
			fputs(quote == ',' ? "\"\"" : "\\\"", o);
		else
			fputc(c, o);
	}
}

static int tid_of(const struct gt_event *e)
{
	return gt_is_tsg(e->type) ? TID_TSG : e->gpu == GT_GPU_NONE ? TID_NONE : e->gpu + 1;
}

/* "fault read", "migration prefetch", ... */
static void kind_name(const struct gt_event *e, char *buf, size_t len)
{
	if (e->type == GT_EV_GPU_FAULT || e->type == GT_EV_CPU_FAULT)
		snprintf(buf, len, "%s %s", gt_type_name(e->type), gt_access_name(e->access));
	else if (e->type == GT_EV_MIGRATION)
		snprintf(buf, len, "migration %s", gt_cause_name(e->cause));
	else
		snprintf(buf, len, "%s", gt_type_name(e->type));
}

/* microseconds with three decimals: the format's unit, to the nanosecond */
static void ts_us(FILE *o, const char *key, uint64_t ns)
{
	fprintf(o, "\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

/* The (process, track) pairs named so far: open addressing, grown at half full. */
struct named {
	uint64_t *v;		/* pid << 32 | tid, +1 (0: empty) */
	size_t cap, n;
	int err;
};

static bool named_add(struct named *s, uint64_t key)
{
	size_t i;

	if (s->n * 2 >= s->cap) {
		struct named g = { .cap = s->cap ? s->cap * 2 : 256 };

		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.v) {
			s->err = -ENOMEM;
			return false;
		}
		for (size_t k = 0; k < s->cap; k++)
			if (s->v[k])
				named_add(&g, s->v[k] - 1);
		free(s->v);
		*s = g;
	}
	for (i = (key * 0x9e3779b97f4a7c15ull) % s->cap; s->v[i]; i = (i + 1) % s->cap)
		if (s->v[i] == key + 1)
			return false;
	s->v[i] = key + 1;
	s->n++;
	return true;
}

static void track_name(FILE *o, const struct rl *l, int tid, const char *lane)
{
	int g = tid % LANE_TID - 1;

	if (tid >= LANE_TID) {
		track_name(o, l, tid % LANE_TID, NULL);
		if (lane)
			fprintf(o, ": %s", lane);
		else
			fprintf(o, " (overlapping spans, lane %d)", tid / LANE_TID + 1);
		return;
	}

	if (tid == TID_NONE || tid == TID_TSG) {
		fputs(tid == TID_NONE ? "no GPU" : "TSGs", o);
		return;
	}
	fprintf(o, "GPU %d", g);
	if (g < GPUCTL_MAX_GPUS && l->gpus[g].named) {
		fputs(": ", o);
		esc(o, l->gpus[g].name, sizeof(l->gpus[g].name), '"');
		fputs(" (", o);
		esc(o, l->gpus[g].uuid, sizeof(l->gpus[g].uuid), '"');
		fputs(")", o);
	}
}

/*
 * The process's and the track's names, the first time an event is on them;
 * lane: a merged lane's kind, or NULL.
 */
static void name_track(FILE *o, const struct rl *l, struct named *s, uint32_t pid, int tid,
		       const char *lane)
{
	const struct recl_proc *p = pid ? recl_proc(l, pid) : NULL;

	if (named_add(s, (uint64_t)pid << 32 | 0xffffffffu)) {
		fprintf(o, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":0,"
			"\"args\":{\"name\":\"", pid);
		if (!pid)
			fputs("unknown process", o);
		else if (p && p->comm[0])
			esc(o, p->comm, sizeof(p->comm), '"');
		else
			fputs("pid", o);
		if (pid)
			fprintf(o, " %u", pid);
		fputs("\"}}", o);
	}
	if (named_add(s, (uint64_t)pid << 32 | (uint32_t)tid)) {
		fprintf(o, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":%d,"
			"\"args\":{\"name\":\"", pid, tid);
		track_name(o, l, tid, lane);
		fputs("\"}}", o);
	}
}

/* Each track's lanes: where its last span in each ends (open addressing, grown at half full). */
struct lane_row {
	uint64_t key;		/* pid << 32 | tid, +1 (0: empty) */
	uint64_t end[LANES];
};

struct lanes {
	struct lane_row *v;
	size_t cap, n;
	int err;
};

static struct lane_row *lane_row(struct lanes *m, uint64_t key)
{
	size_t i;

	if (m->n * 2 >= m->cap) {
		struct lanes g = { .cap = m->cap ? m->cap * 2 : 64 };

		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.v) {
			m->err = -ENOMEM;
			return NULL;
		}
		for (size_t k = 0; k < m->cap; k++) {
			struct lane_row *r = m->v[k].key ? lane_row(&g, m->v[k].key - 1) : NULL;

			if (r)
				memcpy(r->end, m->v[k].end, sizeof(r->end));
		}
		free(m->v);
		*m = g;
	}
	for (i = (key * 0x9e3779b97f4a7c15ull) % m->cap; m->v[i].key; i = (i + 1) % m->cap)
		if (m->v[i].key == key + 1)
			return &m->v[i];
	m->v[i].key = key + 1;
	m->n++;
	return &m->v[i];
}

/*
 * The tid of a span [start, end) on track tid of pid: the first lane whose
 * last span has ended by start (spans come in start order), or -1 (all
 * LANES busy, or no memory).
 */
static int lane_tid(struct lanes *m, uint32_t pid, int tid, uint64_t start, uint64_t end)
{
	struct lane_row *r = lane_row(m, (uint64_t)pid << 32 | (uint32_t)tid);

	for (int k = 0; r && k < LANES; k++) {
		if (r->end[k] <= start) {
			r->end[k] = end > start ? end : start + 1;
			return tid + k * LANE_TID;
		}
	}
	return -1;
}

static void one_event(FILE *o, const struct rl *l, struct named *s, struct lanes *ln,
		      const struct gt_event *e)
{
	char name[48];
	bool span = (e->type == GT_EV_MIGRATION || e->type == GT_EV_BATCH) && e->latency_ns;
	int tid = tid_of(e);

	if (span) {
		int lt = lane_tid(ln, e->pid, tid, e->ts_ns, e->ts_ns + e->latency_ns);

		span = lt >= 0;
		tid = span ? lt : tid;
	}
	name_track(o, l, s, e->pid, tid, NULL);
	kind_name(e, name, sizeof(name));
	fprintf(o, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\",", name,
		gt_type_name(e->type), span ? "X" : "i");
	ts_us(o, "ts", e->ts_ns);
	if (span) {
		fputc(',', o);
		ts_us(o, "dur", e->latency_ns);
	} else {
		fputs(e->type == GT_EV_LOST ? ",\"s\":\"g\"" : ",\"s\":\"t\"", o);
	}
	fprintf(o, ",\"pid\":%u,\"tid\":%d,\"args\":{\"addr\":\"0x%llx\",\"bytes\":%llu,"
		"\"latency_ns\":%llu,\"access\":\"%s\",\"cause\":\"%s\",\"duplicate\":%s,"
		"\"batch\":%u,\"count\":%u,\"flags\":%u,\"src\":%u,\"dst\":%u}}",
		e->pid, tid, (unsigned long long)e->addr, (unsigned long long)e->bytes,
		(unsigned long long)e->latency_ns, gt_access_name(e->access),
		gt_is_tsg(e->type) ? gt_tsg_ctl_name(e->cause) : gt_cause_name(e->cause),
		e->flags & GT_F_DUPLICATE ? "true" : "false", e->batch, e->count, e->flags,
		e->src, e->dst);
}

/*
 * Each TSG's life as a span on its process's TSG track, from its creation to
 * its free (to the last event when never freed): the first 4096 TSG events.
 */
static void tsg_spans(FILE *o, const struct rl *l, struct named *nm, struct lanes *ln,
		      uint64_t tmax)
{
	size_t *ix = malloc(4096 * sizeof(*ix)), n = 0;

	for (size_t i = 0; ix && i < l->n && n < 4096; i++)
		if (gt_is_tsg(l->ev[i].type))
			ix[n++] = i;
	for (size_t a = 0; a < n; a++) {
		const struct gt_event *c = &l->ev[ix[a]], *f = NULL;
		uint64_t end;
		int tid;

		if (c->type != GT_EV_TSG)
			continue;
		for (size_t b = a + 1; b < n && !f; b++) {
			const struct gt_event *x = &l->ev[ix[b]];

			if (x->type == GT_EV_TSG_FREE && x->pid == c->pid && x->batch == c->batch &&
			    x->addr == c->addr)
				f = x;
		}
		end = f ? f->ts_ns : tmax > c->ts_ns ? tmax : c->ts_ns;
		tid = lane_tid(ln, c->pid, TID_TSG, c->ts_ns, end);
		if (tid < 0)
			continue;	/* more than LANES alive at once: their events stay on TSGs */
		name_track(o, l, nm, c->pid, tid, NULL);
		fprintf(o, ",\n{\"name\":\"TSG 0x%llx\",\"cat\":\"tsg\",\"ph\":\"X\",",
			(unsigned long long)c->addr);
		ts_us(o, "ts", c->ts_ns);
		fputc(',', o);
		ts_us(o, "dur", end - c->ts_ns);
		fprintf(o, ",\"pid\":%u,\"tid\":%d,\"args\":{\"client\":\"0x%x\",\"seq\":%u,"
			"\"freed\":%s}}", c->pid, tid, c->batch, c->count, f ? "true" : "false");
	}
	free(ix);
}

struct mkey {
	uint32_t pid;
	int tid;
	char name[48];
};

/* The slot of e's (process, track, kind): one of KEYS, the last for all the rest. */
static int key_of(struct mkey *k, int *nk, const struct gt_event *e)
{
	char name[48];
	int tid = tid_of(e);

	kind_name(e, name, sizeof(name));
	for (int i = 0; i < *nk; i++)
		if (k[i].pid == e->pid && k[i].tid == tid && !strcmp(k[i].name, name))
			return i;
	if (*nk == KEYS - 1) {
		k[KEYS - 1] = (struct mkey){ 0, TID_NONE, "other events" };
		return KEYS - 1;
	}
	k[*nk] = (struct mkey){ e->pid, tid, "" };
	memcpy(k[*nk].name, name, sizeof(name));
	return (*nk)++;
}

/* Too many events: counts per (process, track, kind) and time bin, one span each. */
static int merged(FILE *o, const struct rl *l, struct named *nm, uint64_t tmin, uint64_t span)
{
	uint64_t bin = span / BINS + 1, (*cnt)[BINS] = calloc(KEYS, sizeof(*cnt));
	uint64_t (*bytes)[BINS] = calloc(KEYS, sizeof(*bytes));
	struct mkey *k = calloc(KEYS, sizeof(*k));
	int nk = 0;

	if (!cnt || !bytes || !k) {
		free(cnt);
		free(bytes);
		free(k);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct gt_event *e = &l->ev[i];
		int s = key_of(k, &nk, e);
		uint64_t b = (e->ts_ns - tmin) / bin;

		cnt[s][b]++;
		bytes[s][b] = bytes[s][b] + e->bytes < bytes[s][b] ? UINT64_MAX : bytes[s][b] + e->bytes;
	}
	fprintf(o, "\n{\"name\":\"gpuctl: %zu events merged into bins of %llu ns\",\"ph\":\"i\","
		"\"s\":\"g\",\"ts\":0,\"pid\":0,\"tid\":0}", l->n, (unsigned long long)bin);
	for (int s = 0; s < KEYS; s++) {
		for (int b = 0; b < BINS; b++) {
			if (!cnt[s][b])
				continue;
			/* a lane of its own: the kinds' bins of a track would overlap */
			int tid = k[s].tid + (s + 1) * LANE_TID;

			name_track(o, l, nm, k[s].pid, tid, k[s].name);
			fprintf(o, ",\n{\"name\":\"%s\",\"cat\":\"merged\",\"ph\":\"X\",", k[s].name);
			ts_us(o, "ts", tmin + b * bin);
			fputc(',', o);
			ts_us(o, "dur", bin);
			fprintf(o, ",\"pid\":%u,\"tid\":%d,\"args\":{\"count\":%llu,\"bytes\":%llu}}",
				k[s].pid, tid, (unsigned long long)cnt[s][b],
				(unsigned long long)bytes[s][b]);
		}
	}
	free(cnt);
	free(bytes);
	free(k);
	return 0;
}

int export_chrome(FILE *o, const struct rl *l)
{
	const struct gt_file_header *h = &l->hdr[0];
	uint64_t tmin = UINT64_MAX, tmax = 0;
	struct named nm = { 0 };
	struct lanes ln = { 0 };
	int rc = 0;

	for (size_t i = 0; i < l->n; i++) {
		tmin = l->ev[i].ts_ns < tmin ? l->ev[i].ts_ns : tmin;
		tmax = l->ev[i].ts_ns > tmax ? l->ev[i].ts_ns : tmax;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gpuctl trace report\","
	      "\"host\":\"", o);
	esc(o, h->host, sizeof(h->host), '"');
	fputs("\",\"driver\":\"", o);
	esc(o, h->driver, sizeof(h->driver), '"');
	fprintf(o, "\",\"records\":%d,\"start_realtime_ns\":%llu,\"events\":%zu,\"lost\":%llu,"
		"\"merged\":%s},\n\"traceEvents\":[", l->nin, (unsigned long long)l->t0_realtime,
		l->n, (unsigned long long)l->lost, l->n > EX_CHROME_MAX ? "true" : "false");
	/* The first element: what this is; every later one starts with its comma. */
	if (l->n > EX_CHROME_MAX) {
		rc = merged(o, l, &nm, tmin, tmax - tmin);
	} else {
		fprintf(o, "\n{\"name\":\"gpuctl trace: %zu events\",\"ph\":\"i\",\"s\":\"g\","
			"\"ts\":0,\"pid\":0,\"tid\":0}", l->n);
		for (size_t i = 0; i < l->n; i++)
			one_event(o, l, &nm, &ln, &l->ev[i]);
		free(ln.v);
		ln = (struct lanes){ 0 };	/* the TSG tracks' lanes: spans in creation order */
		tsg_spans(o, l, &nm, &ln, tmax);
	}
	rc = rc ? rc : nm.err ? nm.err : ln.err;
	free(nm.v);
	free(ln.v);
	fputs("\n]}\n", o);
	if (!rc && ferror(o))
		rc = -(errno ? errno : EIO);
	return rc;
}

/* "", "0", ... or "cpu" for a processor index */
static void proc_field(FILE *o, uint16_t v)
{
	if (v == GT_PROC_CPU)
		fputs("cpu", o);
	else
		fprintf(o, "%u", v);
}

static void csv_row(FILE *o, const struct rl *l, const struct gt_event *e)
{
	const struct recl_proc *p = e->pid ? recl_proc(l, e->pid) : NULL;
	bool tsg = gt_is_tsg(e->type);

	fprintf(o, "%llu,%s,%u,\"", (unsigned long long)e->ts_ns, gt_type_name(e->type), e->pid);
	if (p)
		esc(o, p->comm, sizeof(p->comm), ',');
	fputs("\",", o);
	if (e->gpu != GT_GPU_NONE)
		fprintf(o, "%u", e->gpu);
	fputs(",\"", o);
	if (e->gpu < GPUCTL_MAX_GPUS && l->gpus[e->gpu].named)
		esc(o, l->gpus[e->gpu].uuid, sizeof(l->gpus[e->gpu].uuid), ',');
	fprintf(o, "\",0x%llx,%llu,%llu,%s,%s,%d,%s,%u,%u,", (unsigned long long)e->addr,
		(unsigned long long)e->bytes, (unsigned long long)e->latency_ns,
		tsg ? "" : gt_access_name(e->access),
		tsg ? gt_tsg_ctl_name(e->cause) : gt_cause_name(e->cause),
		!!(e->flags & GT_F_DUPLICATE), e->flags & GT_F_TO_GPU ? "gpu" :
		e->flags & GT_F_TO_CPU ? "cpu" : "", e->batch, e->count);
	if (tsg) {
		fputs(",\n", o);
		return;
	}
	proc_field(o, e->src);
	fputc(',', o);
	proc_field(o, e->dst);
	fputc('\n', o);
}

int export_csv(FILE *o, const struct rl *l)
{
	fputs("time_ns,event,pid,comm,gpu,gpu_uuid,address,bytes,latency_ns,access,cause,"
	      "duplicate,direction,batch,count,src,dst\n", o);
	for (size_t i = 0; i < l->n; i++)
		csv_row(o, l, &l->ev[i]);
	return ferror(o) ? -(errno ? errno : EIO) : 0;
}
