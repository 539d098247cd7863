// SPDX-License-Identifier: GPL-2.0
/* recload.c - records read into memory for the pictures and open formats (recload.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "recload.h"

void recl_init(struct rl *l)
{
	memset(l, 0, sizeof(*l));
}

void recl_free(struct rl *l)
{
	free(l->ev);
	free(l->procs);
	free(l->allocs);
	memset(l, 0, sizeof(*l));
}

/* Grows *v (of *cap elements of size sz) to hold one more than n: 0 or -ENOMEM. */
static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	size_t nc;
	void *p;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 1024;
	p = reallocarray(*v, nc, sz);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = nc;
	return 0;
}

static struct recl_proc *proc_get(struct rl *l, uint32_t pid)
{
	/* Records name a process before its events: the last ones are the likely hits. */
	for (size_t i = l->nprocs; i > 0 && i + 64 > l->nprocs; i--)
		if (l->procs[i - 1].pid == pid)
			return &l->procs[i - 1];
	for (size_t i = 0; i + 64 <= l->nprocs; i++)
		if (l->procs[i].pid == pid)
			return &l->procs[i];
	if (l->nprocs >= 4096 ||
	    grow((void **)&l->procs, &l->procs_cap, l->nprocs, sizeof(*l->procs)))
		return NULL;
	l->procs[l->nprocs] = (struct recl_proc){ .pid = pid };
	return &l->procs[l->nprocs++];
}

static void take_meta(struct rl *l, const struct gt_event *e, const struct gt_reader *r)
{
	struct recl_proc *p;
	struct rl_gpu *g;
	size_t ul;

	if (e->cause == GT_META_COMM) {
		p = proc_get(l, e->pid);
		if (p) {
			memset(p->comm, 0, sizeof(p->comm));
			memcpy(p->comm, r->meta, r->meta_len < 16 ? r->meta_len : 16);
		}
		return;
	}
	if (e->gpu >= GPUCTL_MAX_GPUS)
		return;
	g = &l->gpus[e->gpu];
	ul = strnlen(r->meta, r->meta_len);
	memset(g->uuid, 0, sizeof(g->uuid));
	memcpy(g->uuid, r->meta, ul < sizeof(g->uuid) - 1 ? ul : sizeof(g->uuid) - 1);
	memset(g->name, 0, sizeof(g->name));
	if (ul + 1 < r->meta_len)
		memcpy(g->name, r->meta + ul + 1, r->meta_len - ul - 1);
	g->named = true;
}

static int take_alloc(struct rl *l, const struct gt_event *e)
{
	uint64_t end = e->addr + e->bytes < e->addr ? UINT64_MAX : e->addr + e->bytes;

	for (size_t i = 0; i < l->nallocs; i++)
		if (l->allocs[i].pid == e->pid && l->allocs[i].s == e->addr && l->allocs[i].e == end)
			return 0;
	if (!e->bytes)
		return 0;
	if (grow((void **)&l->allocs, &l->allocs_cap, l->nallocs, sizeof(*l->allocs)))
		return -ENOMEM;
	l->allocs[l->nallocs++] = (struct rl_alloc){ e->pid, e->addr, end };
	return 0;
}

/* a + b, stopping at UINT64_MAX */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void count_event(struct rl *l, const struct gt_event *e)
{
	struct recl_proc *p;

	if (e->type == GT_EV_LOST) {
		l->lost = sat_add(l->lost, e->count);
		return;
	}
	if (e->gpu < GPUCTL_MAX_GPUS) {
		l->gpus[e->gpu].seen = true;
		l->gpus[e->gpu].events++;
	} else if (e->gpu != GT_GPU_NONE) {
		l->gpus_beyond++;
	}
	if (e->pid && e->type != GT_EV_ALLOC && e->type != GT_EV_FREE) {
		p = proc_get(l, e->pid);
		if (p)
			p->events++;
	}
}

int recl_begin(struct rl *l, const struct gt_reader *r, const char *name)
{
	if (l->nin >= RL_MAX_INPUTS) {
		p_err("%s: at most %d records at once", name, RL_MAX_INPUTS);
		return -1;
	}
	l->hdr[l->nin++] = r->hdr;
	return 0;
}

int recl_add(struct rl *l, const struct gt_event *ev, const struct gt_reader *r)
{
	uint64_t start = r->hdr.start_ts_ns;
	struct gt_event e = *ev;

	if (e.type == GT_EV_META) {
		take_meta(l, &e, r);
		return 0;
	}
	/* Times relative to this record's start for now; recl_finish shifts them. */
	e.ts_ns = e.ts_ns > start ? e.ts_ns - start : 0;
	e.pad[0] = (uint8_t)(l->nin - 1);	/* which record, until recl_finish */
	if ((e.type == GT_EV_ALLOC && take_alloc(l, &e)) ||
	    grow((void **)&l->ev, &l->cap, l->n, sizeof(*l->ev)))
		return -ENOMEM;
	count_event(l, &e);
	l->ev[l->n++] = e;
	return 0;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct recl_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Stable merge sort by time (records merged keep each one's order). */
static void sort_time(struct gt_event *v, struct gt_event *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort_time(v, tmp, h);
	sort_time(v + h, tmp, n - h);
	if (v[h - 1].ts_ns <= v[h].ts_ns)
		return;
	while (i < h && j < n)
		tmp[k++] = v[j].ts_ns < v[i].ts_ns ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

void recl_finish(struct rl *l)
{
	struct gt_event *tmp;

	l->t0_realtime = UINT64_MAX;
	for (int k = 0; k < l->nin; k++)
		if (l->hdr[k].start_realtime_ns < l->t0_realtime)
			l->t0_realtime = l->hdr[k].start_realtime_ns;
	for (int k = 0; k < l->nin; k++)
		l->rec_off[k] = l->hdr[k].start_realtime_ns - l->t0_realtime;
	for (size_t i = 0; i < l->n; i++) {
		l->ev[i].ts_ns = sat_add(l->ev[i].ts_ns, l->rec_off[l->ev[i].pad[0] % RL_MAX_INPUTS]);
		l->ev[i].pad[0] = 0;
	}
	if (l->nprocs)
		qsort(l->procs, l->nprocs, sizeof(*l->procs), proc_cmp);
	tmp = l->nin > 1 && l->n ? malloc(l->n * sizeof(*tmp)) : NULL;
	if (tmp)
		sort_time(l->ev, tmp, l->n);
	free(tmp);
}

const struct recl_proc *recl_proc(const struct rl *l, uint32_t pid)
{
	struct recl_proc key = { .pid = pid };

	return l->nprocs ? bsearch(&key, l->procs, l->nprocs, sizeof(key), proc_cmp) : NULL;
}
