// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - an engine's counters: its own (pfe_ctr_names), the program's
 * (by BTF name) and bytes by GPU, in the stats file `prefetch show` reads
 * (written safely, once a second), in -j and in the closing report: taken
 * when the engine stops (stats_take), printed once the command's exit
 * status is known (stats_print): text on stderr, as perf stat's (the
 * command's own output keeps stdout), or one JSON document on stdout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine_priv.h"
#include "json_writer.h"
#include "safefile.h"
#include "units.h"

static const struct uvm_uuid zero_uuid;

static uint64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static void update_ctrs(struct engine *g)
{
	g->run.ctr[PFE_C_CPU_US] = cpu_us();
	g->run.ctr[PFE_C_MAPS_READS] = g->al.reads;
	g->run.ctr[PFE_C_SERVED] = g->al.served;
	g->run.ctr[PFE_C_MISSED] = g->al.missed;
	g->run.ctr[PFE_C_AGE_P50] = allocs_age_us(&g->al, 50);
	g->run.ctr[PFE_C_AGE_P99] = allocs_age_us(&g->al, 99);
	if (g->s.counters && g->ctr_on) {
		g->run.ctr[PFE_C_DRV_FAULTS] = g->s.counters[UT_CTR_GPU_FAULTS];
		g->run.ctr[PFE_C_DRV_HTOD] = g->s.counters[UT_CTR_BYTES_HTOD];
	}
}

