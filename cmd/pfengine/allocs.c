// SPDX-License-Identifier: GPL-2.0
/*
 * allocs.c - a process's managed allocations, as the engine knows them: a
 * sorted table of its /dev/nvidia-uvm mappings (accessible ones are managed
 * memory, PROT_NONE ones CUDA's reservations), changed by each mapping call
 * the watcher reports (an mmap of the device, an munmap, an mremap, an
 * mprotect, and any mmap over a range: a MAP_FIXED re-map replaces what was
 * there), or made to agree with /proc/PID/maps when there is no watcher or
 * it lost events.  Each change of managed memory becomes an ALLOC or FREE
 * event for the policy; each allocation's decision age is measured here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "pfengine_abi.h"
#include "allocs.h"
#include "uvm.h"

#define NEG_TTL_S 0.005		/* a block found outside is not looked up again for this long */
#define PAGE 4096ull

void allocs_init(struct allocs *a, pid_t pid,
		 void (*emit)(int kind, uint64_t s, uint64_t e, uint64_t ts, void *arg), void *arg)
{
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->emit = emit;
	a->arg = arg;
}

void allocs_free(struct allocs *a)
{
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* The first entry that ends after addr. */
static int lower(const struct allocs *a, uint64_t addr)
{
	int lo = 0, hi = a->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (a->v[mid].e <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more entry in *v (n used of *cap): 0, or -ENOMEM. */
static int room(struct alloc **v, int n, int *cap)
{
	struct alloc *nv;
	int c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 256;
	nv = realloc(*v, c * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

static int insert_at(struct allocs *a, int i, const struct alloc *x)
{
	if (room(&a->v, a->n, &a->cap))
		return -ENOMEM;
	memmove(a->v + i + 1, a->v + i, (a->n - i) * sizeof(*x));
	a->v[i] = *x;
	a->n++;
	return 0;
}

/* [s, e) is no longer mapped: pieces of managed memory in it are freed. *acc: the first one's. */
static void cut(struct allocs *a, uint64_t s, uint64_t e, uint64_t ts, int *acc)
{
	int i = lower(a, s);

	while (i < a->n && a->v[i].s < e) {
		struct alloc x = a->v[i], right = x;
		uint64_t rs = x.s > s ? x.s : s, re = x.e < e ? x.e : e;

		if (acc && *acc < 0)
			*acc = x.acc;
		if (x.acc) {
			a->freed++;
			if (rs == x.s && re == x.e && x.faulted && !x.served)
				a->missed++;
			a->emit(PFE_EV_FREE, rs, re, ts, a->arg);
		}
		if (x.s < rs && re < x.e) {
			a->v[i].e = rs;
			right.s = re;
			if (insert_at(a, i + 1, &right))
				a->n = i + 1;	/* no memory: the rest is forgotten, not wrong */
			return;
		}
		if (x.s < rs) {
			a->v[i++].e = rs;
		} else if (re < x.e) {
			a->v[i].s = re;
			return;
		} else {
			memmove(a->v + i, a->v + i + 1, (a->n - i - 1) * sizeof(x));
			a->n--;
		}
	}
}

/* [s, e) is now mapped from the device (over whatever was there). */
static void put(struct allocs *a, uint64_t s, uint64_t e, bool acc, uint64_t ts)
{
	struct alloc x = { .s = s, .e = e, .acc = acc, .first_ns = acc ? ts : 0, .made_ns = ts };

	if (e <= s)
		return;
	cut(a, s, e, ts, NULL);
	if (insert_at(a, lower(a, s), &x))
		return;
	if (acc) {
		a->made++;
		a->emit(PFE_EV_ALLOC, s, e, ts, a->arg);
	}
}

/* [s, e) of the device's mappings now has access acc (mprotect). */
static void protect(struct allocs *a, uint64_t s, uint64_t e, bool acc, uint64_t ts)
{
	int i = lower(a, s);

	while (i < a->n && a->v[i].s < e) {
		uint64_t rs = a->v[i].s > s ? a->v[i].s : s, re = a->v[i].e < e ? a->v[i].e : e;

		if (a->v[i].acc == acc) {
			i++;
			continue;
		}
		put(a, rs, re, acc, ts);	/* the table changed: look again from there */
		i = lower(a, re);
	}
}

static uint64_t page_up(uint64_t len)
{
	return (len + PAGE - 1) & ~(PAGE - 1);
}

/*
 * Whether the mapping [s, e) of the device made at ts is in the table
 * already from a maps read after ts (the watcher's event of a call made
 * before the engine read the maps): then it is not a new allocation.
 */
static bool known_since(const struct allocs *a, uint64_t s, uint64_t e, bool acc, uint64_t ts)
{
	int i = lower(a, s);

	return i < a->n && a->v[i].s == s && a->v[i].e == e && a->v[i].acc == acc &&
	       a->v[i].from_maps && a->v[i].made_ns >= ts;
}

void allocs_event(struct allocs *a, const struct aw_event *ev, uint64_t ts)
{
	uint64_t s = ev->addr, e = ev->addr + page_up(ev->len);
	int acc = -1;

	switch (ev->op) {
	case AW_MMAP:
		if ((ev->flags & AW_F_UVM) && known_since(a, s, e, ev->prot != 0, ts))
			break;
		if (ev->flags & AW_F_UVM)
			put(a, s, e, ev->prot != 0, ts);
		else
			cut(a, s, e, ts, NULL);	/* anything over the device's range replaces it */
		break;
	case AW_MUNMAP:
		cut(a, s, e, ts, NULL);
		break;
	case AW_MREMAP:
		cut(a, s, e, ts, &acc);
		if (acc >= 0)
			put(a, ev->addr2, ev->addr2 + page_up(ev->len2), acc, ts);
		break;
	case AW_MPROTECT:
		protect(a, s, e, ev->prot != 0, ts);
		break;
	}
}

struct seen {
	struct alloc *v;
	int n, cap;
};

static int collect(uint64_t s, uint64_t e, bool acc, void *arg)
{
	struct seen *l = arg;

	if (room(&l->v, l->n, &l->cap))
		return -ENOMEM;
	l->v[l->n++] = (struct alloc){ .s = s, .e = e, .acc = acc };
	return 0;
}

static bool listed(const struct alloc *v, int n, const struct alloc *x)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (v[mid].s < x->s)
			lo = mid + 1;
		else if (v[mid].s > x->s)
			hi = mid - 1;
		else
			return v[mid].e == x->e && v[mid].acc == x->acc;
	}
	return false;
}

int allocs_resync(struct allocs *a, uint64_t ts)
{
	struct seen l = { 0 };
	int ret = uvm_maps_each(a->pid, collect, &l);

	a->reads++;
	if (ret) {
		free(l.v);
		return ret;
	}
	for (int i = 0; i < a->n;) {
		if (listed(l.v, l.n, &a->v[i])) {
			i++;
			continue;
		}
		cut(a, a->v[i].s, a->v[i].e, ts, NULL);	/* entry i is gone */
	}
	for (int i = 0; i < l.n; i++) {
		int k = lower(a, l.v[i].s);

		if (k < a->n && a->v[k].s == l.v[i].s && a->v[k].e == l.v[i].e)
			continue;
		put(a, l.v[i].s, l.v[i].e, l.v[i].acc, ts);
		k = lower(a, l.v[i].s);
		if (k < a->n && a->v[k].s == l.v[i].s)
			a->v[k].from_maps = true;
	}
	free(l.v);
	return 0;
}

struct alloc *allocs_find(struct allocs *a, uint64_t addr)
{
	int i = lower(a, addr);

	if (i < a->n && a->v[i].s <= addr && a->v[i].acc)
		return &a->v[i];
	return NULL;
}

struct alloc *allocs_find_read(struct allocs *a, uint64_t addr, uint64_t ts)
{
	struct alloc *x = allocs_find(a, addr);
	uint64_t blk = addr >> PFE_BLOCK_SHIFT;
	int slot = -1;

	if (x)
		return x;
	if (mono_s() - a->neg_at < NEG_TTL_S) {
		for (int i = 0; i < (int)(sizeof(a->neg) / sizeof(a->neg[0])); i++) {
			if (a->neg[i] == blk + 1)
				return NULL;
			if (!a->neg[i] && slot < 0)
				slot = i;
		}
		if (slot < 0)	/* full: the oldest goes (no read per fault) */
			slot = (int)(a->reads % (sizeof(a->neg) / sizeof(a->neg[0])));
	} else {
		memset(a->neg, 0, sizeof(a->neg));
		a->neg_at = mono_s();
		slot = 0;
	}
	if (allocs_resync(a, ts))
		return NULL;
	x = allocs_find(a, addr);
	if (!x && slot >= 0)
		a->neg[slot] = blk + 1;
	return x;
}

bool allocs_fault(struct allocs *a, struct alloc *x, uint64_t ts)
{
	(void)a;
	if (!x->first_ns || ts < x->first_ns)
		x->first_ns = ts;
	if (x->faulted)
		return false;
	x->faulted = true;
	return true;
}

static void age_add(struct allocs *a, uint64_t us)
{
	unsigned e;
	int i;

	if (us < 64) {
		i = (int)us;
	} else {
		e = 63 - __builtin_clzll(us);	/* 6.. */
		i = 64 + (int)(e - 6) * 32 + (int)((us >> (e - 5)) & 31);
		if (i >= AGE_BUCKETS)
			i = AGE_BUCKETS - 1;
	}
	a->age[i]++;
}

uint64_t allocs_age_bucket_us(int i)
{
	int e;

	if (i < 64)
		return (uint64_t)i;
	e = (i - 64) / 32 + 6;
	return (1ull << e) + ((uint64_t)((i - 64) % 32) << (e - 5));
}

uint64_t allocs_age_us(const struct allocs *a, double pct)
{
	uint64_t n = 0, want, run = 0;

	for (int i = 0; i < AGE_BUCKETS; i++)
		n += a->age[i];
	if (!n)
		return 0;
	want = (uint64_t)(pct / 100.0 * (double)n + 0.999999);
	want = want ? want : 1;
	for (int i = 0; i < AGE_BUCKETS; i++) {
		run += a->age[i];
		if (run >= want)
			return allocs_age_bucket_us(i);
	}
	return allocs_age_bucket_us(AGE_BUCKETS - 1);
}

void allocs_served(struct allocs *a, uint64_t addr, uint64_t len, uint64_t start, uint64_t end)
{
	for (int i = lower(a, addr); i < a->n && a->v[i].s < addr + len; i++) {
		struct alloc *x = &a->v[i];

		if (!x->acc)
			continue;
		x->pull = true;		/* each move watched anew */
		x->pull_until = end + PULL_WINDOW_NS;
		if (x->served)
			continue;
		x->served = true;
		a->served++;
		if (x->first_ns && start >= x->first_ns)
			age_add(a, (start - x->first_ns) / 1000);
	}
}

void allocs_watch(struct allocs *a, uint64_t addr, uint64_t len, uint64_t ts)
{
	for (int i = lower(a, addr); i < a->n && a->v[i].s < addr + len; i++) {
		if (!a->v[i].acc)
			continue;
		a->v[i].pull = true;
		a->v[i].pull_until = ts + PULL_WINDOW_NS;
	}
}

struct alloc *allocs_pull(struct allocs *a, uint64_t addr, uint64_t ts)
{
	struct alloc *x = allocs_find(a, addr);

	if (!x || !x->pull || ts > x->pull_until)
		return NULL;
	x->pull = false;
	return x;
}

int allocs_pull_waiting(const struct allocs *a, uint64_t now)
{
	int n = 0;

	for (int i = 0; i < a->n; i++)
		n += a->v[i].acc && a->v[i].pull && now <= a->v[i].pull_until;
	return n;
}

void allocs_finish(struct allocs *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->v[i].acc && a->v[i].faulted && !a->v[i].served)
			a->missed++;
}
