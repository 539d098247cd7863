// SPDX-License-Identifier: GPL-2.0
/*
 * feed.c - what the policy is given, and what the driver is asked to
 * record for it.
 *
 * Allocations: the watcher's events (the process's mappings as it makes
 * them) keep the engine's table (allocs.c), whose changes reach the policy
 * as ALLOC and FREE events at once, whether or not a fault is pending.
 * Without the watcher, a fault outside every known allocation reads the
 * maps then and there.  Lost events (the driver's queue or the watcher's
 * ring was full) reach the policy as a GAP.
 *
 * The interest switch: the driver records each GPU fault the engine asks
 * for, and that recording is what watching costs.  A policy that wants
 * every fault gets every fault.  One that wants an allocation's first
 * fault (populate) gets the driver's fault events on only while some
 * allocation has not faulted yet, and for a short sample when the driver's
 * own fault counter (nearly free) says faults go on while they are off.
 * One that wants none (none) never turns them on.  One that wants PULL
 * events (populate) gets the driver's CPU fault events on only while some
 * allocation the engine moved to a GPU within the last second has had no
 * CPU fault since: the first one in it is the CPU pulling it back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "engine_priv.h"

#define SAMPLE_S 0.005		/* a sample of faults, when the counter moves while off */
#define SAMPLE_FAULTS 64	/* faults counted while off that start a sample */
#define FAULT_EVENTS (1ull << UT_EV_GPU_FAULT)
#define CPU_EVENTS (1ull << UT_EV_CPU_FAULT)

/* CLOCK_MONOTONIC_RAW less CLOCK_MONOTONIC (the watcher's clock), now. */
static int64_t raw_minus_mono(void)
{
	struct timespec m;
	uint64_t r = monoraw_ns();

	clock_gettime(CLOCK_MONOTONIC, &m);
	return (int64_t)(r - ((uint64_t)m.tv_sec * 1000000000ull + m.tv_nsec));
}

/* Whether request q goes on with an allocation whose move has begun (a later chunk, a move again). */
static bool continues(struct engine *g, const struct pfe_request *q)
{
	struct alloc *x = allocs_find(&g->al, q->addr);

	return x && x->served;
}

/*
 * Runs the program over the batch and carries out what it asks: first the
 * requests that begin an allocation's move, then those that go on with one
 * begun (the rest of a large allocation's chunks), and before each of
 * those, the mappings made meanwhile (ALLOC: a new allocation's move comes
 * before the rest of an older one's; its wait is one chunk, not a whole
 * allocation).  Requests carried out in a nested run see the same order.
 * The mappings are read only in the turn's own flush (poll_in_flush): one
 * run from slot() may be inside a change of the table, or under a pointer
 * into it (on_entry's x), which reading mappings would move.
 */
static void flush(struct engine *g)
{
	struct pfe_io *io = g->run.io;
	struct pfe_request req[PFE_MAX_REQS];
	bool later[PFE_MAX_REQS];
	uint32_t n;

	if (!io->nev)
		return;
	if (pfe_run_batch(&g->run))
		return;
	/* the requests out first: their DONE events fill the next batch */
	n = io->nreq;
	memcpy(req, io->req, n * sizeof(req[0]));
	g->flush_depth++;
	for (uint32_t i = 0; i < n; i++) {
		later[i] = continues(g, &req[i]);
		if (!later[i])
			act(g, &req[i]);
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!later[i])
			continue;
		if (g->flush_depth == 1 && g->poll_in_flush && allocw_poll(&g->aw) > 0)
			flush(g);
		act(g, &req[i]);
	}
	g->flush_depth--;
}

static struct pfe_event *slot(struct engine *g)
{
	struct pfe_event *e = pfe_run_slot(&g->run);

	if (!e) {
		flush(g);
		e = pfe_run_slot(&g->run);
	}
	return e;
}

/* allocs.c's changes: ALLOC and FREE events, to a policy that wants them. */
static void emit(int kind, uint64_t s, uint64_t x, uint64_t ts, void *arg)
{
	struct engine *g = arg;
	struct pfe_event *e;

	g->run.ctr[kind == PFE_EV_ALLOC ? PFE_C_ALLOCS : PFE_C_FREES]++;
	if (!(g->wants & PFE_W_ALLOCS) || !(e = slot(g)))
		return;
	e->kind = kind;
	e->addr = e->ext_start = s;
	e->ext_end = x;
	e->flags = PFE_F_MANAGED;
	e->gpu = g->only >= 0 ? g->only : act_first_gpu(g);	/* where an eager move goes */
	e->ts_ns = ts;
	g->last_ev_ts = ts;
}

