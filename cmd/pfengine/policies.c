// SPDX-License-Identifier: GPL-2.0
/*
 * policies.c - the engine's policies: pure decisions over a process's GPU
 * fault stream (pfengine.h).  Each sees events in the order the driver
 * reported them and answers with ranges to move to the GPU; the engine
 * (or a test) carries them out and says when each was done.
 *
 *   stream    sequential streams across 2 MiB VA blocks, migrated ahead
 *             by a distance that grows whenever the GPU catches up with it
 *   stride    a constant stride across blocks: the next strides ahead
 *             (the same idea as the struct_ops stride policy, per block)
 *   populate  the first GPU fault in a managed allocation moves the whole
 *             allocation (from the fault on): first touches of fresh
 *             allocations, and buffers the CPU wrote, in one go
 */
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "pfengine.h"

const char *const pfe_ctr_names[PFE_C_POLICY] = {
	[PFE_C_SEEN] = "seen",
	[PFE_C_FAULTS] = "faults",
	[PFE_C_REQUESTS] = "requests",
	[PFE_C_REQ_BYTES] = "requested_bytes",
	[PFE_C_IOCTLS] = "ioctls",
	[PFE_C_BYTES] = "migrated_bytes",
	[PFE_C_ERRORS] = "errors",
	[PFE_C_CAPPED] = "capped",
	[PFE_C_LOST] = "lost_events",
	[PFE_C_CPU_US] = "cpu_us",
	[PFE_C_DRV_FAULTS] = "driver_gpu_faults",
	[PFE_C_DRV_HTOD] = "driver_bytes_htod",
};

void pfe_out_add(struct pfe_out *out, uint64_t addr, uint64_t len)
{
	struct pfe_req *last = out->n ? &out->req[out->n - 1] : NULL;

	if (!len)
		return;
	if (last && last->addr + last->len == addr) {
		last->len += len;
		return;
	}
	if (out->n < PFE_MAX_REQS)
		out->req[out->n++] = (struct pfe_req){ addr, len };
}

static int64_t block_of(uint64_t addr)
{
	return (int64_t)(addr >> PFE_BLOCK_SHIFT);
}

/*
 * Blocks [lo, hi] (inclusive, lo <= hi) as one request, cut to the managed
 * extent around address `at` (the fault's) when the engine knows it (when it does not, the
 * driver refuses what is not managed memory, and the engine counts that).
 */
static void add_blocks(const struct pfe_env *env, uint64_t at, int64_t lo, int64_t hi,
		       struct pfe_out *out)
{
	uint64_t a = (uint64_t)lo << PFE_BLOCK_SHIFT, b = ((uint64_t)hi + 1) << PFE_BLOCK_SHIFT;
	uint64_t s, e;

	if (lo < 0 || hi < lo)
		return;
	if (env && env->extent) {
		if (!env->extent(env->ctx, at, &s, &e)) {
			if (a < s)
				a = s;
			if (b > e)
				b = e;
			if (a >= b)
				return;
		}
	}
	pfe_out_add(out, a, b - a);
}

static bool is_fault(const struct gt_event *e)
{
	return e->type == GT_EV_GPU_FAULT && !(e->flags & GT_F_DUPLICATE);
}

/* --- stream ------------------------------------------------------------ */

enum { ST_CONFIDENCE, ST_DISTANCE, ST_MAX_DISTANCE, ST_GAP, ST_NPARAMS };
enum { ST_C_STREAMS = PFE_C_POLICY, ST_C_CAUGHT_UP, ST_C_DISTANCE, ST_C_STRAGGLERS };

static const struct param stream_params[] = {
	[ST_CONFIDENCE] = { "confidence", 2, 1, 64, "blocks in sequence before a stream is trusted" },
	[ST_DISTANCE] = { "distance", 8, 1, 4096, "blocks migrated ahead at first (2 MiB each)" },
	[ST_MAX_DISTANCE] = { "max_distance", 512, 1, 65536, "most blocks ahead the distance grows to" },
	[ST_GAP] = { "gap", 2, 1, 64, "largest jump, in blocks, still counted as sequential" },
};

static const char *const stream_ctrs[PFE_C_MAX] = {
	[ST_C_STREAMS] = "streams",
	[ST_C_CAUGHT_UP] = "caught_up",
	[ST_C_DISTANCE] = "distance",
	[ST_C_STRAGGLERS] = "stragglers",
};

#define NSTREAMS 16

