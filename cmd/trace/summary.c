// SPDX-License-Identifier: GPL-2.0
/* summary.c - counts, log2 histograms and hot ranges of a trace. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuctl.h"
#include "record.h"	/* gt_*_name */
#include "summary.h"
#include "units.h"

/* *sum += v, stopping at UINT64_MAX (records are not trusted to be sane). */
static void add(struct trace_summary *s, uint64_t *sum, uint64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum)) {
		*sum = UINT64_MAX;
		s->saturated = true;
	}
}

void ts_init(struct trace_summary *s)
{
	memset(s, 0, sizeof(*s));
}

void ts_free(struct trace_summary *s)
{
	free(s->ranges);
	s->ranges = NULL;
	free(s->procs);
	s->procs = NULL;
	free(s->proc_idx);
	s->proc_idx = NULL;
}

static unsigned int log2_slot(uint64_t v)
{
	unsigned int slot = 0;

	while (v > 1 && slot < TS_HIST_SLOTS - 1) {
		v >>= 1;
		slot++;
	}
	return slot;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static struct ts_range *range_get(struct trace_summary *s, uint64_t addr)
{
	uint64_t key = (addr >> TS_RANGE_SHIFT) + 1;
	size_t i;

	if (s->nranges * 2 >= s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024;
		struct ts_range *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (i = 0; i < s->cap; i++) {
			size_t j;

			if (!s->ranges[i].block)
				continue;
			for (j = mix(s->ranges[i].block) & (ncap - 1); n[j].block;
			     j = (j + 1) & (ncap - 1))
				;
			n[j] = s->ranges[i];
		}
		free(s->ranges);
		s->ranges = n;
		s->cap = ncap;
	}
	for (i = mix(key) & (s->cap - 1); s->ranges[i].block; i = (i + 1) & (s->cap - 1))
		if (s->ranges[i].block == key)
			return &s->ranges[i];
	s->ranges[i].block = key;
	s->nranges++;
	return &s->ranges[i];
}

/* Rebuilds the pid index at twice the size: 0, or -1 out of memory. */
static int proc_idx_grow(struct trace_summary *s)
{
	size_t ncap = s->proc_idx_cap ? s->proc_idx_cap * 2 : 64;
	uint32_t *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (size_t i = 0; i < s->nprocs; i++) {
		size_t j;

		for (j = mix(s->procs[i].pid) & (ncap - 1); n[j]; j = (j + 1) & (ncap - 1))
			;
		n[j] = (uint32_t)i + 1;
	}
	free(s->proc_idx);
	s->proc_idx = n;
	s->proc_idx_cap = ncap;
	return 0;
}

/* The process's entry, found through the index (a record may name millions). */
static struct ts_proc *proc_get(struct trace_summary *s, uint32_t pid)
{
	size_t j;

	if ((s->nprocs + 1) * 2 > s->proc_idx_cap && proc_idx_grow(s))
		return NULL;
	for (j = mix(pid) & (s->proc_idx_cap - 1); s->proc_idx[j];
	     j = (j + 1) & (s->proc_idx_cap - 1))
		if (s->procs[s->proc_idx[j] - 1].pid == pid)
			return &s->procs[s->proc_idx[j] - 1];
	if (s->nprocs >= UINT32_MAX - 1)
		return NULL;
	if (s->nprocs == s->procs_cap) {
		size_t ncap = s->procs_cap ? s->procs_cap * 2 : 16;
		struct ts_proc *n = realloc(s->procs, ncap * sizeof(*n));

		if (!n)
			return NULL;
		s->procs = n;
		s->procs_cap = ncap;
	}
	memset(&s->procs[s->nprocs], 0, sizeof(s->procs[0]));
	s->procs[s->nprocs].pid = pid;
	s->proc_idx[j] = (uint32_t)s->nprocs + 1;
	return &s->procs[s->nprocs++];
}

void ts_comm(struct trace_summary *s, uint32_t pid, const char *comm)
{
	struct ts_proc *p = comm ? proc_get(s, pid) : NULL;

	if (p)
		snprintf(p->comm, sizeof(p->comm), "%.*s", (int)sizeof(p->comm) - 1, comm);
}

static void tsg_add(struct trace_summary *s, const struct gt_event *e)
{
	struct ts_proc *p = proc_get(s, e->pid);

	if (!p)
		return;
	if (e->type == GT_EV_TSG)
		p->created++;
	else if (e->type == GT_EV_TSG_FREE)
		p->freed++;
	else
		p->settings++;
}

/*
 * The per-GPU table takes GPU gpu's event: false for none (GT_GPU_NONE);
 * a GPU past the table is counted with the others past it (said in print).
 */
static bool gpu_row(struct trace_summary *s, uint32_t gpu)
{
	if (gpu == GT_GPU_NONE)
		return false;
	s->gpus_seen = true;
	if (gpu < GPUCTL_MAX_GPUS)
		s->gpu_seen[gpu] = true;
	else if (gpu + 1 > s->beyond_gpus_max)
		s->beyond_gpus_max = gpu + 1;
	return true;
}

void ts_add(struct trace_summary *s, const struct gt_event *e)
{
	struct ts_range *r;

	if (e->type >= GT_EV_MAX || e->type == GT_EV_META)
		return;
	if (e->type == GT_EV_LOST) {
		add(s, &s->lost, e->count);
		return;
	}
	s->count[e->type]++;
	if (e->ts_ns) {
		if (!s->first_ts || e->ts_ns < s->first_ts)
			s->first_ts = e->ts_ns;
		if (e->ts_ns > s->last_ts)
			s->last_ts = e->ts_ns;
	}
	switch (e->type) {
	case GT_EV_GPU_FAULT:
		if (e->flags & GT_F_DUPLICATE)
			s->duplicates++;
		if (s->last_fault_ts && e->ts_ns >= s->last_fault_ts) {
			uint64_t gap = e->ts_ns - s->last_fault_ts;

			s->gap_hist[log2_slot(gap)]++;
			s->gap_n++;
			add(s, &s->gap_sum, gap);
			if (gap > s->gap_max)
				s->gap_max = gap;
		}
		if (e->ts_ns)
			s->last_fault_ts = e->ts_ns;
		r = range_get(s, e->addr);
		if (r)
			r->faults++;
		if (gpu_row(s, e->gpu))
			add(s, e->gpu < GPUCTL_MAX_GPUS ? &s->gpu_faults[e->gpu] : &s->beyond_faults, 1);
		break;
	case GT_EV_MIGRATION:
		if ((e->flags & (GT_F_TO_GPU | GT_F_TO_CPU)) && gpu_row(s, e->gpu)) {
			bool in = e->flags & GT_F_TO_GPU, row = e->gpu < GPUCTL_MAX_GPUS;

			add(s, in ? (row ? &s->gpu_bytes_in[e->gpu] : &s->beyond_bytes_in) :
				    (row ? &s->gpu_bytes_out[e->gpu] : &s->beyond_bytes_out), e->bytes);
		}
		add(s, &s->mig_bytes[e->cause < GT_CAUSE_MAX ? e->cause : 0], e->bytes);
		if (e->flags & GT_F_TO_GPU)
			add(s, &s->bytes_to_gpu, e->bytes);
		if (e->flags & GT_F_TO_CPU)
			add(s, &s->bytes_to_cpu, e->bytes);
		if (e->cause == GT_CAUSE_EVICTION)
			add(s, &s->evict_bytes, e->bytes);
		if (e->flags & GT_F_TO_GPU) {
			r = range_get(s, e->addr);
			if (r)
				add(s, &r->bytes, e->bytes);
		}
		break;
	case GT_EV_EVICTION:
		if (!(e->flags & GT_F_TO_CPU))	/* not counted by a migration */
			add(s, &s->evict_bytes, e->bytes);
		break;
	case GT_EV_TSG:
	case GT_EV_TSG_FREE:
	case GT_EV_TSG_SET:
		tsg_add(s, e);
		break;
	case GT_EV_BATCH:
		add(s, &s->batch_faults, e->count);
		if (e->latency_ns) {
			s->lat_hist[log2_slot(e->latency_ns)]++;
			s->lat_n++;
			add(s, &s->lat_sum, e->latency_ns);
			if (e->latency_ns > s->lat_max)
				s->lat_max = e->latency_ns;
		}
		break;
	default:
		break;
	}
}

static const char *sort_key;

static int range_cmp(const void *a, const void *b)
{
	const struct ts_range *x = a, *y = b;
	uint64_t kx, ky;

	if (!strcmp(sort_key, "address")) {
		return x->block < y->block ? -1 : x->block > y->block;
	}
	if (!strcmp(sort_key, "bytes")) {
		kx = x->bytes;
		ky = y->bytes;
	} else {
		kx = x->faults;
		ky = y->faults;
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->block < y->block ? -1 : x->block > y->block;
}

static void hist_text(FILE *out, const char *title, const uint64_t *h, uint64_t n, uint64_t sum,
		      uint64_t max)
{
	uint64_t peak = 0;
	int lo = -1, hi = -1;

	for (int i = 0; i < TS_HIST_SLOTS; i++) {
		if (!h[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (h[i] > peak)
			peak = h[i];
	}
	char mean[UNITS_BUF], top[UNITS_BUF];

	fprintf(out, "\n%s: %llu samples, mean %s, max %s\n", title, (unsigned long long)n,
		units_fmt_duration(n ? sum / n : 0, UNITS_HUMAN, mean, sizeof(mean)),
		units_fmt_duration(max, UNITS_HUMAN, top, sizeof(top)));
	if (lo < 0)
		return;
	fprintf(out, "     %-24s : %-10s |%-40s|\n", "ns", "count", "distribution");
	for (int i = lo; i <= hi; i++) {
		unsigned long long a = i ? 1ull << i : 0, b = (2ull << i) - 1;
		char range[48], bar[41];
		int w = peak ? (int)(h[i] * 40 / peak) : 0;

		snprintf(range, sizeof(range), "%llu -> %llu", a, b);
		memset(bar, '*', w);
		bar[w] = '\0';
		fprintf(out, "     %-24s : %-10llu |%-40s|\n", range, (unsigned long long)h[i], bar);
	}
}

static void hist_json(const char *name, const char *unit, const uint64_t *h, uint64_t n,
		      uint64_t sum, uint64_t max)
{
	jsonw_name(json_wtr, name);
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "unit", unit);
	jsonw_uint_field(json_wtr, "samples", n);
	jsonw_uint_field(json_wtr, "sum_ns", sum);
	jsonw_uint_field(json_wtr, "max_ns", max);
	jsonw_name(json_wtr, "log2");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < TS_HIST_SLOTS; i++) {
		if (!h[i])
			continue;
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "low", i ? 1ull << i : 0);
		jsonw_uint_field(json_wtr, "high", (2ull << i) - 1);
		jsonw_uint_field(json_wtr, "count", h[i]);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_end_object(json_wtr);
}

static bool has_tsgs(const struct trace_summary *s)
{
	return s->tsg_only || s->count[GT_EV_TSG] || s->count[GT_EV_TSG_FREE] ||
	       s->count[GT_EV_TSG_SET];
}

static void tsg_json(const struct trace_summary *s)
{
	jsonw_name(json_wtr, "tsgs");
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "created", s->count[GT_EV_TSG]);
	jsonw_uint_field(json_wtr, "freed", s->count[GT_EV_TSG_FREE]);
	jsonw_uint_field(json_wtr, "settings", s->count[GT_EV_TSG_SET]);
	jsonw_name(json_wtr, "processes");
	jsonw_start_array(json_wtr);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct ts_proc *p = &s->procs[i];

		if (!p->created && !p->freed && !p->settings)
			continue;	/* named (a record's table), no TSG event */
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "pid", p->pid);
		jsonw_string_field(json_wtr, "comm", p->comm[0] ? p->comm : NULL);
		jsonw_uint_field(json_wtr, "created", p->created);
		jsonw_uint_field(json_wtr, "freed", p->freed);
		jsonw_uint_field(json_wtr, "settings", p->settings);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	jsonw_end_object(json_wtr);
}