/* Each counter: the engine's, the program's (by BTF name), bytes by GPU. */
static void each_ctr(struct engine *g, void (*fn)(const char *name, uint64_t v, void *arg), void *arg)
{
	char name[64];

	for (int i = 0; i < PFE_C_MAX; i++)
		if (g->ctr_on || (i != PFE_C_DRV_FAULTS && i != PFE_C_DRV_HTOD))	/* none: not counted */
			fn(pfe_ctr_names[i], g->run.ctr[i], arg);
	fn("prog_us", g->run.ctr[PFE_C_RUN_NS] / 1000, arg);
	for (int i = 0; i < g->run.nctrs; i++)
		fn(g->run.ctr_name[i], *g->run.cv[i], arg);
	for (int i = 0; i < g->ngpus; i++) {
		if (!memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
			continue;
		snprintf(name, sizeof(name), "migrated_bytes.gpu%d", i);
		fn(name, g->gpu_bytes[i], arg);
	}
}

static void ctr_file(const char *name, uint64_t v, void *arg)
{
	fprintf(arg, "%s %llu\n", name, (unsigned long long)v);
}

static void ctr_snap(const char *name, uint64_t v, void *arg)
{
	struct stats_snap *sn = arg;

	if (sn->n >= STATS_SNAP_MAX)
		return;
	snprintf(sn->name[sn->n], sizeof(sn->name[0]), "%s", name);
	sn->v[sn->n++] = v;
}

const char *stats_human(const char *name, uint64_t v, char *buf, size_t len)
{
	size_t n = strlen(name);
	const char *dot = strrchr(name, '.');

	if (strstr(name, "_bytes") && (!dot || !strncmp(dot, ".gpu", 4)))
		return units_fmt_size(v, UNITS_HUMAN, buf, len);
	if (n > 3 && !strcmp(name + n - 3, "_us"))
		return units_fmt_duration(v > UINT64_MAX / 1000 ? UINT64_MAX : v * 1000,
					  UNITS_HUMAN, buf, len);
	if (n > 3 && !strcmp(name + n - 3, "_ns"))
		return units_fmt_duration(v, UNITS_HUMAN, buf, len);
	return NULL;
}

void stats_write(struct engine *g)
{
	char name[48];
	const struct pfe_policy *pol = g->run.pol;
	struct safefile sf;
	FILE *f;

	update_ctrs(g);
	if (safefile_open(&sf, g->stats_path, 0644))
		return;
	f = sf.f;
	fprintf(f, "engine_pid %d\ntarget %d\npolicy %s\ngpu %s\nasync %d\nuptime_s %.1f\n",
		(int)getpid(), (int)g->w.pid, pol->name,
		g->only >= 0 ? uuid_format(&g->gpu[g->only], name, sizeof(name)) : "fault",
		g->o->async, mono_s() - g->started);
	if (g->pins[0])
		fprintf(f, "pinned %s\n", g->pins);
	for (int i = 0; i < pol->nparams; i++)
		fprintf(f, "param.%s %llu\n", pol->params[i].name,
			(unsigned long long)(g->run.pv[i] ? *g->run.pv[i] : g->run.params[i]));
	each_ctr(g, ctr_file, f);
	safefile_commit(&sf);
	g->stats_at = mono_s();
}

void stats_snap_add(struct stats_snap *sn, const char *name, uint64_t v)
{
	ctr_snap(name, v, sn);
}

static uint64_t us_between(double from, double to)
{
	return from > 0 && to > from ? (uint64_t)((to - from) * 1e6) : 0;
}

/*
 * Besides the counters, where the command's wall time goes: attach_us
 * before `seconds` (the set-up: the program's load, the command's start and
 * first GPU context, the attach); drain_us, the end of `seconds` once the
 * process's exit was seen (its last turn, the moves under way then); and
 * close_us after it (added after the snapshot).
 */
void stats_take(struct engine *g, struct stats_snap *sn)
{
	update_ctrs(g);
	sn->n = 0;
	sn->pid = g->w.pid;
	sn->seconds = mono_s() - g->started;
	snprintf(sn->policy, sizeof(sn->policy), "%s", g->run.pol->name);
	each_ctr(g, ctr_snap, sn);
	ctr_snap("attach_us", us_between(g->begun, g->started), sn);
	if (g->gone_at > 0)
		ctr_snap("drain_us", us_between(g->gone_at, g->drained_at), sn);
	memcpy(sn->age, g->al.age, sizeof(sn->age));
}

/*
 * -j: the ages behind age_p50_us and age_p99_us, [least µs of a bucket,
 * allocations] for each bucket that holds any (log-linear: 32 a power of
 * two), so that a bench pools them over runs into one percentile.
 */
static void age_hist(const uint32_t *age)
{
	jsonw_name(json_wtr, "age_hist_us");
	jsonw_start_array(json_wtr);
	for (int i = 0; i < AGE_BUCKETS; i++) {
		if (!age[i])
			continue;
		jsonw_start_array(json_wtr);
		jsonw_uint(json_wtr, allocs_age_bucket_us(i));
		jsonw_uint(json_wtr, age[i]);
		jsonw_end_array(json_wtr);
	}
	jsonw_end_array(json_wtr);
}

void stats_print(const struct stats_snap *sn, int exit_status)
{
	char h[UNITS_BUF];

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", sn->pid);
		jsonw_string_field(json_wtr, "policy", sn->policy);
		jsonw_float_field(json_wtr, "seconds", sn->seconds);
		if (exit_status >= 0)
			jsonw_int_field(json_wtr, "exit_status", exit_status);
		for (int i = 0; i < sn->n; i++)
			jsonw_uint_field(json_wtr, sn->name[i], sn->v[i]);
		age_hist(sn->age);
		jsonw_end_object(json_wtr);
		return;
	}
	fprintf(stderr, "\nprefetch engine: policy %s on pid %d for %s\n", sn->policy,
		(int)sn->pid, units_fmt_duration(sn->seconds > 0 ? (uint64_t)(sn->seconds * 1e9) : 0,
						 UNITS_HUMAN, h, sizeof(h)));
	for (int i = 0; i < sn->n; i++) {
		const char *hv = stats_human(sn->name[i], sn->v[i], h, sizeof(h));

		fprintf(stderr, "  %-22s %14llu%s%s\n", sn->name[i], (unsigned long long)sn->v[i],
			hv ? "  # " : "", hv ? hv : "");
	}
	if (exit_status >= 0)
		fprintf(stderr, "  %-22s %d\n", "exit_status", exit_status);
}
