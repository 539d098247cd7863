// SPDX-License-Identifier: GPL-2.0
/*
 * pfengine_test - the prefetch engine's BPF policies (bpf/engine_*.bpf.c),
 * loaded and run by the runner (cmd/pfengine/bpfrun.c) exactly as the engine
 * runs them, on crafted fault streams: each asserts the migrations it was
 * designed to make, and none where it should stay quiet; their parameters;
 * users' objects good and bad; the maps parser (cmd/pfengine/maps.c) and the
 * UUID forms (uvm.c).  Needs root (BPF) on the host; no GPU.
 * Prints "ok"/"FAIL" lines and "N passed, N failed" (tests/lib.sh style).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "pfengine/pfengine.h"
#include "uvm.h"

static int passed, failed;

#define CHECK(name, cond) do { if (cond) { passed++; printf("ok   %s\n", name); } \
	else { failed++; printf("FAIL %s (line %d)\n", name, __LINE__); } } while (0)

#define MB (1ull << 20)
#define BLK(n) ((uint64_t)(n) << PFE_BLOCK_SHIFT)
#define BASE (1ull << 40)	/* where the crafted allocations live */

/* Extents the crafted process has: [start, end) pairs. */
static uint64_t ext[8][2];
static int next;

static int fake_extent(uint64_t addr, uint64_t *s, uint64_t *e)
{
	for (int i = 0; i < next; i++) {
		if (addr >= ext[i][0] && addr < ext[i][1]) {
			*s = ext[i][0];
			*e = ext[i][1];
			return 0;
		}
	}
	return -1;
}

/* Allocations "made since the maps were read": handed out once, after the batch's faults. */
static uint64_t fresh[8][2];
static int nfresh;

/* What the last run asked for. */
struct out {
	struct pfe_request req[PFE_MAX_REQS];
	int n;
};

#define ENV ((void *)1)		/* the extents are known (the engine read the maps) */
#define ENV_FRESH ((void *)2)	/* and the fresh ones are handed out */

/* Runs one fault through r as a batch of its own; out gets what it asked for. */
static int feed_gpu(struct pfe_run *r, const void *env, uint64_t addr, uint64_t ts, uint16_t gpu,
		    struct out *out)
{
	struct pfe_event *e = pfe_run_slot(r);
	uint64_t s, x;

	e->kind = PFE_EV_FAULT;
	e->addr = addr;
	e->ts_ns = ts;
	e->gpu = gpu;
	e->access = PFE_ACC_READ;
	if (env && !fake_extent(addr, &s, &x)) {
		e->flags |= PFE_F_MANAGED;
		e->ext_start = s;
		e->ext_end = x;
	}
	while (env == ENV_FRESH && nfresh) {
		e = pfe_run_slot(r);
		e->kind = PFE_EV_ALLOC;
		e->addr = e->ext_start = fresh[0][0];
		e->ext_end = fresh[0][1];
		e->flags = PFE_F_MANAGED;
		e->ts_ns = ts;
		e->gpu = gpu;
		memmove(fresh, fresh + 1, --nfresh * sizeof(fresh[0]));
	}
	out->n = 0;
	if (pfe_run_batch(r)) {
		printf("FAIL the program did not run\n");
		failed++;
		return 0;
	}
	out->n = (int)r->io->nreq;
	memcpy(out->req, r->io->req, out->n * sizeof(out->req[0]));
	return out->n;
}

static int feed(struct pfe_run *r, const void *env, uint64_t addr, uint64_t ts, struct out *out)
{
	return feed_gpu(r, env, addr, ts, 0, out);
}

/* Request q was carried out at end_ts: its DONE event, alone. */
static void done(struct pfe_run *r, const struct pfe_request *q, bool ok, uint64_t end_ts)
{
	struct pfe_event *e = pfe_run_slot(r);

	e->kind = PFE_EV_DONE;
	e->addr = q->addr;
	e->len = q->len;
	e->cookie = q->cookie;
	e->gpu = q->dst;
	e->ts_ns = end_ts;
	e->flags = ok ? PFE_F_OK : 0;
	pfe_run_batch(r);
}

static bool req_is(const struct out *o, int i, uint64_t addr, uint64_t len)
{
	return i < o->n && o->req[i].addr == addr && o->req[i].len == len;
}

/* The program's counter by its BTF name (~0 when it has none). */
static uint64_t ctr(const struct pfe_run *r, const char *name)
{
	for (int i = 0; i < r->nctrs; i++)
		if (!strcmp(r->ctr_name[i], name))
			return *r->cv[i];
	return ~0ull;
}

static struct pfe_run start(const char *name, int argc, char **argv)
{
	struct pfe_run r;
	const struct pfe_policy *pol = pfe_policy_find(name);

	if (!pol || pfe_run_init(&r, pol, argc, argv) || pfe_run_load(&r)) {
		printf("FAIL cannot start %s\n", name);
		printf("%d passed, %d failed\n", passed, failed + 1);
		exit(1);
	}
	return r;
}

