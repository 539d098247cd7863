// SPDX-License-Identifier: GPL-2.0
/* heat.c - events counted into the heat map's cells (heat.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"

const char *const hm_kind_name[HK_NR] = {
	[HK_FAULT_R] = "GPU faults, read", [HK_FAULT_W] = "GPU faults, write or atomic",
	[HK_MIG_FAULT] = "migrations for faults", [HK_MIG_PREFETCH] = "migrations, prefetch",
	[HK_MIG_OTHER] = "migrations, other causes", [HK_EVICT] = "evictions",
	[HK_CPU_FAULT] = "CPU faults",
};
const char *const hm_strip_name[HS_NR] = {
	[HS_REPLAY] = "replays", [HS_THRASH] = "thrashing", [HS_EVICT] = "evictions",
};

#define BLOCK_SHIFT 21		/* inferred ranges are made of 2 MiB blocks ... */
#define NEAR_BLOCKS 32		/* ... nearer than 64 MiB */
#define PID_UNSET UINT32_MAX

static int kind_of(const struct gt_event *e)
{
	switch (e->type) {
	case GT_EV_GPU_FAULT:
		return e->access == GT_ACC_WRITE || e->access == GT_ACC_ATOMIC ? HK_FAULT_W : HK_FAULT_R;
	case GT_EV_CPU_FAULT:
		return HK_CPU_FAULT;
	case GT_EV_MIGRATION:
		return e->cause == GT_CAUSE_FAULT ? HK_MIG_FAULT :
		       e->cause == GT_CAUSE_PREFETCH ? HK_MIG_PREFETCH : HK_MIG_OTHER;
	case GT_EV_EVICTION:
		return e->addr ? HK_EVICT : -1;
	default:
		return -1;
	}
}

static int strip_of(const struct gt_event *e)
{
	return e->type == GT_EV_REPLAY ? HS_REPLAY : e->type == GT_EV_THRASHING ? HS_THRASH :
	       e->type == GT_EV_EVICTION && !e->addr ? HS_EVICT : -1;
}

/* On the time axis: everything but allocations, batches and table entries. */
static bool timed(const struct gt_event *e)
{
	return e->type != GT_EV_ALLOC && e->type != GT_EV_FREE && e->type != GT_EV_BATCH &&
	       e->type != GT_EV_META;
}

static int group_of(uint16_t gpu)
{
	return gpu == GT_GPU_NONE ? HM_GPUS + 1 : gpu < HM_GPUS ? gpu : HM_GPUS;
}

int heat_col(const struct heat *h, uint64_t t)
{
	unsigned __int128 x;

	if (t <= h->tmin)
		return 0;
	x = (unsigned __int128)(t - h->tmin) * HM_COLS / h->span;
	return x >= HM_COLS ? HM_COLS - 1 : (int)x;
}

static void time_axis(struct heat *h, const struct rl *l)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (!timed(&l->ev[i]))
			continue;
		lo = l->ev[i].ts_ns < lo ? l->ev[i].ts_ns : lo;
		hi = l->ev[i].ts_ns > hi ? l->ev[i].ts_ns : hi;
	}
	h->have_time = lo <= hi;
	h->tmin = h->have_time ? lo : 0;
	h->span = h->have_time && hi > lo ? hi - lo : 1000;	/* one event: 1 us wide */
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct hm_seg *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

/* The segment holding addr, in v[n] sorted and apart, or NULL. */
static struct hm_seg *seg_find(struct hm_seg *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].s <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr <= v[lo - 1].last ? &v[lo - 1] : NULL;
}

/* Sorted segments in place: overlapping ones made one (several processes: pid 0). */
static size_t seg_union(struct hm_seg *v, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), seg_cmp);
	for (size_t i = 1; i < n; i++) {
		struct hm_seg *c = &v[k];

		if (v[i].s <= c->last) {
			c->last = v[i].last > c->last ? v[i].last : c->last;
			c->pid = c->pid == v[i].pid ? c->pid : 0;
			c->merged += v[i].merged;
			c->inferred |= v[i].inferred;
		} else {
			v[++k] = v[i];
		}
	}
	return k + 1;
}

/* The allocations the record names, as sorted segments apart: *n of them. */
static struct hm_seg *alloc_segs(const struct rl *l, size_t *n)
{
	struct hm_seg *v = calloc(l->nallocs + 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < l->nallocs; i++)
		v[i] = (struct hm_seg){ .s = l->allocs[i].s, .last = l->allocs[i].e - 1,
					.pid = l->allocs[i].pid, .merged = 1 };
	*n = seg_union(v, l->nallocs);
	return v;
}

