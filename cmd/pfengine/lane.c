// SPDX-License-Identifier: GPL-2.0
/*
 * lane.c - the engine's moves, carried out beside its loop: LANES threads,
 * each calling UVM_MIGRATE for the requests given to it, in their order.
 *
 * Why: one thread moving one request at a time made an allocation created
 * while another moved wait for that whole call (H100, PyTorch without its
 * caching allocator: moves of 54 MiB on average and up to a 256 MiB chunk,
 * ~2 ms each and more; creation to the start of its move P99 8 ms, with a
 * mode at 2-3 ms: bench/results/engine-ab-2026-11-27-h100-session13.md).
 * UVM_MIGRATE takes the VA space's lock shared, so moves of different
 * allocations may run at once; the loop goes on reading faults and
 * mappings meanwhile.
 *
 * Order: the requests of one allocation (its chunks, a pull back to the
 * CPU) go to the lane that still holds one of them, so they run in the
 * order the policy asked; a request of an allocation none holds goes to
 * the lane with the fewest.  The loop alone touches the engine's state:
 * a lane only calls the driver and records the call's times and status;
 * the loop reaps them (lane_reap: counters, the allocations served, the
 * DONE event) when the lanes' eventfd wakes it.  When the engine ends, the
 * calls under way finish and the requests not started are dropped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "engine_priv.h"

struct lane_job {
	struct pfe_request q;
	uint64_t len, key, t0, t1;
	struct uvm_uuid dst;
	int gpu;			/* act.c's index: -1 the CPU */
	int ret;
	uint32_t st;
	bool dropped;			/* never started: the engine ended first */
};

struct lane {
	pthread_t th;
	struct lane_job q[LANE_JOBS];
	unsigned head, tail;		/* q[head % LANE_JOBS] runs; tail: the next free */
	struct lanes *ls;
};

struct lanes {
	pthread_mutex_t mu;
	pthread_cond_t work, space;
	struct lane l[LANES];
	struct lane_job done[LANES * LANE_JOBS], reaped[LANES * LANE_JOBS];
	unsigned ndone, outstanding;	/* outstanding: given and not reaped yet */
	int efd, uvm_fd, started;
	bool async, stop;
};

/*
 * A lane's requests not started, handed back unmade (under ls->mu).  The
 * engine stops when the process is gone (its ranges with it: every call
 * would fail after waiting its turn), at --duration's end, or when told to:
 * nothing waits for these moves any more.
 */
static void drop(struct lanes *ls, struct lane *l)
{
	for (; l->head != l->tail; l->head++) {
		ls->done[ls->ndone] = l->q[l->head % LANE_JOBS];
		ls->done[ls->ndone++].dropped = true;
	}
	(void)!write(ls->efd, &(uint64_t){ 1 }, sizeof(uint64_t));
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct lanes *ls = l->ls;
	struct lane_job j;

	pthread_mutex_lock(&ls->mu);
	for (;;) {
		while (l->head == l->tail && !ls->stop)
			pthread_cond_wait(&ls->work, &ls->mu);
		if (l->head == l->tail)
			break;	/* stopped, nothing left */
		if (ls->stop) {	/* the engine ends: what has not started never will */
			drop(ls, l);
			continue;
		}
		j = l->q[l->head % LANE_JOBS];
		pthread_mutex_unlock(&ls->mu);
		j.t0 = monoraw_ns();
		j.ret = uvm_migrate(ls->uvm_fd, j.q.addr, j.len, &j.dst, ls->async, &j.st);
		j.t1 = monoraw_ns();
		pthread_mutex_lock(&ls->mu);
		ls->done[ls->ndone++] = j;	/* at most every slot of every lane */
		l->head++;
		pthread_cond_broadcast(&ls->space);
		/* (a write refused: the counter is full, which wakes the loop as well) */
		(void)!write(ls->efd, &(uint64_t){ 1 }, sizeof(uint64_t));
	}
	pthread_mutex_unlock(&ls->mu);
	return NULL;
}