static void test_stream(void)
{
	struct pfe_run r = start("stream", 0, NULL);
	struct out o;
	int total = 0;

	CHECK("stream: first block: nothing", feed(&r, NULL, BASE + BLK(0) + 4096, 1, &o) == 0);
	CHECK("stream: same block again: nothing", feed(&r, NULL, BASE + BLK(0) + 8192, 2, &o) == 0);
	feed(&r, NULL, BASE + BLK(1), 3, &o);
	CHECK("stream: second block (confidence 2): the next 8 blocks",
	      o.n == 1 && req_is(&o, 0, BASE + BLK(2), BLK(8)));
	feed(&r, NULL, BASE + BLK(2), 4, &o);
	CHECK("stream: GPU in a requested block: distance doubles, blocks 10..18 asked",
	      o.n == 1 && req_is(&o, 0, BASE + BLK(10), BLK(9)) && ctr(&r, "caught_up") == 1);
	CHECK("stream: distance counter 16", ctr(&r, "cur_distance") == 16);
	for (int b = 3; b < 400; b++)
		total += feed(&r, NULL, BASE + BLK(b), 10 + b, &o);
	CHECK("stream: distance never above max_distance", ctr(&r, "cur_distance") <= 512);
	CHECK("stream: one stream seen", ctr(&r, "streams") == 1);
	CHECK("stream: every request counted", r.ctr[PFE_C_REQUESTS] == (uint64_t)total + 2);
	total = 0;
	for (int b = 350; b > 300; b -= 7)
		total += feed(&r, NULL, BASE + BLK(b), 500, &o);
	CHECK("stream: stragglers behind the head: no new stream, nothing asked",
	      total == 0 && ctr(&r, "streams") == 1 && ctr(&r, "stragglers") == 8);
	pfe_run_free(&r);

	/* Descending */
	r = start("stream", 0, NULL);
	feed(&r, NULL, BASE + BLK(100), 1, &o);
	feed(&r, NULL, BASE + BLK(99), 2, &o);
	CHECK("stream: descending: the 8 blocks below", o.n == 1 && req_is(&o, 0, BASE + BLK(91), BLK(8)));
	pfe_run_free(&r);

	/* No sequence: scattered blocks */
	r = start("stream", 0, NULL);
	total = 0;
	for (int i = 0; i < 200; i++)
		total += feed(&r, NULL, BASE + BLK((i * 7919) % 4096 * 5), i, &o);
	CHECK("stream: scattered faults: no migration", total == 0);
	pfe_run_free(&r);

	/* Cut to the allocation: 6 blocks only */
	next = 1;
	ext[0][0] = BASE;
	ext[0][1] = BASE + BLK(6);
	r = start("stream", 0, NULL);
	feed(&r, ENV, BASE + BLK(0), 1, &o);
	feed(&r, ENV, BASE + BLK(1), 2, &o);
	CHECK("stream: cut to the allocation's end", o.n == 1 && req_is(&o, 0, BASE + BLK(2), BLK(4)));
	pfe_run_free(&r);

	/* Parameters */
	char *args[] = { "distance", "2", "confidence", "3" };

	r = start("stream", 4, args);
	feed(&r, NULL, BASE + BLK(0), 1, &o);
	CHECK("stream confidence 3: nothing after two blocks", feed(&r, NULL, BASE + BLK(1), 2, &o) == 0);
	feed(&r, NULL, BASE + BLK(2), 3, &o);
	CHECK("stream distance 2: two blocks ahead", o.n == 1 && req_is(&o, 0, BASE + BLK(3), BLK(2)));
	pfe_run_free(&r);
}

static void test_stride(void)
{
	struct pfe_run r = start("stride", 0, NULL);
	struct out o;
	int total = 0;

	next = 0;
	feed(&r, NULL, BASE + BLK(0), 1, &o);
	CHECK("stride: one stride seen: nothing", feed(&r, NULL, BASE + BLK(5), 2, &o) == 0);
	feed(&r, NULL, BASE + BLK(10), 3, &o);
	CHECK("stride: confirmed: the next 4 strides",
	      o.n == 4 && req_is(&o, 0, BASE + BLK(15), BLK(1)) && req_is(&o, 3, BASE + BLK(30), BLK(1)));
	CHECK("stride: detected once, stride 5", ctr(&r, "strides_detected") == 1 && ctr(&r, "stride") == 5);
	feed(&r, NULL, BASE + BLK(15), 4, &o);
	CHECK("stride: next fault: only the one new stride", o.n == 1 && req_is(&o, 0, BASE + BLK(35), BLK(1)));
	CHECK("stride: faults inside a block: nothing", feed(&r, NULL, BASE + BLK(15) + 4096, 5, &o) == 0);
	pfe_run_free(&r);

	r = start("stride", 0, NULL);
	feed(&r, NULL, BASE + BLK(100), 1, &o);
	feed(&r, NULL, BASE + BLK(97), 2, &o);
	feed(&r, NULL, BASE + BLK(94), 3, &o);
	CHECK("stride: negative stride followed downwards",
	      o.n == 4 && req_is(&o, 0, BASE + BLK(91), BLK(1)) && req_is(&o, 3, BASE + BLK(82), BLK(1)));
	pfe_run_free(&r);

	r = start("stride", 0, NULL);
	for (int i = 0; i < 10; i++)
		total += feed(&r, NULL, BASE + BLK(i * 100), i, &o);
	CHECK("stride: above max_stride (64 blocks): nothing", total == 0);
	pfe_run_free(&r);

	r = start("stride", 0, NULL);
	feed(&r, NULL, BASE + BLK(0), 1, &o);
	feed(&r, NULL, BASE + BLK(1), 2, &o);
	feed(&r, NULL, BASE + BLK(2), 3, &o);
	CHECK("stride 1: the next 4 blocks as one request", o.n == 1 && req_is(&o, 0, BASE + BLK(3), BLK(4)));
	pfe_run_free(&r);

	char *args[] = { "degree", "2", "confidence", "1" };

	r = start("stride", 4, args);
	feed(&r, NULL, BASE + BLK(0), 1, &o);
	feed(&r, NULL, BASE + BLK(8), 2, &o);
	CHECK("stride confidence 1 degree 2: two strides after one",
	      o.n == 2 && req_is(&o, 0, BASE + BLK(16), BLK(1)) && req_is(&o, 1, BASE + BLK(24), BLK(1)));
	pfe_run_free(&r);
}

