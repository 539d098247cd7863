// SPDX-License-Identifier: GPL-2.0
/*
 * feed_test.c - the engine's flush (cmd/pfengine/feed.c, included) on a
 * scripted program and a recorded act(): the requests that begin an
 * allocation's move go before the rest of one already begun, and a mapping
 * made meanwhile is served before that rest.  No BPF, no driver: the
 * program, act() and the watcher's ring are stubs here.
 */
#include "../../cmd/pfengine/feed.c"

#include <stdio.h>
#include <stdlib.h>

#define M (1ull << 20)
#define A 0x7f0000000000ull	/* a large allocation: two chunks */
#define B 0x7f0100000000ull	/* a small one */
#define N 0x7f0200000000ull	/* made while A's first chunk moves */

static int pass, failed;
#define CHECK(name, cond) do { if (cond) { pass++; printf("ok   %s\n", name); } \
	else { failed++; printf("FAIL %s\n", name); } } while (0)

static struct engine *eng;
static uint64_t order[16];
static int norder, runs, polls, inject_at_poll = 1;

/* stubs: the program (scripted), the event slots, act(), the watcher's ring */
int pfe_run_batch(struct pfe_run *r)
{
	struct pfe_io *io = r->io;

	runs++;
	io->nev = 0;
	if (runs == 1) {	/* A in two chunks, then B */
		io->req[0] = (struct pfe_request){ .addr = A, .len = 2 * M };
		io->req[1] = (struct pfe_request){ .addr = A + 2 * M, .len = 2 * M };
		io->req[2] = (struct pfe_request){ .addr = B, .len = 2 * M };
		io->nreq = 3;
	} else {		/* the nested run: N's ALLOC */
		io->req[0] = (struct pfe_request){ .addr = N, .len = 2 * M };
		io->nreq = 1;
	}
	return 0;
}

struct pfe_event *pfe_run_slot(struct pfe_run *r)
{
	return r->io->nev < PFE_BATCH ? &r->io->ev[r->io->nev++] : NULL;
}

void act(struct engine *g, const struct pfe_request *q)
{
	if (norder < 16)
		order[norder++] = q->addr;
	allocs_served(&g->al, q->addr, q->len, 1000, 2000);
}

static void map(uint64_t addr, uint64_t len)
{
	struct aw_event e = { .op = AW_MMAP, .addr = addr, .len = len, .flags = AW_F_UVM, .prot = 3 };

	allocs_event(&eng->al, &e, 500);
}

int allocw_poll(struct allocw *w)
{
	(void)w;
	if (++polls != inject_at_poll)
		return 0;
	map(N, 2 * M);	/* a mapping made while the batch's moves ran */
	return 1;
}

/* the rest feed.c refers to, unused by flush */
int allocw_start(struct allocw *w, pid_t t, uint32_t r, uint32_t f,
		 void (*fn)(const struct aw_event *, void *), void *arg, char *err, size_t len)
{ (void)w; (void)t; (void)r; (void)f; (void)fn; (void)arg; (void)err; (void)len; return -1; }
void allocw_stop(struct allocw *w) { (void)w; }
int allocw_fd(const struct allocw *w) { (void)w; return -1; }
bool allocw_on(const struct allocw *w) { (void)w; return true; }
uint64_t allocw_new_lost(struct allocw *w) { (void)w; return 0; }
int ut_set_events(struct ut_session *s, uint64_t m, bool on) { (void)s; (void)m; (void)on; return 0; }
int ut_uvm_rdev(uint32_t *r) { *r = 0; return 0; }
bool ut_decode(const uint8_t *e, enum ut_abi abi, struct gt_event *t) { (void)e; (void)abi; (void)t; return false; }
uint32_t ut_queue_consume(struct ut_queue *q, uint32_t max, ut_entry_fn fn, void *arg)
{ (void)q; (void)max; (void)fn; (void)arg; return 0; }
uint64_t ut_queue_new_drops(struct ut_queue *q) { (void)q; return 0; }
int act_first_gpu(const struct engine *g) { (void)g; return 0; }
/* no lanes: the order checked is the one act() is given (lane.c keeps it per allocation) */
int lane_fd(const struct engine *g) { (void)g; return -1; }
void lane_reap(struct engine *g) { (void)g; }
void p_info(const char *fmt, ...) { (void)fmt; }

int main(void)
{
	static struct engine g;
	static struct pfe_io io;

	eng = &g;
	g.run.io = &io;
	g.wants = PFE_W_ALLOCS;
	g.only = -1;
	allocs_init(&g.al, 1, emit, &g);
	map(A, 4 * M);
	map(B, 2 * M);
	CHECK("two allocations, their ALLOC events in the batch", g.al.n == 2 && io.nev == 2);
	g.poll_in_flush = true;		/* as feed_turn's own flush */
	flush(&g);
	CHECK("four moves", norder == 4);
	CHECK("A's first chunk first", order[0] == A);
	CHECK("B's move before the rest of A's", order[1] == B);
	CHECK("N, made meanwhile, before the rest of A's", order[2] == N && runs == 2);
	CHECK("the rest of A's last", order[3] == A + 2 * M);
	CHECK("the nested run back to depth 0", g.flush_depth == 0);
	CHECK("all three served", g.al.served == 3);

	/* nothing new on the ring: the order is the program's, less the deferred chunk */
	norder = runs = polls = 0;
	inject_at_poll = 0;
	allocs_free(&g.al);
	allocs_init(&g.al, 1, emit, &g);
	io.nev = 0;
	map(A, 4 * M);
	map(B, 2 * M);
	flush(&g);
	CHECK("no mapping meanwhile: A, B, then A's rest; one run", norder == 3 && order[0] == A &&
	      order[1] == B && order[2] == A + 2 * M && runs == 1);
	/* a run from slot() (inside a change of the table): the ring is not read */
	norder = runs = polls = 0;
	inject_at_poll = 1;
	g.poll_in_flush = false;
	allocs_free(&g.al);
	allocs_init(&g.al, 1, emit, &g);
	io.nev = 0;
	map(A, 4 * M);
	map(B, 2 * M);
	flush(&g);
	CHECK("outside the turn's own flush: no mapping read, A, B, A's rest", polls == 0 && norder == 3 &&
	      order[0] == A && order[1] == B && order[2] == A + 2 * M);
	allocs_free(&g.al);
	printf("%d passed, %d failed\n", pass, failed);
	return failed != 0;
}