/*
 * The segments: allocations with an event in them, then ranges of the 2 MiB
 * blocks outside them.  An array of *n (sorted, apart), or NULL (no memory).
 */
static struct hm_seg *all_segs(struct heat *h, const struct rl *l, size_t *n)
{
	size_t na, nb = 0, k = 0;
	struct hm_seg *a = alloc_segs(l, &na), *v = NULL;
	uint64_t *blk = malloc((l->n + 1) * sizeof(*blk));
	bool *touched = calloc(na + 1, sizeof(*touched));

	if (!a || !blk || !touched)
		goto out;
	for (size_t i = 0; i < l->n; i++) {
		struct hm_seg *s;

		if (kind_of(&l->ev[i]) < 0)
			continue;
		s = seg_find(a, na, l->ev[i].addr);
		if (s)
			touched[s - a] = true;
		else
			blk[nb++] = l->ev[i].addr >> BLOCK_SHIFT;
	}
	qsort(blk, nb, sizeof(*blk), u64_cmp);
	v = calloc(na + nb + 1, sizeof(*v));
	if (!v)
		goto out;
	h->allocs = l->nallocs;
	for (size_t i = 0; i < na; i++) {
		if (touched[i])
			v[k++] = a[i];
		else
			h->untouched_allocs += a[i].merged;
	}
	for (size_t i = 0; i < nb; i++) {
		uint64_t s = blk[i] << BLOCK_SHIFT, last = blk[i] == UINT64_MAX >> BLOCK_SHIFT ?
			 UINT64_MAX : s + ((1ull << BLOCK_SHIFT) - 1);
		struct hm_seg *p = k ? &v[k - 1] : NULL;

		if (p && p->inferred && (s <= p->last ||
					 s - p->last <= ((uint64_t)NEAR_BLOCKS << BLOCK_SHIFT)))
			p->last = last > p->last ? last : p->last;
		else
			v[k++] = (struct hm_seg){ .s = s, .last = last, .pid = PID_UNSET,
						  .inferred = true, .merged = 1 };
	}
	*n = seg_union(v, k);
out:
	free(a);
	free(blk);
	free(touched);
	return v;
}

struct gap {
	uint64_t size;
	size_t at;		/* between segment at and at + 1 */
};

static int gap_cmp(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;	/* largest first */
	return x->at < y->at ? -1 : x->at > y->at;
}

static int at_cmp(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* v[n] into h->seg: the HM_SEGS - 1 largest gaps kept, the others closed. */
static int keep_segs(struct heat *h, const struct hm_seg *v, size_t n)
{
	struct gap *g = n > HM_SEGS ? malloc((n - 1) * sizeof(*g)) : NULL;
	size_t cut = 0, start = 0;

	if (n <= HM_SEGS) {
		memcpy(h->seg, v, n * sizeof(*v));
		h->nseg = (int)n;
		return 0;
	}
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i + 1 < n; i++)
		g[i] = (struct gap){ v[i + 1].s - v[i].last, i };
	qsort(g, n - 1, sizeof(*g), gap_cmp);
	qsort(g, HM_SEGS - 1, sizeof(*g), at_cmp);
	h->nseg = 0;
	for (cut = 0; cut <= HM_SEGS - 1; cut++) {
		size_t end = cut < HM_SEGS - 1 ? g[cut].at : n - 1;
		struct hm_seg *s = &h->seg[h->nseg++];

		*s = v[start];
		for (size_t i = start + 1; i <= end; i++) {
			s->last = v[i].last;
			s->merged += v[i].merged;
			s->inferred |= v[i].inferred;
			s->pid = s->pid == v[i].pid ? s->pid : 0;
		}
		if (end > start)
			h->allocs_merged += (uint32_t)(end - start + 1);
		start = end + 1;
	}
	free(g);
	return 0;
}

/* Rows shared out by length, HM_MIN_ROWS at least. */
static void share_rows(struct heat *h)
{
	long double total = 0;
	int row = 0;

	for (int i = 0; i < h->nseg; i++)
		total += (long double)(h->seg[i].last - h->seg[i].s) + 1;
	for (int i = 0; i < h->nseg; i++) {
		long double len = (long double)(h->seg[i].last - h->seg[i].s) + 1;

		h->seg[i].row0 = row;
		h->seg[i].rows = HM_MIN_ROWS + (int)(HM_ROWS * len / total);
		row += h->seg[i].rows;
	}
	h->rows = row;
}

static uint32_t sat32(uint32_t a, uint64_t b)
{
	return b >= UINT32_MAX - a ? UINT32_MAX : a + (uint32_t)b;
}