static void tsg_text(const struct trace_summary *s, FILE *out)
{
	fprintf(out, "  %-22s %14llu\n", "tsgs created", (unsigned long long)s->count[GT_EV_TSG]);
	fprintf(out, "  %-22s %14llu\n", "tsgs freed", (unsigned long long)s->count[GT_EV_TSG_FREE]);
	fprintf(out, "  %-22s %14llu\n", "tsg settings", (unsigned long long)s->count[GT_EV_TSG_SET]);
}

static void tsg_procs_text(const struct trace_summary *s, FILE *out)
{
	if (!s->nprocs)
		return;
	fprintf(out, "\nTSGs per process\n");
	fprintf(out, "  %-8s %-16s %10s %10s %10s\n", "PID", "COMM", "CREATED", "FREED",
		"SETTINGS");
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct ts_proc *p = &s->procs[i];
		char comm[4 * sizeof(p->comm)];

		if (!p->created && !p->freed && !p->settings)
			continue;	/* named (a record's table), no TSG event */
		str_printable(comm, sizeof(comm), p->comm, sizeof(p->comm));
		fprintf(out, "  %-8u %-16s %10llu %10llu %10llu\n", p->pid,
			comm[0] ? comm : "-", (unsigned long long)p->created,
			(unsigned long long)p->freed, (unsigned long long)p->settings);
	}
}