static void test_populate(void)
{
	struct pfe_run r = start("populate", 0, NULL);
	struct pfe_request q0, q1;
	struct out o;
	uint64_t a = BASE, s2 = BASE + (4ull << 30);

	next = 3;
	ext[0][0] = a;			/* 64 MiB */
	ext[0][1] = a + 64 * MB;
	ext[1][0] = s2;			/* 1 GiB */
	ext[1][1] = s2 + 1024 * MB;
	ext[2][0] = BASE + (8ull << 30);	/* 16 KiB: below min_kb */
	ext[2][1] = ext[2][0] + 16384;

	feed(&r, ENV, a + 10 * MB + 4096, 1000, &o);
	CHECK("populate: first fault: from its block to the end, then the part before",
	      o.n == 2 && req_is(&o, 0, a + 10 * MB, 54 * MB) && req_is(&o, 1, a, 10 * MB));
	q0 = o.req[0];
	q1 = o.req[1];
	CHECK("populate: the allocation counted", ctr(&r, "allocations") == 1);
	CHECK("populate: while it moves: nothing", feed(&r, ENV, a + 30 * MB, 1001, &o) == 0);
	done(&r, &q0, true, 50000000);
	CHECK("populate: half done: still nothing", feed(&r, ENV, a + 30 * MB, 60000000, &o) == 0);
	done(&r, &q1, true, 70000000);
	CHECK("populate: a fault from before the move ended: nothing",
	      feed(&r, ENV, a + 30 * MB, 69000000, &o) == 0);
	feed(&r, ENV, a + 40 * MB, 90000000, &o);
	CHECK("populate: a fault after it ended (freed and reused, or evicted): again",
	      o.n == 2 && ctr(&r, "repopulated") == 1);
	pfe_run_free(&r);

	r = start("populate", 0, NULL);
	feed(&r, ENV, s2, 1, &o);
	CHECK("populate: 1 GiB in 256 MiB calls", o.n == 4 && req_is(&o, 0, s2, 256 * MB) &&
	      req_is(&o, 3, s2 + 768 * MB, 256 * MB));
	CHECK("populate: allocations under min_kb left alone", feed(&r, ENV, ext[2][0], 2, &o) == 0);
	CHECK("populate: a fault outside managed memory: nothing, counted",
	      feed(&r, ENV, 4096, 3, &o) == 0 && ctr(&r, "unmanaged_faults") == 1);
	CHECK("populate: no extents known: nothing", feed(&r, NULL, s2 + 8192, 4, &o) == 0);
	pfe_run_free(&r);

	/* eager: allocations move when made, before they fault */
	char *eager[] = { "eager", "1" };

	r = start("populate", 2, eager);
	nfresh = 1;
	fresh[0][0] = s2;
	fresh[0][1] = s2 + 1024 * MB;
	feed(&r, ENV_FRESH, a + 4096, 1, &o);
	CHECK("populate eager: the faulting allocation, then the one just made",
	      o.n == 5 && req_is(&o, 0, a, 64 * MB) && req_is(&o, 1, s2, 256 * MB) &&
	      req_is(&o, 4, s2 + 768 * MB, 256 * MB));
	CHECK("populate eager: counted once, the faulting one not twice", ctr(&r, "eager_moved") == 1 &&
	      ctr(&r, "allocations") == 2 && nfresh == 0);
	CHECK("populate eager: a fault in the eagerly moved one while it moves: nothing",
	      feed(&r, ENV_FRESH, s2 + 8192, 2, &o) == 0);
	pfe_run_free(&r);

	char *noeager[] = { "eager", "0" };

	r = start("populate", 2, noeager);
	nfresh = 1;
	fresh[0][0] = s2;
	fresh[0][1] = s2 + 1024 * MB;
	feed(&r, ENV_FRESH, a + 4096, 1, &o);
	CHECK("populate eager 0: only the faulting allocation", o.n == 1 && nfresh == 0);
	nfresh = 0;
	pfe_run_free(&r);

	char *args[] = { "max_mb", "100", "chunk_mb", "64" };

	r = start("populate", 4, args);
	feed(&r, ENV, s2 + 512 * MB, 1, &o);
	CHECK("populate max_mb 100 chunk_mb 64: 64 + 36 MiB from the fault",
	      o.n == 2 && req_is(&o, 0, s2 + 512 * MB, 64 * MB) && req_is(&o, 1, s2 + 576 * MB, 36 * MB));
	CHECK("populate: requested bytes counted", r.ctr[PFE_C_REQ_BYTES] == 100 * MB);
	pfe_run_free(&r);
}

/* One ALLOC, FREE or PULL event as a batch of its own; how many requests it made. */
static int event(struct pfe_run *r, uint32_t kind, uint64_t s, uint64_t x, uint64_t addr,
		 uint8_t access, uint64_t ts, struct out *out)
{
	struct pfe_event *e = pfe_run_slot(r);

	e->kind = kind;
	e->addr = kind == PFE_EV_PULL ? addr : s;
	e->ext_start = s;
	e->ext_end = x;
	e->flags = PFE_F_MANAGED;
	e->access = access;
	e->ts_ns = ts;
	e->gpu = kind == PFE_EV_PULL ? PFE_GPU_NONE : 0;
	out->n = 0;
	if (pfe_run_batch(r))
		return -1;
	out->n = (int)r->io->nreq;
	memcpy(out->req, r->io->req, out->n * sizeof(out->req[0]));
	return out->n;
}

#define ALLOC(r, s, len, ts, o) event(r, PFE_EV_ALLOC, s, (s) + (len), 0, 0, ts, o)
#define FREE(r, s, len, ts, o) event(r, PFE_EV_FREE, s, (s) + (len), 0, 0, ts, o)
#define PULL(r, s, len, acc, ts, o) event(r, PFE_EV_PULL, s, (s) + (len), (s) + 4096, acc, ts, o)