struct stream {
	int64_t first;		/* the block it started at */
	int64_t last;		/* the last block the GPU faulted in */
	int64_t first_req;	/* the first block requested, or -1 */
	int64_t frontier;	/* the next block not requested yet (in dir) */
	int64_t grown_at;	/* block of the last growth: once per block */
	int dir;		/* +1, -1, 0: not known yet */
	uint32_t hits, quiet, dist;
	uint64_t used;
	bool live;
};

struct stream_state {
	struct stream s[NSTREAMS];
	uint64_t tick;
};

static void stream_init(void *st, const uint64_t *p)
{
	(void)p;
	memset(st, 0, sizeof(struct stream_state));
}

/* Whether block b continues stream s, given the gap allowed. */
static bool stream_takes(const struct stream *s, int64_t b, int64_t gap)
{
	int64_t d = b - s->last;

	if (!s->live)
		return false;
	if (s->dir == 0)
		return d != 0 && d <= gap && d >= -gap;
	d *= s->dir;
	if (d < 0)
		return false;
	/* anywhere up to the frontier: the GPU caught up with the migration */
	return d <= gap || (s->first_req >= 0 && (b - s->frontier) * s->dir <= 0);
}

static void stream_event(void *st, const uint64_t *p, const struct pfe_env *env,
			 const struct gt_event *e, struct pfe_out *out, uint64_t *ctr)
{
	struct stream_state *ss = st;
	int64_t b = block_of(e->addr), lo, hi, ahead;
	struct stream *s = NULL, *lru = &ss->s[0];

	if (!is_fault(e))
		return;
	ss->tick++;
	for (int i = 0; i < NSTREAMS; i++) {
		if (ss->s[i].live && ss->s[i].last == b) {
			ss->s[i].used = ss->tick;
			return;	/* the same block again */
		}
	}
	for (int i = 0; i < NSTREAMS && !s; i++)
		if (stream_takes(&ss->s[i], b, (int64_t)p[ST_GAP]))
			s = &ss->s[i];
	/*
	 * A straggler behind a stream's head (warps lag behind the others):
	 * a block the stream passed already, not a new stream.
	 */
	for (int i = 0; i < NSTREAMS && !s; i++) {
		struct stream *t = &ss->s[i];

		if (t->live && t->dir && (b - t->first) * t->dir >= 0 && (t->last - b) * t->dir >= 0) {
			ctr[ST_C_STRAGGLERS]++;
			return;
		}
	}
	if (!s) {
		for (int i = 1; i < NSTREAMS; i++)
			if (!ss->s[i].live || (lru->live && ss->s[i].used < lru->used))
				lru = &ss->s[i];
		*lru = (struct stream){ .first = b, .last = b, .first_req = -1, .frontier = b, .grown_at = -1,
					.hits = 1, .dist = (uint32_t)p[ST_DISTANCE], .used = ss->tick,
					.live = true };
		ctr[ST_C_STREAMS]++;
		return;
	}
	s->used = ss->tick;
	if (s->dir == 0) {
		s->dir = b > s->last ? 1 : -1;
		s->frontier = b;
	}
	/* In or at the end of what was requested: the GPU runs ahead of us. */
	if (s->first_req >= 0 && (b - s->first_req) * s->dir >= 0 &&
	    (b - s->frontier) * s->dir <= 0) {
		if (s->grown_at != b) {
			s->dist = s->dist * 2 > p[ST_MAX_DISTANCE] ? (uint32_t)p[ST_MAX_DISTANCE] :
				  s->dist * 2;
			s->grown_at = b;
			ctr[ST_C_CAUGHT_UP]++;
		}
		s->quiet = 0;
	} else if (++s->quiet > 2 * s->dist && s->dist > p[ST_DISTANCE]) {
		/* a long way without catching up: give some distance back */
		s->dist -= s->dist / 4;
		s->quiet = 0;
	}
	s->last = b;
	s->hits++;
	ctr[ST_C_DISTANCE] = s->dist;
	if (s->hits < p[ST_CONFIDENCE])
		return;
	ahead = b + s->dir * (int64_t)s->dist;
	if (s->dir > 0) {
		lo = s->frontier > b + 1 ? s->frontier : b + 1;
		hi = ahead;
	} else {
		lo = ahead;
		hi = s->frontier < b - 1 ? s->frontier : b - 1;
	}
	if (lo > hi)
		return;
	add_blocks(env, e->addr, lo, hi, out);
	if (s->first_req < 0)
		s->first_req = s->dir > 0 ? lo : hi;
	s->frontier = ahead + s->dir;
}