/* The hot ranges, in sort order, at most top of them; *n how many (NULL: none). */
static struct ts_range *hot_ranges(const struct trace_summary *s, const char *sort,
				   unsigned int top, size_t *n)
{
	struct ts_range *sorted = NULL;

	*n = 0;
	sort_key = sort ? sort : "faults";
	if (!s->nranges)
		return NULL;
	sorted = malloc(s->nranges * sizeof(*sorted));
	if (!sorted)
		return NULL;
	for (size_t i = 0; i < s->cap; i++)
		if (s->ranges[i].block)
			sorted[(*n)++] = s->ranges[i];
	qsort(sorted, *n, sizeof(*sorted), range_cmp);
	if (*n > top)
		*n = top;
	return sorted;
}

/* A fixed-size field of a record's header as a string: NULL when empty. */
static void header_string(const char *name, const char *field, size_t len)
{
	char buf[GT_HOST_LEN + 1];
	size_t n = strnlen(field, len < GT_HOST_LEN ? len : GT_HOST_LEN);

	memcpy(buf, field, n);
	buf[n] = '\0';
	jsonw_string_field(json_wtr, name, n ? buf : NULL);
}

/* "records": each record's header, as report's text prints it in its record: line. */
static void records_json(const struct trace_summary *s)
{
	json_writer_t *w = json_wtr;

	jsonw_name(w, "records");
	jsonw_start_array(w);
	for (int k = 0; k < s->nhdrs; k++) {
		const struct gt_file_header *h = &s->hdrs[k];
		time_t secs = (time_t)(h->start_realtime_ns / 1000000000ull);
		char when[32];
		struct tm tm;

		jsonw_start_object(w);
		jsonw_uint_field(w, "version", h->version);
		header_string("host", h->host, sizeof(h->host));
		header_string("driver", h->driver, sizeof(h->driver));
		header_string("backend", h->backend, sizeof(h->backend));
		header_string("events", h->what, sizeof(h->what));
		if (h->target_pid)
			jsonw_uint_field(w, "pid", h->target_pid);
		else
			jsonw_null_field(w, "pid");	/* system-wide */
		jsonw_u64_field(w, "start_realtime_ns", h->start_realtime_ns);
		if (gmtime_r(&secs, &tm) && strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
			jsonw_string_field(w, "started", when);
		else
			jsonw_null_field(w, "started");
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void summary_json(const struct trace_summary *s, const struct ts_range *hot, size_t n)
{
	json_writer_t *w = json_wtr;

	jsonw_start_object(w);
	if (s->hdrs)
		records_json(s);
	jsonw_name(w, "summary");
	jsonw_start_object(w);
	jsonw_float_field(w, "duration_s",
			  s->last_ts > s->first_ts ? (s->last_ts - s->first_ts) / 1e9 : 0);
	jsonw_name(w, "counts");
	jsonw_start_object(w);
	for (int t = 1; t < GT_EV_MAX; t++)
		if (t != GT_EV_LOST && t != GT_EV_META)
			jsonw_uint_field(w, gt_type_name(t), s->count[t]);
	jsonw_uint_field(w, "duplicates", s->duplicates);
	jsonw_uint_field(w, "lost", s->lost);
	jsonw_end_object(w);
	jsonw_name(w, "bytes");
	jsonw_start_object(w);
	jsonw_uint_field(w, "to_gpu", s->bytes_to_gpu);
	jsonw_uint_field(w, "to_cpu", s->bytes_to_cpu);
	for (int c = 1; c < GT_CAUSE_MAX; c++)
		jsonw_uint_field(w, gt_cause_name(c), s->mig_bytes[c]);
	jsonw_uint_field(w, "evicted", s->evict_bytes);
	jsonw_end_object(w);
	if (has_tsgs(s))
		tsg_json(s);
	if (s->lat_n)
		hist_json("batch_latency", "ns", s->lat_hist, s->lat_n, s->lat_sum, s->lat_max);
	else
		hist_json("fault_gap", "ns", s->gap_hist, s->gap_n, s->gap_sum, s->gap_max);
	jsonw_name(w, "hot_ranges");
	jsonw_start_array(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_start_object(w);
		jsonw_stringf_field(w, "start", "0x%llx",
				    (unsigned long long)((hot[i].block - 1) << TS_RANGE_SHIFT));
		jsonw_uint_field(w, "size", 1ull << TS_RANGE_SHIFT);
		jsonw_uint_field(w, "faults", hot[i].faults);
		jsonw_uint_field(w, "bytes_in", hot[i].bytes);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	if (s->saturated)
		jsonw_bool_field(w, "saturated", true);
	jsonw_name(w, "by_gpu");
	jsonw_start_array(w);
	for (int g = 0; g < GPUCTL_MAX_GPUS; g++) {
		if (!s->gpu_seen[g])
			continue;
		jsonw_start_object(w);
		jsonw_uint_field(w, "gpu", g);
		jsonw_uint_field(w, "gpu_faults", s->gpu_faults[g]);
		jsonw_uint_field(w, "bytes_to_gpu", s->gpu_bytes_in[g]);
		jsonw_uint_field(w, "bytes_to_cpu", s->gpu_bytes_out[g]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	if (s->beyond_gpus_max) {
		/* GPUs past the table: together, said (never left out silently) */
		jsonw_name(w, "by_gpu_beyond");
		jsonw_start_object(w);
		jsonw_uint_field(w, "gpus_from", GPUCTL_MAX_GPUS);
		jsonw_uint_field(w, "gpus_to", s->beyond_gpus_max - 1);
		jsonw_uint_field(w, "gpu_faults", s->beyond_faults);
		jsonw_uint_field(w, "bytes_to_gpu", s->beyond_bytes_in);
		jsonw_uint_field(w, "bytes_to_cpu", s->beyond_bytes_out);
		jsonw_end_object(w);
	}
	jsonw_end_object(w);
	jsonw_end_object(w);
}

/* Human units for text: "1.0 MiB", "70 us" (-j keeps the exact numbers). */
#define HS(v) units_fmt_size((v), UNITS_HUMAN, (char[UNITS_BUF]){ 0 }, UNITS_BUF)

static void summary_text(const struct trace_summary *s, const struct ts_range *hot, size_t n,
			 FILE *out)
{
	char span[UNITS_BUF];

	fprintf(out, "\nsummary: %s of events\n", units_fmt_duration(
		s->last_ts > s->first_ts ? s->last_ts - s->first_ts : 0, UNITS_HUMAN, span,
		sizeof(span)));
	if (s->tsg_only) {
		tsg_text(s, out);
		fprintf(out, "  %-22s %14llu\n", "lost events", (unsigned long long)s->lost);
		tsg_procs_text(s, out);
		return;
	}
	fprintf(out, "  %-22s %14llu  (%llu duplicates)\n", "gpu faults",
		(unsigned long long)s->count[GT_EV_GPU_FAULT], (unsigned long long)s->duplicates);
	fprintf(out, "  %-22s %14llu\n", "cpu faults", (unsigned long long)s->count[GT_EV_CPU_FAULT]);
	fprintf(out, "  %-22s %14llu  (%llu faults)\n", "fault batches",
		(unsigned long long)s->count[GT_EV_BATCH], (unsigned long long)s->batch_faults);
	fprintf(out, "  %-22s %14llu\n", "replays", (unsigned long long)s->count[GT_EV_REPLAY]);
	fprintf(out, "  %-22s %14llu  (%s to gpu, %s to cpu)\n", "migrations",
		(unsigned long long)s->count[GT_EV_MIGRATION], HS(s->bytes_to_gpu),
		HS(s->bytes_to_cpu));
	for (int c = 1; c < GT_CAUSE_MAX; c++)
		if (s->mig_bytes[c])
			fprintf(out, "    %-20s %14s\n", gt_cause_name(c), HS(s->mig_bytes[c]));
	fprintf(out, "  %-22s %14llu  (%s)\n", "evictions",
		(unsigned long long)s->count[GT_EV_EVICTION], HS(s->evict_bytes));
	if (s->count[GT_EV_THRASHING])
		fprintf(out, "  %-22s %14llu\n", "thrashing",
			(unsigned long long)s->count[GT_EV_THRASHING]);
	fprintf(out, "  %-22s %14llu\n", "lost events", (unsigned long long)s->lost);
	if (s->saturated)
		fprintf(out, "  (some totals reached 2^64-1 and stopped there)\n");
	if (has_tsgs(s)) {
		tsg_text(s, out);
		tsg_procs_text(s, out);
	}
	if (s->lat_n)
		hist_text(out, "batch service latency", s->lat_hist, s->lat_n, s->lat_sum, s->lat_max);
	else if (s->gap_n)
		hist_text(out, "gaps between faults", s->gap_hist, s->gap_n, s->gap_sum, s->gap_max);
	if (s->gpus_seen) {
		fprintf(out, "\nper GPU\n  %-4s %14s %16s %16s\n", "GPU", "gpu_faults", "bytes_to_gpu",
			"bytes_to_cpu");
		for (int g = 0; g < GPUCTL_MAX_GPUS; g++)
			if (s->gpu_seen[g])
				fprintf(out, "  %-4d %14llu %16s %16s\n", g,
					(unsigned long long)s->gpu_faults[g],
					HS(s->gpu_bytes_in[g]), HS(s->gpu_bytes_out[g]));
		if (s->beyond_gpus_max)
			fprintf(out, "  %d-%u %11llu %16s %16s  (GPUs past gpuctl's %d, together)\n",
				GPUCTL_MAX_GPUS, s->beyond_gpus_max - 1,
				(unsigned long long)s->beyond_faults, HS(s->beyond_bytes_in),
				HS(s->beyond_bytes_out), GPUCTL_MAX_GPUS);
	}
	if (!n)
		return;
	fprintf(out, "\nhottest 2 MiB ranges (by %s)\n", sort_key);
	fprintf(out, "  %-20s %12s %14s\n", "start", "faults", "bytes in");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  0x%-18llx %12llu %14s\n",
			(unsigned long long)((hot[i].block - 1) << TS_RANGE_SHIFT),
			(unsigned long long)hot[i].faults, HS(hot[i].bytes));
}

void ts_print(const struct trace_summary *s, const char *sort, unsigned int top, FILE *out)
{
	size_t n;
	struct ts_range *hot = hot_ranges(s, sort, top, &n);

	if (json_output)
		summary_json(s, hot, n);
	else
		summary_text(s, hot, n, out);
	free(hot);
}