/* populate's default (eager 1): every allocation moves when made, whatever the CPU did */
static void test_populate_auto(void)
{
	struct pfe_run r = start("populate", 0, NULL);
	uint64_t a = BASE, b = BASE + (1ull << 30);
	struct out o;
	int pe = param_find(r.pol->params, r.pol->nparams, "eager");

	CHECK("auto: eager's default is 1, its range 0..1", pe >= 0 && r.pol->params[pe].def == 1 &&
	      r.pol->params[pe].max == 1);
	CHECK("auto: no probe_every any more", param_find(r.pol->params, r.pol->nparams, "probe_every") < 0);
	CHECK("auto: a new allocation moves when made", ALLOC(&r, a, 64 * MB, 1, &o) == 1 &&
	      req_is(&o, 0, a, 64 * MB) && ctr(&r, "eager_moved") == 1);
	CHECK("auto: a CPU read after the move: not counted as a CPU write",
	      PULL(&r, a, 64 * MB, PFE_ACC_READ, 2, &o) == 0 && ctr(&r, "cpu_pulls") == 0);
	CHECK("auto: a CPU write after the move: counted, the rest (ahead_mb) to the CPU, then the watch",
	      PULL(&r, a, 64 * MB, PFE_ACC_WRITE, 3, &o) == 2 && o.req[0].dst == PFE_DST_CPU &&
	      req_is(&o, 0, a + 2 * MB, 62 * MB) && o.req[1].dst == PFE_DST_WATCH && ctr(&r, "cpu_pulls") == 1);
	CHECK("auto: the same write again: counted once, the watch alone",
	      PULL(&r, a, 64 * MB, PFE_ACC_WRITE, 4, &o) == 1 && o.req[0].dst == PFE_DST_WATCH &&
	      ctr(&r, "cpu_pulls") == 1 && ctr(&r, "ahead_moves") == 1);
	FREE(&r, a, 64 * MB, 5, &o);
	CHECK("auto: the next one of that size moves when made all the same",
	      ALLOC(&r, a, 64 * MB, 6, &o) == 1 && req_is(&o, 0, a, 64 * MB) && ctr(&r, "eager_moved") == 2);
	CHECK("auto: another size too", ALLOC(&r, b, 32 * MB, 7, &o) == 1 && ctr(&r, "eager_moved") == 3);
	pfe_run_free(&r);

	char *never[] = { "eager", "0" };

	r = start("populate", 2, never);
	CHECK("eager 0: never moved when made", ALLOC(&r, a, 64 * MB, 1, &o) == 0 &&
	      ctr(&r, "eager_moved") == 0);
	CHECK("eager 0: a PULL of what it did not move: nothing",
	      PULL(&r, a, 64 * MB, PFE_ACC_WRITE, 2, &o) == 0 && ctr(&r, "cpu_pulls") == 0);
	next = 1;
	ext[0][0] = a;
	ext[0][1] = a + 64 * MB;
	CHECK("eager 0: it moves on its first GPU fault",
	      feed(&r, ENV, a + 4096, 3, &o) == 1 && req_is(&o, 0, a, 64 * MB));
	pfe_run_free(&r);
}

/* populate trail 1 (ahead_mb 0): what the CPU finished writing moves back while it writes the rest */
static void test_populate_trail(void)
{
	char *args[] = { "trail", "1", "ahead_mb", "0" };
	struct pfe_run r = start("populate", 4, args);
	uint64_t a = BASE, len = 1024 * MB;
	struct out o;

	CHECK("trail: moved when made", ALLOC(&r, a, len, 1, &o) == 4);
	CHECK("trail: the CPU's first write at the start: only the watch again",
	      event(&r, PFE_EV_PULL, a, a + len, a + 4096, PFE_ACC_WRITE, 2, &o) == 1 &&
	      o.req[0].dst == PFE_DST_WATCH && req_is(&o, 0, a, len) && ctr(&r, "cpu_pulls") == 1);
	CHECK("trail: the front 100 MiB in: what lies lag_mb (64) behind it moves back",
	      event(&r, PFE_EV_PULL, a, a + len, a + 100 * MB + 8192, PFE_ACC_WRITE, 3, &o) == 1 &&
	      o.req[0].dst == 0 && req_is(&o, 0, a, 36 * MB) && ctr(&r, "trail_moves") == 1 &&
	      ctr(&r, "trail_bytes") == 36 * MB);
	CHECK("trail: a front too near what was moved: the watch alone",
	      event(&r, PFE_EV_PULL, a, a + len, a + 101 * MB, PFE_ACC_WRITE, 4, &o) == 1 &&
	      o.req[0].dst == PFE_DST_WATCH);
	CHECK("trail: a read far ahead: the watch alone, nothing moves",
	      event(&r, PFE_EV_PULL, a, a + len, a + 500 * MB, PFE_ACC_READ, 5, &o) == 1 &&
	      o.req[0].dst == PFE_DST_WATCH && ctr(&r, "trail_moves") == 1);
	CHECK("trail: the next step of the front: the next part moves",
	      event(&r, PFE_EV_PULL, a, a + len, a + 200 * MB, PFE_ACC_WRITE, 6, &o) == 1 &&
	      req_is(&o, 0, a + 36 * MB, 100 * MB) && ctr(&r, "trail_moves") == 2);
	CHECK("trail: the CPU back behind what was moved: trailing ends, nothing asked",
	      event(&r, PFE_EV_PULL, a, a + len, a + 10 * MB, PFE_ACC_READ, 7, &o) == 0 &&
	      ctr(&r, "trail_stops") == 1);
	CHECK("trail: and stays ended", event(&r, PFE_EV_PULL, a, a + len, a + 900 * MB, PFE_ACC_WRITE, 8, &o) == 0);
	pfe_run_free(&r);

	r = start("populate", 0, NULL);
	ALLOC(&r, a, len, 1, &o);
	CHECK("trail 0 (the default): a CPU write moves nothing to the GPU (ahead's window to the CPU, the watch)",
	      event(&r, PFE_EV_PULL, a, a + len, a + 100 * MB, PFE_ACC_WRITE, 2, &o) == 2 &&
	      o.req[0].dst == PFE_DST_CPU && o.req[1].dst == PFE_DST_WATCH && ctr(&r, "trail_moves") == 0);
	pfe_run_free(&r);
}

