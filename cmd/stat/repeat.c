// SPDX-License-Identifier: GPL-2.0
/*
 * repeat.c - gpuctl stat -r N: the command run N times, each run's totals
 * kept, then the mean of every counter with its spread, as perf stat -r
 * prints them.  The spread is the standard deviation of the mean
 * (sample standard deviation / sqrt(runs)) in percent of the mean: how far
 * the mean itself may be off, perf's "( +- x% )".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "stat.h"

int stat_runs_init(struct stat_runs *r, unsigned int asked)
{
	memset(r, 0, sizeof(*r));
	r->run = calloc(asked, sizeof(*r->run));
	if (!r->run) {
		p_err("out of memory");
		return -1;
	}
	r->asked = asked;
	return 0;
}

void stat_runs_add(struct stat_runs *r, const struct tb_counters *c, double elapsed,
		   int cmd_status)
{
	struct stat_run *k;

	if (r->n >= r->asked)
		return;
	k = &r->run[r->n++];
	memcpy(k->have, c->have, sizeof(k->have));
	memcpy(k->total, c->total, sizeof(k->total));
	k->elapsed = elapsed;
	k->cmd_status = cmd_status;
}

void stat_runs_free(struct stat_runs *r)
{
	free(r->run);
	r->run = NULL;
	r->n = r->asked = 0;
}

/* Mean, sample standard deviation, and the spread in percent, of n values. */
struct spread {
	double mean, sd, pct;
	bool have;		/* every run counted it */
};

static struct spread spread_of(const struct stat_runs *r, int row)
{
	struct spread s = { .have = r->n > 0 };
	double sum = 0, sq = 0;

	for (unsigned int k = 0; k < r->n; k++) {
		double v = row < 0 ? r->run[k].elapsed : (double)r->run[k].total[row];

		if (row >= 0 && !r->run[k].have[row])
			s.have = false;
		sum += v;
	}
	if (!s.have)
		return s;
	s.mean = sum / r->n;
	for (unsigned int k = 0; k < r->n; k++) {
		double v = row < 0 ? r->run[k].elapsed : (double)r->run[k].total[row];

		sq += (v - s.mean) * (v - s.mean);
	}
	s.sd = r->n > 1 ? sqrt(sq / (r->n - 1)) : 0;
	s.pct = s.mean > 0 ? s.sd / sqrt(r->n) / s.mean * 100 : 0;
	return s;
}

static void runs_json(const struct stat_out *so, const struct stat_runs *r)
{
	json_writer_t *w = so->w;
	struct spread el = spread_of(r, -1);
	const char *part[] = { "counters", "stddev", "spread_pct" };

	jsonw_start_object(w);
	jsonw_string_field(w, "target", so->target);
	jsonw_string_field(w, "backend", so->backend);
	jsonw_uint_field(w, "runs", r->n);
	jsonw_uint_field(w, "runs_asked", r->asked);
	for (int p = 0; p < 3; p++) {
		jsonw_name(w, part[p]);
		jsonw_start_object(w);
		for (int i = 0; i < TC_NR; i++) {
			struct spread s = spread_of(r, i);

			if (!s.have)
				jsonw_null_field(w, stat_rows[i].name);
			else
				jsonw_float_field(w, stat_rows[i].name, p == 0 ? s.mean :
						  p == 1 ? s.sd : s.pct);
		}
		jsonw_end_object(w);
	}
	jsonw_float_field(w, "elapsed_s", el.mean);
	jsonw_float_field(w, "elapsed_stddev_s", el.sd);
	jsonw_float_field(w, "elapsed_spread_pct", el.pct);
	jsonw_name(w, "per_run");
	jsonw_start_array(w);
	for (unsigned int k = 0; k < r->n; k++) {
		jsonw_start_object(w);
		jsonw_name(w, "counters");
		jsonw_start_object(w);
		for (int i = 0; i < TC_NR; i++) {
			if (r->run[k].have[i])
				jsonw_u64_field(w, stat_rows[i].name, r->run[k].total[i]);
			else
				jsonw_null_field(w, stat_rows[i].name);
		}
		jsonw_end_object(w);
		jsonw_float_field(w, "elapsed_s", r->run[k].elapsed);
		jsonw_int_field(w, "command_status", r->run[k].cmd_status);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	/* the last run's: the one that ended the repetition when it failed */
	jsonw_int_field(w, "command_status", r->n ? r->run[r->n - 1].cmd_status : 0);
	jsonw_end_object(w);
}

void stat_runs_print(const struct stat_out *so, const struct stat_runs *r)
{
	struct spread el = spread_of(r, -1);
	FILE *f = so->f;

	if (json_output) {
		runs_json(so, r);
		return;
	}
	if (!so->sep) {
		fprintf(f, "\n Performance counter stats for %s (%u run%s", so->target, r->n,
			r->n == 1 ? "" : "s");
		if (r->n < r->asked)
			fprintf(f, " of %u", r->asked);
		fprintf(f, ", backend %s):\n\n", so->backend);
	}
	for (int i = 0; i < TC_NR; i++) {
		struct spread s = spread_of(r, i);
		uint64_t mean = s.mean >= 18446744073709551615.0 ? UINT64_MAX :
				(uint64_t)(s.mean + 0.5);
		char v[40];

		if (so->sep) {
			if (s.have)
				fprintf(f, "%.2f%s%s%s%s%s%.2f%%\n", s.mean, so->sep, stat_rows[i].unit,
					so->sep, stat_rows[i].name, so->sep, s.pct);
			else
				fprintf(f, "<not supported>%s%s%s%s%s\n", so->sep, stat_rows[i].unit,
					so->sep, stat_rows[i].name, so->sep);
			continue;
		}
		if (s.have)
			stat_commas(v, sizeof(v), mean);
		else
			snprintf(v, sizeof(v), "<not supported>");
		fprintf(f, "%20s %-3s %-22s # %s%s", v, stat_rows[i].unit, stat_rows[i].name,
			stat_rows[i].what, s.have ? stat_human(stat_rows[i].unit, mean) : "");
		if (s.have)
			fprintf(f, "  ( +- %5.2f%% )", s.pct);
		fprintf(f, "\n");
	}
	if (so->sep) {
		fprintf(f, "%.6f%ss%selapsed%s%.2f%%\n", el.mean, so->sep, so->sep, so->sep, el.pct);
		return;
	}
	fprintf(f, "\n %14.6f +- %.6f seconds time elapsed  ( +- %5.2f%% )\n\n", el.mean,
		r->n ? el.sd / sqrt(r->n) : 0, el.pct);
}