static const struct pfe_policy stream_policy = {
	.name = "stream",
	.doc = "sequential fault streams across 2 MiB blocks: migrate ahead, farther when the GPU catches up",
	.params = stream_params,
	.nparams = ST_NPARAMS,
	.ctr_names = stream_ctrs,
	.state_size = sizeof(struct stream_state),
	.init = stream_init,
	.event = stream_event,
};

/* --- stride ------------------------------------------------------------ */

enum { SD_CONFIDENCE, SD_DEGREE, SD_MAX_STRIDE, SD_NPARAMS };
enum { SD_C_DETECTED = PFE_C_POLICY, SD_C_STRIDE };

static const struct param stride_params[] = {
	[SD_CONFIDENCE] = { "confidence", 2, 1, 16, "faults at the same block stride before prefetching" },
	[SD_DEGREE] = { "degree", 4, 1, 64, "strides ahead to migrate" },
	[SD_MAX_STRIDE] = { "max_stride", 64, 1, 65536, "largest stride followed, in 2 MiB blocks" },
};

static const char *const stride_ctrs[PFE_C_MAX] = {
	[SD_C_DETECTED] = "strides_detected",
	[SD_C_STRIDE] = "stride",
};

struct stride_state {
	int64_t last;		/* last distinct block, -1 */
	int64_t stride;		/* in blocks, 0: none yet */
	int64_t reached;	/* the farthest block requested along the stride */
	uint32_t hits;
};

static void stride_init(void *st, const uint64_t *p)
{
	struct stride_state *s = st;

	(void)p;
	*s = (struct stride_state){ .last = -1 };
}

static void stride_event(void *st, const uint64_t *p, const struct pfe_env *env,
			 const struct gt_event *e, struct pfe_out *out, uint64_t *ctr)
{
	struct stride_state *s = st;
	int64_t b = block_of(e->addr), d;

	if (!is_fault(e))
		return;
	if (b == s->last)
		return;
	d = s->last < 0 ? 0 : b - s->last;
	s->last = b;
	if (d == 0 || d > (int64_t)p[SD_MAX_STRIDE] || d < -(int64_t)p[SD_MAX_STRIDE]) {
		s->hits = 0;
		s->stride = 0;
		return;
	}
	if (d != s->stride) {
		s->stride = d;
		s->hits = 1;
		s->reached = b;
	} else {
		s->hits++;
	}
	if (s->hits < p[SD_CONFIDENCE])
		return;
	if (s->hits == p[SD_CONFIDENCE]) {
		ctr[SD_C_DETECTED]++;
		ctr[SD_C_STRIDE] = (uint64_t)s->stride;
	}
	for (uint64_t k = 1; k <= p[SD_DEGREE]; k++) {
		int64_t t = b + (int64_t)k * s->stride;

		if ((t - s->reached) * (s->stride > 0 ? 1 : -1) <= 0)
			continue;	/* asked for already */
		add_blocks(env, e->addr, t, t, out);
		s->reached = t;
	}
}

static const struct pfe_policy stride_policy = {
	.name = "stride",
	.doc = "a constant stride across 2 MiB blocks: migrate the next strides",
	.params = stride_params,
	.nparams = SD_NPARAMS,
	.ctr_names = stride_ctrs,
	.state_size = sizeof(struct stride_state),
	.init = stride_init,
	.event = stride_event,
};

/* --- populate ------------------------------------------------------------ */

enum { PO_MAX_MB, PO_CHUNK_MB, PO_MIN_KB, PO_HOLD_MS, PO_EAGER, PO_NPARAMS };
enum { PO_C_EXTENTS = PFE_C_POLICY, PO_C_UNMANAGED, PO_C_REPOPULATED, PO_C_EAGER };

static const struct param populate_params[] = {
	[PO_MAX_MB] = { "max_mb", 16384, 2, 1048576, "most MiB of one allocation moved on its first fault" },
	[PO_CHUNK_MB] = { "chunk_mb", 256, 2, 65536, "MiB per migrate call (the fault's side first)" },
	[PO_MIN_KB] = { "min_kb", 64, 4, 1048576, "allocations smaller than this are left to faults" },
	[PO_HOLD_MS] = { "hold_ms", 10, 0, 60000, "least time between two populations of one allocation" },
	[PO_EAGER] = { "eager", 1, 0, 1, "1: also move allocations made since the maps were last read, before they fault" },
};