/* populate ahead_mb N: what lies ahead of the CPU's write front comes to it in one call */
static void test_populate_ahead(void)
{
	char *args[] = { "ahead_mb", "64" };
	struct pfe_run r = start("populate", 2, args);
	uint64_t a = BASE, len = 1024 * MB;
	struct out o;

	CHECK("ahead: moved when made", ALLOC(&r, a, len, 1, &o) == 4);
	CHECK("ahead: the CPU's first write: the next 62 MiB to the CPU, then the watch",
	      event(&r, PFE_EV_PULL, a, a + len, a + 4096, PFE_ACC_WRITE, 2, &o) == 2 &&
	      o.req[0].dst == PFE_DST_CPU && req_is(&o, 0, a + 2 * MB, 62 * MB) &&
	      o.req[1].dst == PFE_DST_WATCH && req_is(&o, 1, a, len) &&
	      ctr(&r, "ahead_moves") == 1 && ctr(&r, "ahead_bytes") == 62 * MB);
	CHECK("ahead: a read: the watch alone, nothing comes",
	      event(&r, PFE_EV_PULL, a, a + len, a + 300 * MB, PFE_ACC_READ, 3, &o) == 1 &&
	      o.req[0].dst == PFE_DST_WATCH && ctr(&r, "ahead_moves") == 1);
	CHECK("ahead: a write inside the window: only what is not there yet",
	      event(&r, PFE_EV_PULL, a, a + len, a + 40 * MB, PFE_ACC_WRITE, 4, &o) == 2 &&
	      req_is(&o, 0, a + 64 * MB, 40 * MB) && ctr(&r, "ahead_bytes") == 102 * MB);
	CHECK("ahead: the front past the window: the next window",
	      event(&r, PFE_EV_PULL, a, a + len, a + 104 * MB, PFE_ACC_WRITE, 5, &o) == 2 &&
	      req_is(&o, 0, a + 106 * MB, 62 * MB) && ctr(&r, "ahead_moves") == 3);
	CHECK("ahead: never past the allocation's end",
	      event(&r, PFE_EV_PULL, a, a + len, a + len - 8 * MB, PFE_ACC_WRITE, 6, &o) == 2 &&
	      req_is(&o, 0, a + len - 6 * MB, 6 * MB));
	CHECK("ahead: the CPU back a whole window behind: it ends, nothing asked",
	      event(&r, PFE_EV_PULL, a, a + len, a + 10 * MB, PFE_ACC_WRITE, 7, &o) == 0 &&
	      ctr(&r, "ahead_stops") == 1);
	CHECK("ahead: and stays ended", event(&r, PFE_EV_PULL, a, a + len, a + 900 * MB, PFE_ACC_WRITE, 8, &o) == 0 &&
	      ctr(&r, "ahead_moves") == 4);
	pfe_run_free(&r);

	char *both[] = { "ahead_mb", "64", "trail", "1" };

	r = start("populate", 4, both);
	ALLOC(&r, a, len, 1, &o);
	CHECK("ahead with trail: the first write: the window ahead, then trail's watch",
	      event(&r, PFE_EV_PULL, a, a + len, a + 4096, PFE_ACC_WRITE, 2, &o) == 3 &&
	      o.req[0].dst == PFE_DST_CPU && o.req[1].dst == PFE_DST_WATCH && o.req[2].dst == PFE_DST_WATCH);
	CHECK("ahead with trail: 100 MiB in: what is ahead to the CPU, what is behind to the GPU",
	      event(&r, PFE_EV_PULL, a, a + len, a + 100 * MB, PFE_ACC_WRITE, 3, &o) == 3 &&
	      o.req[0].dst == PFE_DST_CPU && req_is(&o, 0, a + 102 * MB, 62 * MB) &&
	      o.req[2].dst == 0 && req_is(&o, 2, a, 36 * MB));
	pfe_run_free(&r);

	char *off[] = { "ahead_mb", "0" };

	r = start("populate", 2, off);
	ALLOC(&r, a, len, 1, &o);
	CHECK("ahead_mb 0: a CPU write asks for nothing",
	      event(&r, PFE_EV_PULL, a, a + len, a + 100 * MB, PFE_ACC_WRITE, 2, &o) == 0 &&
	      ctr(&r, "ahead_moves") == 0);
	pfe_run_free(&r);

	r = start("populate", 0, NULL);
	ALLOC(&r, a, len, 1, &o);
	CHECK("the default (ahead_mb 256): the next 254 MiB to the CPU, then the watch",
	      event(&r, PFE_EV_PULL, a, a + len, a + 100 * MB, PFE_ACC_WRITE, 2, &o) == 2 &&
	      o.req[0].dst == PFE_DST_CPU && req_is(&o, 0, a + 102 * MB, 254 * MB) &&
	      o.req[1].dst == PFE_DST_WATCH && ctr(&r, "ahead_moves") == 1);
	pfe_run_free(&r);
}

