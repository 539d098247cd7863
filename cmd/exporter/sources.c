// SPDX-License-Identifier: GPL-2.0
/*
 * sources.c - the exporter's BPF sources, read per scrape: the pinned TSG
 * watcher (cmd/tsgw/) and the loaded policies (cmd/policy/).  Their maps
 * are opened for the scrape and closed after it, so an unloaded watcher or
 * policy is not kept alive by the exporter; a missing one is a reason in
 * gpuctl_exporter_source_up, never an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "exporter/exporter.h"
#include "exporter/om.h"
#include "policy/policy.h"
#include "policy/kinds.h"
#include "tsgw/tsgw.h"

const char *const exp_src_names[SRC_NR] = {
	[SRC_UVM_TOOLS] = "uvm_tools",
	[SRC_SCHED_WATCHER] = "sched_watcher",
	[SRC_POLICIES] = "policies",
};

const char *const exp_src_state_names[SS_NR] = {
	[SS_OK] = "ok",
	[SS_NO_DRIVER] = "no_driver",
	[SS_BPFFS_ABSENT] = "bpffs_absent",
	[SS_NOT_RUNNING] = "not_running",
	[SS_OTHER_VERSION] = "other_version",
	[SS_ERROR] = "error",
};

struct tsg_rows {
	struct tsg *v;
	const struct gpu_info **g;	/* each TSG's GPU (NULL: unknown) */
	struct cg_attr *cg;		/* each TSG's process's cgroup attribution */
	int n, dropped;
};

static enum tsg_walk tsg_keep(const struct tsg_key *key, const struct tsg_info *info, void *arg)
{
	struct tsg_rows *r = arg;

	/* the watcher drops a process's TSGs when it frees them; a killed one leaves them */
	if (tsg_proc_gone(info->pid))
		return TSG_KEEP;
	if (r->n == EXP_MAX_TSGS) {
		r->dropped++;
		return TSG_KEEP;
	}
	r->v[r->n].key = *key;
	r->v[r->n++].info = *info;
	return TSG_KEEP;
}

static void tsg_labels(FILE *f, const struct exporter *e, const struct tsg_rows *r, int i)
{
	const struct tsg *t = &r->v[i];
	const struct gpu_info *g = r->g[i];
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", t->info.pid);
	om_label(f, "pid", buf, true);
	om_label(f, "comm", t->info.comm, false);
	exp_attr_labels(f, e, &r->cg[i]);
	snprintf(buf, sizeof(buf), "%u", t->info.id);
	om_label(f, "tsg", buf, false);
	if (g)
		exp_gpu_labels(f, g, false);
}

/*
 * What the watcher knows of a TSG's timeslice and interleave level: what
 * its process set itself last, else what the policy decided; RM's own
 * default (never told to anyone) is left out.
 */
static uint64_t tsg_timeslice(const struct tsg_info *i)
{
	return i->app_timeslice ? i->app_timeslice : i->want_timeslice;
}

static uint32_t tsg_level1(const struct tsg_info *i)
{
	if (i->set_interleave)
		return i->set_interleave;
	return i->app_interleave ? i->app_interleave : i->want_interleave;
}