static void gap(struct engine *g, uint64_t lost)
{
	struct pfe_event *e = slot(g);
	uint64_t now = monoraw_ns();

	g->run.ctr[PFE_C_GAPS]++;
	if (!e)
		return;
	e->kind = PFE_EV_GAP;
	e->len = lost;
	e->ext_start = g->last_ev_ts ? g->last_ev_ts : now;
	e->ext_end = now;
	e->ts_ns = now;
	e->gpu = PFE_GPU_NONE;
}

static void on_mapping(const struct aw_event *ev, void *arg)
{
	struct engine *g = arg;

	if (ev->tgid == (uint32_t)g->w.pid)
		allocs_event(&g->al, ev, ev->ts_ns + g->skew);
}

/* The allocation of fault t, and whether the policy gets the fault. */
static bool wanted(struct engine *g, const struct gt_event *t, struct alloc **xp)
{
	struct alloc *x = allocw_on(&g->aw) ? allocs_find(&g->al, t->addr) :
			  allocs_find_read(&g->al, t->addr, monoraw_ns());
	bool first = x && allocs_fault(&g->al, x, t->ts_ns);

	*xp = x;
	if (g->wants & PFE_W_FAULTS)
		return true;
	if (!x || first)
		return true;	/* outside every allocation, or its first */
	if (mono_s() < g->sample_until && x->gen != g->run.ctr[PFE_C_SAMPLES]) {
		x->gen = (uint32_t)g->run.ctr[PFE_C_SAMPLES];
		return true;	/* once per allocation and sample */
	}
	return false;
}

/* A CPU fault: a PULL event when it is the first in an allocation since its move. */
static void on_cpu_fault(struct engine *g, const struct gt_event *t)
{
	struct alloc *x;
	struct pfe_event *e;

	if (!(g->wants & PFE_W_PULLS) || !(x = allocs_pull(&g->al, t->addr, t->ts_ns)))
		return;
	g->run.ctr[PFE_C_PULLS]++;
	e = slot(g);
	if (!e)
		return;
	e->kind = PFE_EV_PULL;
	e->addr = t->addr;
	e->ts_ns = t->ts_ns;
	e->gpu = PFE_GPU_NONE;
	e->access = t->access;
	e->flags = PFE_F_MANAGED;
	e->ext_start = x->s;
	e->ext_end = x->e;
	g->last_ev_ts = t->ts_ns;
}

static void on_entry(const uint8_t *entry, void *arg)
{
	struct engine *g = arg;
	struct pfe_event *e;
	struct gt_event t;
	struct alloc *x;
	bool dup;

	if (!ut_decode(entry, g->s.q.abi, &t))
		return;
	if (t.type == GT_EV_CPU_FAULT) {
		on_cpu_fault(g, &t);
		return;
	}
	if (t.type != GT_EV_GPU_FAULT)
		return;
	if (g->only >= 0 && t.gpu != g->only)
		return;		/* --gpu: the others' faults are not ours */
	/* the driver repeats a fault for each instance merged into it */
	dup = t.ts_ns == g->last_ts && t.batch == g->last_batch && t.addr >> 12 == g->last_page;
	g->last_ts = t.ts_ns;
	g->last_batch = t.batch;
	g->last_page = t.addr >> 12;
	x = NULL;
	if (dup ? !(g->wants & PFE_W_FAULTS) : !wanted(g, &t, &x))
		return;
	/* looked up first: a maps read may have added ALLOC events (and run the batch) */
	e = slot(g);
	if (!e)
		return;
	e->kind = PFE_EV_FAULT;
	e->addr = t.addr;
	e->ts_ns = t.ts_ns;
	e->gpu = t.gpu;
	e->access = t.access;
	e->flags = dup ? PFE_F_DUPLICATE : 0;
	g->last_ev_ts = t.ts_ns;
	if (x) {
		e->flags |= PFE_F_MANAGED;
		e->ext_start = x->s;
		e->ext_end = x->e;
	}
}

static void set_faults(struct engine *g, bool on)
{
	if (on == g->faults_on || ut_set_events(&g->s, FAULT_EVENTS, on))
		return;
	g->faults_on = on;
	g->run.ctr[on ? PFE_C_FAULTS_ON : PFE_C_FAULTS_OFF]++;
}