static void test_common(void)
{
	struct pfe_run r;
	struct out o;
	struct pfe_event *e;
	int total = 0;
	char *bad1[] = { "nosuch", "1" }, *bad2[] = { "distance", "0" }, *bad3[] = { "distance" };

	r = start("none", 0, NULL);
	for (int b = 0; b < 50; b++)
		total += feed(&r, NULL, BASE + BLK(b), b, &o);
	CHECK("none: never migrates, counts every fault", total == 0 && r.ctr[PFE_C_FAULTS] == 50);
	CHECK("none: one program run per batch", r.ctr[PFE_C_CALLS] == 50);
	pfe_run_free(&r);

	r = start("stream", 0, NULL);
	for (int b = 0; b < 5; b++) {
		e = pfe_run_slot(&r);
		e->kind = PFE_EV_FAULT;
		e->addr = BASE + BLK(b);
		e->flags = PFE_F_DUPLICATE;
		e = pfe_run_slot(&r);
		e->kind = PFE_EV_DONE;
		e->addr = BASE + BLK(b);
		e->len = BLK(1);
	}
	pfe_run_batch(&r);
	CHECK("duplicate faults and completions: seen, not acted on",
	      r.io->nreq == 0 && r.ctr[PFE_C_SEEN] == 10 && r.ctr[PFE_C_FAULTS] == 0);
	/* a full batch: 256 blocks in sequence, in one run */
	for (int b = 0; b < PFE_BATCH; b++) {
		e = pfe_run_slot(&r);
		e->kind = PFE_EV_FAULT;
		e->addr = BASE + BLK(1000 + b);
	}
	CHECK("a batch holds PFE_BATCH events, no more", pfe_run_slot(&r) == NULL);
	CHECK("a full batch runs", pfe_run_batch(&r) == 0 && r.io->nreq > 0 && ctr(&r, "streams") == 1);
	pfe_run_free(&r);

	CHECK("unknown parameter refused", pfe_run_init(&r, pfe_policy_find("stream"), 2, bad1) == -1);
	CHECK("parameter out of range refused", pfe_run_init(&r, pfe_policy_find("stream"), 2, bad2) == -1);
	CHECK("parameter without a value refused", pfe_run_init(&r, pfe_policy_find("stream"), 1, bad3) == -1);
	CHECK("unknown policy", pfe_policy_find("multilevel") == NULL);
	for (int i = 0; pfe_builtin(i); i++) {
		const struct pfe_policy *p = pfe_builtin(i);
		bool okp = p->nparams <= PFE_MAX_PARAMS && strncmp(p->doc, "(broken", 7) && p->doc[0];
		char name[80];

		for (int k = 0; k < p->nparams; k++)
			okp = okp && p->params[k].min <= p->params[k].def &&
			      p->params[k].def <= p->params[k].max && p->params[k].doc[0];
		snprintf(name, sizeof(name), "%s: described, defaults within their ranges", p->name);
		CHECK(name, okp);
		r = start(p->name, 0, NULL);
		snprintf(name, sizeof(name), "%s: the verifier takes it", p->name);
		CHECK(name, r.prog_fd >= 0);
		pfe_run_free(&r);
	}
}

static void test_thrashing(void)
{
	struct pfe_run r = start("thrashing", 0, NULL);
	struct out o;
	struct pfe_request q;
	uint64_t ts = 1000;
	int asked = 0;

	next = 1;
	ext[0][0] = BASE;
	ext[0][1] = BASE + BLK(64);
	feed(&r, ENV, BASE + BLK(10) + 4096, ts, &o);
	CHECK("thrashing: a fault moves its block and the next (degree 2)",
	      o.n == 1 && req_is(&o, 0, BASE + BLK(10), BLK(2)));
	q = o.req[0];
	CHECK("thrashing: while it moves: nothing", feed(&r, ENV, BASE + BLK(10), ts + 1, &o) == 0);
	for (int k = 0; k < 3; k++) {
		done(&r, &q, true, ts += 100);
		/* ... and the GPU faults on it again: it went back to the CPU */
		asked += feed(&r, ENV, BASE + BLK(10) + 8192, ts += 100, &o);
		if (!o.n)
			break;
		q = o.req[0];
	}
	CHECK("thrashing: moved again after the first two bounces, not the third",
	      asked == 2 && ctr(&r, "bounced") == 3 && ctr(&r, "held") == 1);
	CHECK("thrashing: a held block is left alone",
	      feed(&r, ENV, BASE + BLK(10), ts += 100, &o) == 0 && ctr(&r, "left_alone") == 1);
	CHECK("thrashing: another block still moves", feed(&r, ENV, BASE + BLK(30), ts += 100, &o) == 1);
	CHECK("thrashing: the held block moves again after hold_ms",
	      feed(&r, ENV, BASE + BLK(10), ts + 3000000000ull, &o) == 1);
	CHECK("thrashing: a fault on another GPU goes to that GPU",
	      feed_gpu(&r, ENV, BASE + BLK(50), ts + 3000000001ull, 1, &o) == 1 && o.req[0].dst == 1);
	pfe_run_free(&r);
}