static void write_tsg_rows(FILE *f, const struct exporter *e, const struct tsg_rows *r)
{
	om_family(f, "gpuctl_tsg_info", "gauge",
		  "A time-slice group the sched watcher recorded, with its policy class.");
	for (int i = 0; i < r->n; i++) {
		fputs("gpuctl_tsg_info{", f);
		tsg_labels(f, e, r, i);
		om_label(f, "class", r->v[i].info.want_class ?
			 policy_class_name(r->v[i].info.want_class) : "none", false);
		fputs("} 1\n", f);
	}
	/* RM counts in microseconds; the exposition's base unit is the second */
	om_family(f, "gpuctl_tsg_timeslice_seconds", "gauge",
		  "Timeslice last set on the TSG, by its process or by the policy.");
	for (int i = 0; i < r->n; i++) {
		uint64_t ts = tsg_timeslice(&r->v[i].info);

		if (!ts)
			continue;
		fputs("gpuctl_tsg_timeslice_seconds{", f);
		tsg_labels(f, e, r, i);
		fprintf(f, "} %llu.%06llu\n", (unsigned long long)(ts / 1000000),
			(unsigned long long)(ts % 1000000));
	}
	om_family(f, "gpuctl_tsg_interleave_level", "gauge",
		  "Interleave level last set on the TSG (0 low, 1 medium, 2 high).");
	for (int i = 0; i < r->n; i++) {
		uint32_t l1 = tsg_level1(&r->v[i].info);

		if (!l1)
			continue;
		fputs("gpuctl_tsg_interleave_level{", f);
		tsg_labels(f, e, r, i);
		fputs("} ", f);
		om_u64(f, l1 - 1);
	}
}

static void write_watcher_stats(FILE *f, const struct watcher *w, int dropped)
{
	om_family(f, "gpuctl_sched_watcher_events_total", "counter",
		  "Events the TSG watcher counted since it was pinned.");
	for (__u32 i = 0; i < STAT_NR; i++) {
		__u64 v = 0;

		if (bpf_map_lookup_elem(w->stats, &i, &v))
			continue;
		fputs("gpuctl_sched_watcher_events_total{", f);
		om_label(f, "event", tsgw_stat_names[i], true);
		fputs("} ", f);
		om_u64(f, v);
	}
	om_family(f, "gpuctl_tsg_series_dropped", "gauge",
		  "TSGs left out of this scrape: more than the exporter's bound.");
	fprintf(f, "gpuctl_tsg_series_dropped %d\n", dropped);
}

/* lc-be's ledger (cmd/sched/share.c), per GPU and BE process. */
static void write_be_share(FILE *f, const struct exporter *e)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
		{ "gpuctl_sched_be_share_ratio",
		  "Share of its GPU a BE process keeps while an LC is busy (lc-be's ledger)." },
		{ "gpuctl_sched_be_floor_ratio", "Share lc-be's be-floor promises the BE process." },
		{ "gpuctl_sched_be_longest_stall_seconds",
		  "Longest time the BE process was held off the GPU (off the runlist, plus "
		  "the timeslices it waits for when on)." },
		{ "gpuctl_sched_be_floor_kept",
		  "1 when the BE process's floor and stall bound are kept, 0 when not." },
	};
	struct gate_share sh;
	char buf[16];

	if (share_file_read(&sh) || !sh.pid || kill(sh.pid, 0))
		return;
	for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		om_family(f, fam[k].name, "gauge", fam[k].help);
		for (int i = 0; i < sh.n; i++) {
			const struct gate_share_row *r = &sh.rows[i];
			double v = k == 0 ? r->share_pct / 100 : k == 1 ? r->floor_pct / 100 :
				   k == 2 ? r->stall_ms / 1000 : (r->kept && r->stall_kept);

			fprintf(f, "%s{", fam[k].name);
			snprintf(buf, sizeof(buf), "%u", r->gpu);
			om_label(f, "gpu", buf, true);
			snprintf(buf, sizeof(buf), "%u", r->pid);
			om_label(f, "pid", buf, false);
			om_label(f, "comm", r->comm, false);
			exp_attr_pid_labels(f, e, r->pid);
			fprintf(f, "} %.6g\n", v);
		}
	}
}