static uint64_t sat64(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* One event with an address into its group's grid of its kind. */
static int count_cell(struct heat *h, struct hm_group *gr, int kind, const struct gt_event *e)
{
	struct hm_grid *g = &gr->g[kind];
	struct hm_seg *s = seg_find(h->seg, (size_t)h->nseg, e->addr);
	unsigned __int128 off;
	uint32_t *c;
	int row;

	if (!s)
		return 0;	/* not reached: every address has a segment */
	if (!g->cell) {
		g->cell = calloc((size_t)h->rows * HM_COLS, sizeof(*g->cell));
		if (!g->cell)
			return -ENOMEM;
	}
	gr->seg_used[s - h->seg] = true;
	if (s->pid == PID_UNSET)
		s->pid = e->pid;
	else if (s->pid != e->pid && e->pid)
		s->pid = 0;
	off = (unsigned __int128)(e->addr - s->s) * (unsigned int)s->rows /
	      ((unsigned __int128)(s->last - s->s) + 1);
	row = s->row0 + (int)off;
	c = &g->cell[(size_t)row * HM_COLS + heat_col(h, e->ts_ns)];
	*c = sat32(*c, 1);
	g->peak = *c > g->peak ? *c : g->peak;
	g->events++;
	g->dups += e->type == GT_EV_GPU_FAULT && (e->flags & GT_F_DUPLICATE);
	g->bytes = sat64(g->bytes, e->bytes);
	return 0;
}

static struct hm_tsg *tsg_row(struct heat *h, const struct gt_event *e)
{
	for (int i = 0; i < h->ntsg; i++)
		if (h->tsg[i].pid == e->pid && h->tsg[i].client == e->batch &&
		    h->tsg[i].handle == e->addr)
			return &h->tsg[i];
	if (h->ntsg == HM_TSGS) {
		h->tsgs_left_out += e->type == GT_EV_TSG;
		return NULL;
	}
	h->tsg[h->ntsg] = (struct hm_tsg){ .pid = e->pid, .client = e->batch, .handle = e->addr,
					  .t_new = h->tmin, .t_free = UINT64_MAX };
	return &h->tsg[h->ntsg++];
}

static void count_tsg(struct heat *h, const struct gt_event *e)
{
	struct hm_tsg *t = tsg_row(h, e);

	if (!t)
		return;
	if (e->type == GT_EV_TSG) {
		t->t_new = e->ts_ns;
		t->seen_new = true;
	} else if (e->type == GT_EV_TSG_FREE) {
		t->t_free = e->ts_ns;
	} else if (t->sets < 8) {
		t->set_t[t->sets++] = e->ts_ns;
	} else {
		t->sets = t->sets == UINT32_MAX ? t->sets : t->sets + 1;
	}
}

static int count_all(struct heat *h, const struct rl *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct gt_event *e = &l->ev[i];
		struct hm_group *gr = &h->grp[group_of(e->gpu)];
		int k = kind_of(e), st = strip_of(e);

		if (e->type == GT_EV_LOST) {
			uint32_t *c = &h->lost_strip[heat_col(h, e->ts_ns)];

			*c = sat32(*c, e->count);
		} else if (gt_is_tsg(e->type)) {
			count_tsg(h, e);
		} else if (e->type == GT_EV_BATCH) {
			h->batches++;
		}
		if (k < 0 && st < 0)
			continue;
		if (!gr->used) {
			gr->used = true;
			gr->gpu_lo = gr->gpu_hi = e->gpu;
		}
		gr->gpu_lo = e->gpu < gr->gpu_lo ? e->gpu : gr->gpu_lo;
		gr->gpu_hi = e->gpu > gr->gpu_hi ? e->gpu : gr->gpu_hi;
		if (st >= 0) {
			uint32_t *c = &gr->strip[st][heat_col(h, e->ts_ns)];

			*c = sat32(*c, 1);
			gr->strip_n[st]++;
		} else if (count_cell(h, gr, k, e)) {
			return -ENOMEM;
		}
	}
	return 0;
}

int heat_build(struct heat *h, const struct rl *l)
{
	struct hm_seg *v;
	size_t n;
	int rc;

	memset(h, 0, sizeof(*h));
	time_axis(h, l);
	v = all_segs(h, l, &n);
	if (!v)
		return -ENOMEM;
	rc = keep_segs(h, v, n);
	free(v);
	if (rc)
		return rc;
	share_rows(h);
	rc = count_all(h, l);
	for (int i = 0; i < h->nseg; i++)
		h->seg[i].pid = h->seg[i].pid == PID_UNSET ? 0 : h->seg[i].pid;
	return rc;
}

void heat_free(struct heat *h)
{
	for (int i = 0; i < HM_GPUS + 2; i++)
		for (int k = 0; k < HK_NR; k++)
			free(h->grp[i].g[k].cell);
}