static const char *const populate_ctrs[PFE_C_MAX] = {
	[PO_C_EXTENTS] = "allocations",
	[PO_C_UNMANAGED] = "unmanaged_faults",
	[PO_C_REPOPULATED] = "repopulated",
	[PO_C_EAGER] = "eager",
};

#define NEXTENTS 4096	/* a power of 2 */

struct extent {
	uint64_t start, end;	/* 0, 0: free slot */
	uint64_t issued_ts;	/* when its population was asked for */
	uint64_t done_ts;	/* when the last of it was done, 0: pending */
	uint32_t pending;	/* requests not done yet */
};

struct populate_state {
	struct extent x[NEXTENTS];
	uint64_t now;		/* the latest event time seen */
};

static void populate_init(void *st, const uint64_t *p)
{
	(void)p;
	memset(st, 0, sizeof(struct populate_state));
}

static struct extent *extent_slot(struct populate_state *ps, uint64_t start)
{
	uint32_t h = (uint32_t)((start >> 16) * 0x9E3779B1u) & (NEXTENTS - 1);

	/* a few probes; after that the oldest candidate is replaced */
	for (int i = 0; i < 8; i++) {
		struct extent *x = &ps->x[(h + i) & (NEXTENTS - 1)];

		if (x->start == start || !x->end)
			return x;
	}
	return &ps->x[h];
}

/* Requests for [a, end) in chunks, within *room; counted as pending on x. */
static void chunks(struct extent *x, uint64_t a, uint64_t end, uint64_t chunk, uint64_t *room,
		   struct pfe_out *out)
{
	while (a < end && *room && out->n < PFE_MAX_REQS) {
		uint64_t n = end - a < chunk ? end - a : chunk;

		n = n < *room ? n : *room;
		out->req[out->n++] = (struct pfe_req){ a, n };
		x->pending++;
		a += n;
		*room -= n;
	}
}

/*
 * Whether extent [s, end) is to be moved at time ts: new to us, or moved
 * before but faulted on since (and not within hold_ms).  x: its slot.
 */
static bool wanted(struct populate_state *ps, const uint64_t *p, uint64_t s, uint64_t end,
		   uint64_t ts, struct extent **xp, uint64_t *ctr)
{
	struct extent *x;

	if (end - s < p[PO_MIN_KB] << 10)
		return false;
	x = *xp = extent_slot(ps, s);
	if (x->start != s || x->end != end) {
		*x = (struct extent){ .start = s, .end = end };
		ctr[PO_C_EXTENTS]++;
		return true;
	}
	if (x->pending)
		return false;	/* being moved now */
	/* a fault from before the move ended: nothing new */
	if (ts <= x->done_ts || ts - x->issued_ts < p[PO_HOLD_MS] * 1000000ull)
		return false;
	ctr[PO_C_REPOPULATED]++;
	return true;
}

/* The allocations made since the maps were read before, from their start. */
static void populate_fresh(struct populate_state *ps, const uint64_t *p, const struct pfe_env *env,
			   uint64_t ts, struct pfe_out *out, uint64_t *ctr)
{
	uint64_t s, end, room;
	struct extent *x;

	while (out->n < PFE_MAX_REQS && env->fresh(env->ctx, &s, &end, 1) == 1) {
		if (!wanted(ps, p, s, end, ts, &x, ctr))
			continue;
		room = p[PO_MAX_MB] << 20;
		chunks(x, s, end, p[PO_CHUNK_MB] << 20, &room, out);
		x->issued_ts = ts;
		x->done_ts = 0;
		ctr[PO_C_EAGER]++;
	}
}

static void populate_event(void *st, const uint64_t *p, const struct pfe_env *env,
			   const struct gt_event *e, struct pfe_out *out, uint64_t *ctr)
{
	struct populate_state *ps = st;
	uint64_t s, end, from, room, chunk = p[PO_CHUNK_MB] << 20;
	struct extent *x;

	if (!is_fault(e))
		return;
	if (e->ts_ns > ps->now)
		ps->now = e->ts_ns;
	if (!env || !env->extent || env->extent(env->ctx, e->addr, &s, &end)) {
		ctr[PO_C_UNMANAGED]++;
	} else if (wanted(ps, p, s, end, e->ts_ns, &x, ctr)) {
		/* From the fault's block to the end, then what lies before it. */
		room = p[PO_MAX_MB] << 20;
		from = e->addr & ~(PFE_BLOCK - 1);
		if (from < s)
			from = s;
		chunks(x, from, end, chunk, &room, out);
		chunks(x, s, from, chunk, &room, out);
		x->issued_ts = e->ts_ns;
		x->done_ts = 0;
	}
	if (p[PO_EAGER] && env && env->fresh)
		populate_fresh(ps, p, env, e->ts_ns, out, ctr);
}