void exp_write_tsgs(struct exporter *e, FILE *f)
{
	struct watcher w = WATCHER_INIT;
	struct tsg_rows r = { 0 };
	char dir[PATH_MAX];
	int err;

	err = pin_dir(SCHED_OBJECT, false, dir, sizeof(dir));
	if (!err)
		err = watcher_open(dir, &w);
	if (err) {
		e->src[SRC_SCHED_WATCHER] = !bpffs_mounted() ? SS_BPFFS_ABSENT :
					    err == -ENOENT ? SS_NOT_RUNNING :
					    err == -EPROTO ? SS_OTHER_VERSION : SS_ERROR;
		return;
	}
	r.v = calloc(EXP_MAX_TSGS, sizeof(*r.v));
	r.g = calloc(EXP_MAX_TSGS, sizeof(*r.g));
	r.cg = calloc(EXP_MAX_TSGS, sizeof(*r.cg));
	if (!r.v || !r.g || !r.cg || tsg_table_walk(w.tsgs, tsg_keep, &r)) {
		e->src[SRC_SCHED_WATCHER] = SS_ERROR;
	} else {
		/* each TSG's GPU, through its process's RM file (remembered after) */
		for (int i = 0; i < r.n && e->ngpus > 0; i++)
			r.g[i] = tsgw_gpu_of(&r.v[i].info);
		for (int i = 0; i < r.n; i++)
			exp_attr_of(e, r.v[i].info.pid, &r.cg[i]);
		e->src[SRC_SCHED_WATCHER] = SS_OK;
		write_tsg_rows(f, e, &r);
		write_be_share(f, e);
		write_watcher_stats(f, &w, r.dropped);
	}
	free(r.v);
	free(r.g);
	free(r.cg);
	watcher_close(&w);
}

static void write_policy(FILE *f, const struct policy_snap *s)
{
	char buf[32];

	fputs("gpuctl_policy_info{", f);
	om_label(f, "object", s->object, true);
	om_label(f, "policy", s->name, false);
	om_label(f, "source", s->source, false);
	snprintf(buf, sizeof(buf), "%u", s->map_id);
	om_label(f, "map_id", buf, false);
	fputs("} 1\n", f);
}

void exp_write_policies(struct exporter *e, FILE *f)
{
	const struct policy_kind *const *kinds;
	struct policy_snap snap[8];
	int n = policy_kinds(&kinds), ok = 0, bad = 0, loaded = 0;

	if (n > 8)
		n = 8;
	if (!bpffs_mounted()) {
		e->src[SRC_POLICIES] = SS_BPFFS_ABSENT;
		return;
	}
	for (int i = 0; i < n; i++) {
		if (policy_snapshot(kinds[i], &snap[i])) {
			snap[i].loaded = false;
			bad++;
			continue;
		}
		ok++;
		loaded += snap[i].loaded;
	}
	e->src[SRC_POLICIES] = bad ? SS_ERROR : loaded ? SS_OK : SS_NOT_RUNNING;
	om_family(f, "gpuctl_policy_info", "gauge",
		  "The struct_ops policy attached for each object (prefetch, evict, replay).");
	for (int i = 0; i < n; i++)
		if (snap[i].loaded)
			write_policy(f, &snap[i]);
	om_family(f, "gpuctl_policy_loaded_timestamp_seconds", "gauge",
		  "When the attached policy was loaded (unix time).");
	for (int i = 0; i < n; i++) {
		if (!snap[i].loaded || !snap[i].loaded_at)
			continue;
		fputs("gpuctl_policy_loaded_timestamp_seconds{", f);
		om_label(f, "object", snap[i].object, true);
		om_label(f, "policy", snap[i].name, false);
		fputs("} ", f);
		om_u64(f, snap[i].loaded_at);
	}
	om_family(f, "gpuctl_policy_decisions_total", "counter",
		  "The attached policy's counters (gpuctl OBJECT show), summed over CPUs.");
	for (int i = 0; i < n; i++) {
		for (int j = 0; snap[i].loaded && j < snap[i].nstats; j++) {
			fputs("gpuctl_policy_decisions_total{", f);
			om_label(f, "object", snap[i].object, true);
			om_label(f, "policy", snap[i].name, false);
			om_label(f, "counter", snap[i].stats[j].name, false);
			fputs("} ", f);
			om_u64(f, snap[i].stats[j].value);
		}
	}
	(void)ok;
}