/* PFE_W_PULLS: the CPU's faults recorded while a moved allocation waits for one. */
static void set_cpu_faults(struct engine *g)
{
	bool on = (g->wants & PFE_W_PULLS) && allocs_pull_waiting(&g->al, monoraw_ns()) > 0;

	if (on == g->cpu_on || ut_set_events(&g->s, CPU_EVENTS, on))
		return;
	g->cpu_on = on;
	g->run.ctr[PFE_C_PULL_ON] += on;
}

static int awaiting(const struct allocs *a)
{
	int n = 0;

	for (int i = 0; i < a->n; i++)
		n += a->v[i].acc && !a->v[i].faulted && !a->v[i].served;
	return n;
}

/* Whether the driver is to record faults now (and a sample, when they go on unseen). */
static void interest(struct engine *g)
{
	uint64_t f = g->s.counters ? g->s.counters[UT_CTR_GPU_FAULTS] : 0;
	bool on;

	if (g->wants & PFE_W_FAULTS) {
		on = true;
	} else if (!(g->wants & PFE_W_FIRST_FAULT)) {
		on = false;
	} else {
		/* faults counted since recording went off (or the last sample) */
		if (!g->faults_on && f - g->drv_faults_at >= SAMPLE_FAULTS) {
			g->sample_until = mono_s() + SAMPLE_S;
			g->run.ctr[PFE_C_SAMPLES]++;
		}
		on = !allocw_on(&g->aw) || mono_s() < g->sample_until || awaiting(&g->al) > 0;
	}
	if (on || g->faults_on)
		g->drv_faults_at = f;
	set_faults(g, on);
	set_cpu_faults(g);
}

int feed_watch(struct engine *g)
{
	char err[256];
	uint32_t rdev;
	int ret;

	g->wants = g->run.pol->wants;
	allocs_init(&g->al, g->w.pid, emit, g);
	g->skew = raw_minus_mono();
	ret = ut_uvm_rdev(&rdev);
	if (ret)
		snprintf(err, sizeof(err), "no /dev/nvidia-uvm (%s)", strerror(-ret));
	else
		/* a policy that wants no ALLOC/FREE does not wake the engine per mapping call */
		ret = allocw_start(&g->aw, g->w.pid, rdev, g->wants & PFE_W_ALLOCS ? 0 : AW_T_NO_WAKE,
				   on_mapping, g, err, sizeof(err));
	if (ret)
		p_info("engine: %s; reading the process's maps on demand instead", err);
	g->run.ctr[PFE_C_WATCHER] = !ret;
	return 0;
}

int feed_start(struct engine *g)
{
	/* as the queue was opened (loop.c: only for a policy that wants GPU faults) */
	g->faults_on = (g->wants & (PFE_W_FAULTS | PFE_W_FIRST_FAULT)) != 0;
	/* the watcher runs already: what the maps miss now, it reports */
	allocs_resync(&g->al, monoraw_ns());
	interest(g);
	return 0;
}

void feed_turn(struct engine *g)
{
	/* (a negative fd, no watcher or no lanes, is left out by poll) */
	struct pollfd p[3] = { { .fd = g->s.queue_fd, .events = POLLIN },
			       { .fd = allocw_fd(&g->aw), .events = POLLIN },
			       { .fd = lane_fd(g), .events = POLLIN } };
	uint64_t lost;

	poll(p, 3, WAIT_MS);
	g->skew = raw_minus_mono();
	lane_reap(g);	/* moves that ended: their DONE events first in this batch */
	/* mappings first: a fault in a new allocation comes after its mapping */
	allocw_poll(&g->aw);
	lost = allocw_new_lost(&g->aw);
	if (lost) {
		g->run.ctr[PFE_C_WATCH_LOST] += lost;
		allocs_resync(&g->al, monoraw_ns());
		gap(g, lost);
	}
	interest(g);	/* a new allocation: recording on before anything else */
	while (ut_queue_consume(&g->s.q, 4096, on_entry, g))
		;
	lost = ut_queue_new_drops(&g->s.q);
	if (lost) {
		g->run.ctr[PFE_C_LOST] += lost;
		gap(g, lost);
	}
	g->poll_in_flush = true;	/* nothing of the table held here */
	flush(g);
	g->poll_in_flush = false;
	interest(g);
}

void feed_stop(struct engine *g)
{
	allocw_stop(&g->aw);
	allocs_finish(&g->al);
}
