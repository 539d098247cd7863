// SPDX-License-Identifier: GPL-2.0
/*
 * stream: sequential fault streams across 2 MiB VA blocks, migrated ahead by
 * a distance that grows whenever the GPU catches up with it.
 */
#include "engine_common.bpf.h"
#include "pfengine_abi.h"

PFE_ENGINE("sequential fault streams across 2 MiB blocks: migrate ahead, farther when the GPU catches up");

PFE_PARAM(confidence, 2, 1, 64, "blocks in sequence before a stream is trusted");
PFE_PARAM(distance, 8, 1, 4096, "blocks migrated ahead at first (2 MiB each)");
PFE_PARAM(max_distance, 512, 1, 65536, "most blocks ahead the distance grows to");
PFE_PARAM(gap, 2, 1, 64, "largest jump, in blocks, still counted as sequential");

PFE_COUNTER(streams);
PFE_COUNTER(caught_up);
PFE_COUNTER(cur_distance);
PFE_COUNTER(stragglers);

#define NSTREAMS 16

struct stream {
	__s64 first;		/* the block it started at */
	__s64 last;		/* the last block the GPU faulted in */
	__s64 first_req;	/* the first block requested, or -1 */
	__s64 frontier;		/* the next block not requested yet (in dir) */
	__s64 grown_at;		/* block of the last growth: once per block */
	__s64 dir;		/* +1, -1, 0: not known yet */
	__u64 hits, quiet, dist, used;
	__u64 live;
};

struct stream st[NSTREAMS];
__u64 tick;

/* Whether block b continues stream s, given the gap allowed. */
static __always_inline int takes(const struct stream *s, __s64 b, __s64 g)
{
	__s64 d = b - s->last;

	if (!s->live)
		return 0;
	if (s->dir == 0)
		return d != 0 && d <= g && d >= -g;
	d *= s->dir;
	if (d < 0)
		return 0;
	/* anywhere up to the frontier: the GPU caught up with the migration */
	return d <= g || (s->first_req >= 0 && (b - s->frontier) * s->dir <= 0);
}

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);
	struct stream *s = 0;
	__s64 b, lo, hi, ahead;
	__u32 k, lru = 0;

	if (!e || !pfe_is_fault(e))
		return 0;
	b = block_of(e->addr);
	tick++;
	/* one pass: the same block again ends it; else the first stream it continues */
	for (k = 0; k < NSTREAMS; k++) {
		if (!st[k].live)
			continue;
		if (st[k].last == b) {
			st[k].used = tick;
			return 0;
		}
		if (!s && takes(&st[k], b, (__s64)gap))
			s = &st[k];
	}
	if (!s) {
		/* a straggler behind a stream's head: a block the stream passed already */
		for (k = 0; k < NSTREAMS; k++) {
			struct stream *t = &st[k];

			if (t->live && t->dir && (b - t->first) * t->dir >= 0 &&
			    (t->last - b) * t->dir >= 0) {
				stragglers++;
				return 0;
			}
			if (k && (!t->live || (st[lru].live && t->used < st[lru].used)))
				lru = k;
		}
		s = &st[lru & (NSTREAMS - 1)];
		s->first = b;
		s->last = b;
		s->first_req = -1;
		s->frontier = b;
		s->grown_at = -1;
		s->dir = 0;
		s->hits = 1;
		s->quiet = 0;
		s->dist = distance;
		s->used = tick;
		s->live = 1;
		streams++;
		return 0;
	}
	s->used = tick;
	if (s->dir == 0) {
		s->dir = b > s->last ? 1 : -1;
		s->frontier = b;
	}
	/* in or at the end of what was requested: the GPU runs ahead of us */
	if (s->first_req >= 0 && (b - s->first_req) * s->dir >= 0 && (b - s->frontier) * s->dir <= 0) {
		if (s->grown_at != b) {
			s->dist = s->dist * 2 > max_distance ? max_distance : s->dist * 2;
			s->grown_at = b;
			caught_up++;
		}
		s->quiet = 0;
	} else if (++s->quiet > 2 * s->dist && s->dist > distance) {
		/* a long way without catching up: give some distance back */
		s->dist -= s->dist / 4;
		s->quiet = 0;
	}
	s->last = b;
	s->hits++;
	cur_distance = s->dist;
	if (s->hits < confidence)
		return 0;
	ahead = b + s->dir * (__s64)s->dist;
	if (s->dir > 0) {
		lo = s->frontier > b + 1 ? s->frontier : b + 1;
		hi = ahead;
	} else {
		lo = ahead;
		hi = s->frontier < b - 1 ? s->frontier : b - 1;
	}
	if (lo > hi)
		return 0;
	add_blocks(e, lo, hi);
	if (s->first_req < 0)
		s->first_req = s->dir > 0 ? lo : hi;
	s->frontier = ahead + s->dir;
	return 0;
}

SEC("syscall")
int pfe_batch(void *ctx)
{
	return pfe_for_each(one);
}