static void populate_done(void *st, const uint64_t *p, const struct pfe_req *r, bool ok,
			  uint64_t end_ts)
{
	struct populate_state *ps = st;

	(void)p;
	(void)ok;
	for (int i = 0; i < NEXTENTS; i++) {
		struct extent *x = &ps->x[i];

		if (x->end && r->addr >= x->start && r->addr < x->end && x->pending) {
			if (--x->pending == 0)
				x->done_ts = end_ts;
			return;
		}
	}
}

static const struct pfe_policy populate_policy = {
	.name = "populate",
	.doc = "a managed allocation's first GPU fault moves all of it (fresh allocations, CPU-written buffers)",
	.params = populate_params,
	.nparams = PO_NPARAMS,
	.ctr_names = populate_ctrs,
	.state_size = sizeof(struct populate_state),
	.init = populate_init,
	.event = populate_event,
	.done = populate_done,
};

/* --- none: watches and counts, never migrates (a baseline) ------------- */

static const char *const none_ctrs[PFE_C_MAX];

static void none_init(void *st, const uint64_t *p)
{
	(void)st;
	(void)p;
}

static void none_event(void *st, const uint64_t *p, const struct pfe_env *env,
		       const struct gt_event *e, struct pfe_out *out, uint64_t *ctr)
{
	(void)st, (void)p, (void)env, (void)e, (void)out, (void)ctr;
}

static const struct pfe_policy none_policy = {
	.name = "none",
	.doc = "never migrate: the engine only counts (the cost of watching, the faults to beat)",
	.ctr_names = none_ctrs,
	.state_size = 1,
	.init = none_init,
	.event = none_event,
};

const struct pfe_policy *const pfe_policies[] = {
	&none_policy, &stream_policy, &stride_policy, &populate_policy, NULL,
};

_Static_assert(ST_NPARAMS <= PFE_MAX_PARAMS && SD_NPARAMS <= PFE_MAX_PARAMS &&
	       PO_NPARAMS <= PFE_MAX_PARAMS, "PFE_MAX_PARAMS");

const struct pfe_policy *pfe_policy_find(const char *name)
{
	for (int i = 0; pfe_policies[i]; i++)
		if (!strcmp(pfe_policies[i]->name, name))
			return pfe_policies[i];
	return NULL;
}

int pfe_run_init(struct pfe_run *r, const struct pfe_policy *pol, int argc, char **argv)
{
	memset(r, 0, sizeof(*r));
	r->pol = pol;
	for (int i = 0; i < pol->nparams; i++)
		r->params[i] = pol->params[i].def;
	for (; argc > 0; argc -= 2, argv += 2) {
		unsigned long long v;
		int i, err = param_parse_one(pol->params, (unsigned int)pol->nparams, argc, argv, &i, &v);

		if (err == PARAM_UNKNOWN)
			p_err("policy %s has no parameter '%s'", pol->name, argv[0]);
		if (err)
			return -1;
		r->params[i] = v;
	}
	r->state = calloc(1, pol->state_size);
	if (!r->state) {
		p_err("out of memory");
		return -1;
	}
	pol->init(r->state, r->params);
	return 0;
}

void pfe_run_event(struct pfe_run *r, const struct pfe_env *env, const struct gt_event *e,
		   struct pfe_out *out)
{
	int before = out->n;

	r->ctr[PFE_C_SEEN]++;
	if (is_fault(e))
		r->ctr[PFE_C_FAULTS]++;
	r->pol->event(r->state, r->params, env, e, out, r->ctr);
	for (int i = before; i < out->n; i++) {
		r->ctr[PFE_C_REQUESTS]++;
		r->ctr[PFE_C_REQ_BYTES] += out->req[i].len;
	}
}

void pfe_run_done(struct pfe_run *r, const struct pfe_req *q, bool ok, uint64_t end_ts)
{
	if (r->pol->done)
		r->pol->done(r->state, r->params, q, ok, end_ts);
}

void pfe_run_free(struct pfe_run *r)
{
	free(r->state);
	r->state = NULL;
}