static void test_adaptive(void)
{
	struct pfe_run r = start("adaptive", 0, NULL);
	struct out o;
	int total = 0;

	next = 0;
	for (int b = 0; b < 80; b++)
		total += feed(&r, NULL, BASE + BLK(b), b, &o);
	CHECK("adaptive: sequential faults: migrated ahead, the degree raised",
	      total > 0 && ctr(&r, "raised") >= 2 && ctr(&r, "degree") >= 16);
	for (int i = 0; i < 400; i++)
		feed(&r, NULL, BASE + BLK(1000 + (i * 7919) % 4096 * 5), 100 + i, &o);
	CHECK("adaptive: random faults: the degree falls to 0", ctr(&r, "degree") == 0);
	total = 0;
	for (int i = 0; i < 20; i++)
		total += feed(&r, NULL, BASE + BLK(30000 + (i * 7919) % 4096 * 5), 600 + i, &o);
	CHECK("adaptive: at degree 0 nothing moves", total == 0);
	for (int b = 0; b < 70; b++)
		feed(&r, NULL, BASE + BLK(50000 + b), 700 + b, &o);
	CHECK("adaptive: sequential again: the degree comes back", ctr(&r, "degree") >= 1);
	pfe_run_free(&r);

	/* the blocks it moved do not fault: the next fault comes right after them */
	{
		char *w[] = { "window", "4" };
		int64_t b = 0;

		r = start("adaptive", 2, w);
		for (int i = 0; i < 24; i++) {
			feed(&r, NULL, BASE + BLK(b), i, &o);
			b = o.n ? (int64_t)((o.req[o.n - 1].addr + o.req[o.n - 1].len - BASE) >> PFE_BLOCK_SHIFT) : b + 1;
		}
		CHECK("adaptive: faults just past what it moved count as sequential: the degree grows",
		      ctr(&r, "raised") >= 2 && ctr(&r, "lowered") == 0);
		pfe_run_free(&r);
	}
}

/* A user's object (tests/policies/engine_*.elf), good and bad. */
static void test_user(void)
{
	static struct pfe_policy pol;
	enum pfe_file_kind kind;
	struct pfe_run r;
	struct out o;
	char *args[] = { "ahead", "4" };

	next = 0;
	CHECK("user object: the example is an engine policy",
	      pfe_policy_file("tests/policies/engine_example.elf", false, &pol, &kind) == 0 &&
	      kind == PFE_FILE_ENGINE && !strcmp(pol.name, "engine_example") && pol.nparams == 1 &&
	      !strcmp(pol.params[0].name, "ahead") && pol.params[0].max == 64);
	CHECK("user object: loads", pfe_run_init(&r, &pol, 2, args) == 0 && pfe_run_load(&r) == 0);
	if (r.io) {
		feed(&r, NULL, BASE + BLK(7) + 4096, 1, &o);
		CHECK("user object: its parameter set from the command line (ahead 4: 5 blocks)",
		      o.n == 1 && req_is(&o, 0, BASE + BLK(7), BLK(5)) && ctr(&r, "asked") == 1);
		*r.pv[0] = 0;	/* what `prefetch set` does through the pinned map */
		feed(&r, NULL, BASE + BLK(20), 2, &o);
		CHECK("user object: a live change of the parameter", o.n == 1 && req_is(&o, 0, BASE + BLK(20), BLK(1)));
	}
	pfe_run_free(&r);
	CHECK("user object: another ABI version refused",
	      pfe_policy_file("tests/policies/engine_bad_abi.elf", false, &pol, &kind) == -1 && kind == PFE_FILE_ENGINE);
	CHECK("user object: no SEC(\"syscall\") program refused",
	      pfe_policy_file("tests/policies/engine_bad_section.elf", false, &pol, &kind) == -1 && kind == PFE_FILE_OTHER);
	CHECK("user object: a struct_ops object is told apart",
	      pfe_file_kind("tests/policies/wrong_type.elf") == PFE_FILE_STRUCT_OPS);
	CHECK("user object: the verifier's refusal",
	      pfe_policy_file("tests/policies/engine_bad_verifier.elf", false, &pol, &kind) == 0 &&
	      pfe_run_init(&r, &pol, 0, NULL) == 0 && pfe_run_load(&r) == -1);
	pfe_run_free(&r);
	CHECK("user object: a missing file", pfe_policy_file("tests/policies/nosuch.elf", false, &pol, &kind) == -1);
}

/* issue 42: what a map takes of the kernel's memory, on any number of CPUs (mapcost.c). */
static void test_mapcost(void)
{
	unsigned long long pcpu2 = pfe_map_cost(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 4092, 14336, 0, 2);
	unsigned long long pcpu128 = pfe_map_cost(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 4092, 14336, 0, 128);
	unsigned long long hash = pfe_map_cost(BPF_MAP_TYPE_HASH, 4, 4, 6946816, 0, 2);
	unsigned long long arr = pfe_map_cost(BPF_MAP_TYPE_ARRAY, 4, 4092, 65536, 0, 2);
	unsigned long long lru = pfe_map_cost(BPF_MAP_TYPE_LRU_HASH, 8, 32, 65536, 0, 128);
	unsigned long long nopre = pfe_map_cost(BPF_MAP_TYPE_HASH, 4, 4, 65536, BPF_F_NO_PREALLOC, 128);
	unsigned long long pch = pfe_map_cost(BPF_MAP_TYPE_PERCPU_HASH, 8, 64, 4096, 0, 128);

	CHECK("map cost: a 56 MiB per-CPU array on 2 CPUs takes 112 MiB or more", pcpu2 >= 112 * MB);
	CHECK("map cost: the same on 128 CPUs takes 7 GiB or more", pcpu128 >= 7168 * MB);
	CHECK("map cost: a '53 MiB' hash (8-byte entries) takes over 500 MiB", hash > 500 * MB);
	CHECK("map cost: a 256 MiB array takes 256 MiB (and a page)",
	      arr >= 256 * MB && arr <= 256 * MB + 8192);
	CHECK("map cost: a 65536-entry LRU of 40-byte entries stays under 64 MiB on 128 CPUs",
	      lru > 65536ull * 88 && lru < 64 * MB);
	CHECK("map cost: no preallocation counts kmalloc classes and per-CPU caches",
	      nopre >= 65536ull * 64 + 96ull * 128 * 64);
	CHECK("map cost: a per-CPU hash counts its values per CPU",
	      pch >= 4096ull * 64 * 128 + 4096ull * (48 + 8 + 8));
}