int lane_start(struct engine *g, char *err, size_t len)
{
	struct lanes *ls = calloc(1, sizeof(*ls));
	sigset_t all, old;
	int ret = 0;

	if (!ls) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	pthread_mutex_init(&ls->mu, NULL);
	pthread_cond_init(&ls->work, NULL);
	pthread_cond_init(&ls->space, NULL);
	ls->uvm_fd = g->s.uvm_fd;
	ls->async = g->o->async;
	ls->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ls->efd < 0) {
		snprintf(err, len, "eventfd: %s", strerror(errno));
		free(ls);
		return -1;
	}
	g->lanes = ls;
	/* signals are the loop's (a stop): a call in a lane is never interrupted */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < LANES; i++) {
		ls->l[i].ls = ls;
		ret = pthread_create(&ls->l[i].th, NULL, lane_main, &ls->l[i]);
		if (ret)
			break;
		ls->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		snprintf(err, len, "a move thread: %s", strerror(ret));
		lane_stop(g);
		return -1;
	}
	return 0;
}

int lane_fd(const struct engine *g)
{
	return g->lanes ? g->lanes->efd : -1;
}

/* The lane for key: the one that holds a request of it, else the one with the fewest. */
static struct lane *pick(struct lanes *ls, uint64_t key)
{
	struct lane *best = &ls->l[0];

	for (int i = 0; i < LANES; i++) {
		struct lane *l = &ls->l[i];

		for (unsigned k = l->head; k != l->tail; k++)
			if (l->q[k % LANE_JOBS].key == key)
				return l;
		if (l->tail - l->head < best->tail - best->head)
			best = l;
	}
	return best;
}

void lane_submit(struct engine *g, const struct pfe_request *q, int gpu, uint64_t len,
		 const struct uvm_uuid *dst)
{
	struct lanes *ls = g->lanes;
	struct alloc *x = allocs_find(&g->al, q->addr);
	uint64_t key = x ? x->s : q->addr, t0;
	struct lane *l;
	uint32_t st = 0;
	int ret;

	if (!ls) {	/* no lanes (they could not start): the move now, as one thread did */
		t0 = monoraw_ns();
		ret = uvm_migrate(g->s.uvm_fd, q->addr, len, dst, g->o->async, &st);
		done_move(g, q, gpu, len, ret, st, t0, monoraw_ns());
		return;
	}
	pthread_mutex_lock(&ls->mu);
	for (;;) {
		l = pick(ls, key);
		if (l->tail - l->head < LANE_JOBS && ls->outstanding < LANES * LANE_JOBS)
			break;
		/* full: as with one thread, the loop waits for a move to end, and reaps it */
		pthread_cond_wait(&ls->space, &ls->mu);
		pthread_mutex_unlock(&ls->mu);
		lane_reap(g);
		pthread_mutex_lock(&ls->mu);
	}
	l->q[l->tail % LANE_JOBS] = (struct lane_job){ .q = *q, .len = len, .key = key,
						       .dst = *dst, .gpu = gpu };
	l->tail++;
	ls->outstanding++;
	pthread_cond_broadcast(&ls->work);
	pthread_mutex_unlock(&ls->mu);
	if (gpu >= 0)
		g->inflight[gpu] += len;
}

/* The moves that ended since: done.c's ending of each, in the loop. */
void lane_reap(struct engine *g)
{
	struct lanes *ls = g->lanes;
	uint64_t v;
	unsigned n;

	if (!ls)
		return;
	(void)!read(ls->efd, &v, sizeof(v));	/* (EAGAIN: reaped already) */
	pthread_mutex_lock(&ls->mu);
	n = ls->ndone;
	memcpy(ls->reaped, ls->done, n * sizeof(ls->done[0]));
	ls->ndone = 0;
	ls->outstanding -= n;
	pthread_mutex_unlock(&ls->mu);
	for (unsigned i = 0; i < n; i++) {
		struct lane_job *j = &ls->reaped[i];

		if (j->gpu >= 0)
			g->inflight[j->gpu] -= j->len;
		if (j->dropped)
			continue;
		done_move(g, &j->q, j->gpu, j->len, j->ret, j->st, j->t0, j->t1);
	}
}

/* The moves under way ended and reaped, those not started dropped, the lanes ended. */
void lane_stop(struct engine *g)
{
	struct lanes *ls = g->lanes;

	if (!ls)
		return;
	pthread_mutex_lock(&ls->mu);
	ls->stop = true;
	pthread_cond_broadcast(&ls->work);
	pthread_mutex_unlock(&ls->mu);
	for (int i = 0; i < ls->started; i++)
		pthread_join(ls->l[i].th, NULL);
	lane_reap(g);
	close(ls->efd);
	pthread_cond_destroy(&ls->space);
	pthread_cond_destroy(&ls->work);
	pthread_mutex_destroy(&ls->mu);
	free(ls);
	g->lanes = NULL;
}
