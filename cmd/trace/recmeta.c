// SPDX-License-Identifier: GPL-2.0
/* recmeta.c - the tables of a version-2 record, written as the events come (recmeta.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "gpus.h"
#include "uvm.h"
#include "record.h"
#include "recmeta.h"

#define RM_PROCS 1024		/* processes followed; later ones get a name only */
#define RM_EXTENTS 512		/* allocations followed a process */
#define RM_REREAD_S 0.1

struct rm_proc {
	uint32_t pid;
	int n;
	struct uvm_extent x[RM_EXTENTS];
	double read_at;
};

struct recmeta {
	struct rm_proc *procs, *last;
	int nprocs;
	uint32_t named[4096];	/* open addressing: pids named (+0 empty) */
	int nnamed;
	bool gpu_names;
	bool gpu_done[GPUCTL_MAX_GPUS];
	FILE *out;
	uint64_t ts;
	int err;
};

struct recmeta *recmeta_new(bool gpu_names)
{
	struct recmeta *m = calloc(1, sizeof(*m));

	if (m) {
		m->gpu_names = gpu_names;
		m->procs = calloc(RM_PROCS, sizeof(*m->procs));
	}
	if (m && !m->procs) {
		free(m);
		return NULL;
	}
	return m;
}

void recmeta_free(struct recmeta *m)
{
	if (m)
		free(m->procs);
	free(m);
}

/* true the first time pid is asked (and while the table has room). */
static bool first_sight(struct recmeta *m, uint32_t pid)
{
	size_t cap = sizeof(m->named) / sizeof(m->named[0]), i = (pid * 2654435761u) % cap;

	if (m->nnamed >= (int)cap - 1)
		return false;
	while (m->named[i]) {
		if (m->named[i] == pid)
			return false;
		i = (i + 1) % cap;
	}
	m->named[i] = pid;
	m->nnamed++;
	return true;
}

static int write_alloc(struct recmeta *m, uint8_t type, uint32_t pid, const struct uvm_extent *x)
{
	struct gt_event e = { .ts_ns = m->ts, .type = type, .pid = pid, .addr = x->start,
			      .bytes = x->end - x->start, .gpu = GT_GPU_NONE,
			      .flags = GT_F_FROM_MAPS, .src = GT_PROC_CPU, .dst = GT_PROC_CPU };

	return gt_write_event(m->out, &e);
}

struct reread {
	struct recmeta *m;
	struct rm_proc *p;
	struct uvm_extent now[RM_EXTENTS];
	int n;
};

static int take_extent(uint64_t s, uint64_t e, bool accessible, void *arg)
{
	struct reread *r = arg;

	if (accessible && r->n < RM_EXTENTS && e > s)
		r->now[r->n++] = (struct uvm_extent){ s, e };
	return 0;
}

static bool has(const struct uvm_extent *v, int n, const struct uvm_extent *x)
{
	for (int i = 0; i < n; i++)
		if (v[i].start == x->start && v[i].end == x->end)
			return true;
	return false;
}

/* Reads p's maps again: ALLOC for each new allocation, FREE for each gone. */
static int reread(struct recmeta *m, struct rm_proc *p)
{
	static struct reread r;
	int rc = 0;

	r = (struct reread){ .m = m, .p = p };
	p->read_at = mono_s();
	if (uvm_maps_each((pid_t)p->pid, take_extent, &r) < 0)
		return 0;	/* gone, or not ours to read: nothing known */
	for (int i = 0; i < p->n && !rc; i++)
		if (!has(r.now, r.n, &p->x[i]))
			rc = write_alloc(m, GT_EV_FREE, p->pid, &p->x[i]);
	for (int i = 0; i < r.n && !rc; i++)
		if (!has(p->x, p->n, &r.now[i]))
			rc = write_alloc(m, GT_EV_ALLOC, p->pid, &r.now[i]);
	memcpy(p->x, r.now, (size_t)r.n * sizeof(r.now[0]));
	p->n = r.n;
	return rc;
}

/* The process's entry: the last one asked first (faults come in runs of one process). */
static struct rm_proc *proc_of(struct recmeta *m, uint32_t pid)
{
	if (m->last && m->last->pid == pid)
		return m->last;
	for (int i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return m->last = &m->procs[i];
	return NULL;
}

/* Whether addr is in one of p's allocations (in address order, as the maps list them). */
static bool inside(const struct rm_proc *p, uint64_t addr)
{
	int lo = 0, hi = p->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (p->x[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < p->x[lo - 1].end;
}

/* A process's allocations followed from now on (while the table has room): 0 or -errno. */
static int follow(struct recmeta *m, uint32_t pid)
{
	struct rm_proc *p;

	if (m->nprocs >= RM_PROCS)
		return 0;
	p = &m->procs[m->nprocs++];
	p->pid = pid;
	return reread(m, p);
}

static int name_proc(struct recmeta *m, uint32_t pid, const char *comm)
{
	char buf[64] = "", path[64];
	FILE *f;

	if (comm) {
		memcpy(buf, comm, strnlen(comm, 16));
	} else {
		snprintf(path, sizeof(path), "/proc/%u/comm", pid);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		buf[strcspn(buf, "\n")] = '\0';
	}
	if (!buf[0])
		return 0;
	return gt_write_meta(m->out, m->ts, GT_META_COMM, pid, GT_GPU_NONE, buf,
			     strnlen(buf, 16));
}

static int name_gpu(struct recmeta *m, uint16_t gpu)
{
	const struct gpu_info *g;
	const char *why;
	char buf[GT_META_MAX];
	int n = gpus_list(&g, false, &why), len;

	m->gpu_done[gpu] = true;
	for (int i = 0; i < n; i++) {
		if (g[i].index != gpu)
			continue;
		len = snprintf(buf, sizeof(buf), "%s%c%s", g[i].uuid_str, '\0', g[i].name);
		return gt_write_meta(m->out, m->ts, GT_META_GPU, 0, gpu, buf,
				     len < (int)sizeof(buf) ? (size_t)len : sizeof(buf) - 1);
	}
	return 0;
}

int recmeta_before(struct recmeta *m, FILE *out, const struct gt_event *e, const char *comm)
{
	struct rm_proc *p;
	int rc = 0;

	if (!m)
		return 0;
	m->out = out;
	m->ts = e->ts_ns;
	if (m->gpu_names && e->gpu < GPUCTL_MAX_GPUS && !m->gpu_done[e->gpu] &&
	    !gt_is_tsg(e->type))
		rc = name_gpu(m, e->gpu);
	if (rc || !e->pid || e->type == GT_EV_LOST)
		return rc;
	if (first_sight(m, e->pid)) {
		rc = name_proc(m, e->pid, comm);
		if (rc || gt_is_tsg(e->type))
			return rc;
		return follow(m, e->pid);
	}
	if (gt_is_tsg(e->type))
		return 0;
	p = proc_of(m, e->pid);
	/* named by a TSG event first (record all tsg): its allocations from its first UVM event */
	if (!p)
		return follow(m, e->pid);
	if (e->type != GT_EV_GPU_FAULT && e->type != GT_EV_MIGRATION)
		return 0;
	if (!inside(p, e->addr) && mono_s() - p->read_at >= RM_REREAD_S)
		rc = reread(m, p);
	return rc;
}