/* Pinned maps: bpftool reads them, `prefetch set` writes a parameter through them. */
static void test_pins(void)
{
	const char *root = getenv("PFE_TEST_BPFFS");
	char dir[512], path[600], cmd[1400];
	struct pfe_run r;
	int d = -1;

	if (!root) {
		printf("skip pins: no bpffs to pin in (PFE_TEST_BPFFS)\n");
		return;
	}
	r = start("stream", 0, NULL);
	snprintf(dir, sizeof(dir), "%s/engine-test", root);
	CHECK("pins: the maps pinned", pfe_run_pin(&r, dir) == 0);
	snprintf(path, sizeof(path), "%s/params", dir);
	CHECK("pins: params, counters, pfe_io, bss", access(path, F_OK) == 0 &&
	      snprintf(path, sizeof(path), "%s/counters", dir) && access(path, F_OK) == 0 &&
	      snprintf(path, sizeof(path), "%s/pfe_io", dir) && access(path, F_OK) == 0 &&
	      snprintf(path, sizeof(path), "%s/bss", dir) && access(path, F_OK) == 0);
	for (int i = 0; i < r.pol->nparams; i++)
		if (!strcmp(r.pol->params[i].name, "distance"))
			d = i;
	CHECK("pins: set a parameter through the pinned map",
	      d >= 0 && pfe_pinned_set(dir, "distance", "16") == EXIT_OK && *r.pv[d] == 16);
	CHECK("pins: out of range refused", pfe_pinned_set(dir, "distance", "0") == EXIT_USAGE &&
	      *r.pv[d] == 16);
	CHECK("pins: an unknown parameter refused", pfe_pinned_set(dir, "nosuch", "1") == EXIT_USAGE);
	snprintf(cmd, sizeof(cmd), "bpftool map dump pinned %s/params 2>&1 | grep -q '\"distance\": 16' && "
		 "bpftool map dump pinned %s/bss 2>&1 | grep -q '\"st\"'", dir, dir);
	if (system("command -v bpftool >/dev/null") == 0)
		CHECK("pins: bpftool map dump shows the parameters and the state by name", system(cmd) == 0);
	pfe_run_free(&r);
	CHECK("pins: removed with the run", access(dir, F_OK) == -1);
}

static void test_maps_uuid(void)
{
	static const char text[] =
		"200000000-200200000 ---p 00000000 00:00 0 \n"
		"7f0000000000-7f0000400000 rw-s 7f0000000000 00:05 12 /dev/nvidia-uvm\n"
		"7f0000400000-7f0000600000 rw-s 7f0000400000 00:05 12 /dev/nvidia-uvm\n"
		"7f0000800000-7f0000a00000 ---p 7f0000800000 00:05 12 /dev/nvidia-uvm\n"
		"7f0001000000-7f0001200000 rw-s 00000000 00:05 13 /dev/nvidia-uvm-tools\n"
		"7f0002000000-7f0002200000 rw-p 00000000 00:00 0 [heap]\n"
		"7f0003000000-7f0003100000 rw-s 7f0003000000 00:05 12 /dev/nvidia-uvm\n";
	struct uvm_maps m;
	struct uvm_uuid u, back;
	char buf[48];
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	uvm_maps_init(&m, 1);
	CHECK("maps: parsed", f && uvm_maps_parse(&m, f) == 0);
	if (f)
		fclose(f);
	CHECK("maps: two extents (touching mappings joined; PROT_NONE, tools, heap skipped)", m.n == 2);
	CHECK("maps: the joined extent", m.n == 2 && m.x[0].start == 0x7f0000000000ull &&
	      m.x[0].end == 0x7f0000600000ull);
	CHECK("maps: covers a range inside", uvm_maps_covers(&m, 0x7f0000100000ull, 0x400000));
	CHECK("maps: does not cover a range past the end", !uvm_maps_covers(&m, 0x7f0000500000ull, 0x200000));
	CHECK("maps: does not cover the heap", !uvm_maps_covers(&m, 0x7f0002000000ull, 4096));
	uvm_maps_free(&m);

	CHECK("uuid: nvidia-smi form parsed", uuid_parse("GPU-4a1b2c3d-0011-2233-4455-66778899aabb", &u) == 0);
	uuid_format(&u, buf, sizeof(buf));
	CHECK("uuid: formatted back the same", !strcmp(buf, "GPU-4a1b2c3d-0011-2233-4455-66778899aabb"));
	CHECK("uuid: bare hex parsed the same", uuid_parse("4a1b2c3d00112233445566778899aabb", &back) == 0 &&
	      !memcmp(&u, &back, sizeof(u)));
	CHECK("uuid: too short refused", uuid_parse("GPU-4a1b", &u) == -1);
	CHECK("uuid: not hex refused", uuid_parse("GPU-4a1b2c3d-0011-2233-4455-66778899aaZZ", &u) == -1);
	CHECK("uuid: too long refused", uuid_parse("4a1b2c3d00112233445566778899aabbcc", &u) == -1);
	CHECK("uuid: the CPU's", uuid_is_cpu(&uvm_cpu_uuid));
}

int main(void)
{
	struct pfe_run probe;

	/* BPF_PROG_TYPE_SYSCALL + BPF_PROG_TEST_RUN need root (CAP_BPF) */
	if (pfe_run_init(&probe, pfe_policy_find("none"), 0, NULL) || pfe_run_load(&probe)) {
		printf("skip the programs: cannot load BPF here (not root?)\n");
	} else {
		pfe_run_free(&probe);
		test_stream();
		test_stride();
		test_populate();
		test_populate_auto();
		test_populate_trail();
		test_populate_ahead();
		test_common();
		test_thrashing();
		test_adaptive();
		test_user();
		test_pins();
	}
	test_maps_uuid();
	test_mapcost();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
