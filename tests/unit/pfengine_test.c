// SPDX-License-Identifier: GPL-2.0
/*
 * pfengine_test - the prefetch engine's policies (cmd/pfengine/policies.c)
 * on crafted fault streams: each asserts the migrations it was designed to
 * make, and none where it should stay quiet; their parameters; the maps
 * parser (cmd/drv/uvm_maps.c) and the UUID forms (uvm.c).
 * Prints "ok"/"FAIL" lines and "N passed, N failed" (tests/lib.sh style).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int fake_extent(void *ctx, uint64_t addr, uint64_t *s, uint64_t *e)
{
	(void)ctx;
	for (int i = 0; i < next; i++) {
		if (addr >= ext[i][0] && addr < ext[i][1]) {
			*s = ext[i][0];
			*e = ext[i][1];
			return 0;
		}
	}
	return -1;
}

static const struct pfe_env env = { fake_extent, NULL, NULL };

/* Allocations "made since the maps were read": handed out once. */
static uint64_t fresh[8][2];
static int nfresh;

static int fake_fresh(void *ctx, uint64_t *s, uint64_t *e, int max)
{
	int n = nfresh < max ? nfresh : max;

	(void)ctx;
	for (int i = 0; i < n; i++) {
		s[i] = fresh[i][0];
		e[i] = fresh[i][1];
	}
	memmove(fresh, fresh + n, (nfresh - n) * sizeof(fresh[0]));
	nfresh -= n;
	return n;
}

static const struct pfe_env env_fresh = { fake_extent, NULL, fake_fresh };

static struct gt_event fault(uint64_t addr, uint64_t ts)
{
	return (struct gt_event){ .type = GT_EV_GPU_FAULT, .addr = addr, .ts_ns = ts };
}

/* Runs one fault through r; out gets what it asked for. */
static int feed(struct pfe_run *r, const struct pfe_env *e, uint64_t addr, uint64_t ts,
		struct pfe_out *out)
{
	struct gt_event ev = fault(addr, ts);

	out->n = 0;
	pfe_run_event(r, e, &ev, out);
	return out->n;
}

static bool req_is(const struct pfe_out *o, int i, uint64_t addr, uint64_t len)
{
	return i < o->n && o->req[i].addr == addr && o->req[i].len == len;
}

static struct pfe_run start(const char *name, int argc, char **argv)
{
	struct pfe_run r;

	if (pfe_run_init(&r, pfe_policy_find(name), argc, argv)) {
		printf("FAIL cannot start %s\n", name);
		exit(1);
	}
	return r;
}

static void test_stream(void)
{
	struct pfe_run r = start("stream", 0, NULL);
	struct pfe_out o;
	int total = 0;

	CHECK("stream: first block: nothing", feed(&r, NULL, BASE + BLK(0) + 4096, 1, &o) == 0);
	CHECK("stream: same block again: nothing", feed(&r, NULL, BASE + BLK(0) + 8192, 2, &o) == 0);
	feed(&r, NULL, BASE + BLK(1), 3, &o);
	CHECK("stream: second block (confidence 2): the next 8 blocks",
	      o.n == 1 && req_is(&o, 0, BASE + BLK(2), BLK(8)));
	feed(&r, NULL, BASE + BLK(2), 4, &o);
	CHECK("stream: GPU in a requested block: distance doubles, blocks 10..18 asked",
	      o.n == 1 && req_is(&o, 0, BASE + BLK(10), BLK(9)) && r.ctr[PFE_C_POLICY + 1] == 1);
	CHECK("stream: distance counter 16", r.ctr[PFE_C_POLICY + 2] == 16);
	for (int b = 3; b < 400; b++)
		total += feed(&r, NULL, BASE + BLK(b), 10 + b, &o);
	CHECK("stream: distance never above max_distance", r.ctr[PFE_C_POLICY + 2] <= 512);
	CHECK("stream: one stream seen", r.ctr[PFE_C_POLICY] == 1);
	CHECK("stream: every request counted", r.ctr[PFE_C_REQUESTS] == (uint64_t)total + 2);
	total = 0;
	for (int b = 350; b > 300; b -= 7)
		total += feed(&r, NULL, BASE + BLK(b), 500, &o);
	CHECK("stream: stragglers behind the head: no new stream, nothing asked",
	      total == 0 && r.ctr[PFE_C_POLICY] == 1 && r.ctr[PFE_C_POLICY + 3] == 8);
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
	feed(&r, &env, BASE + BLK(0), 1, &o);
	feed(&r, &env, BASE + BLK(1), 2, &o);
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
	struct pfe_out o;
	int total = 0;

	next = 0;
	feed(&r, NULL, BASE + BLK(0), 1, &o);
	CHECK("stride: one stride seen: nothing", feed(&r, NULL, BASE + BLK(5), 2, &o) == 0);
	feed(&r, NULL, BASE + BLK(10), 3, &o);
	CHECK("stride: confirmed: the next 4 strides",
	      o.n == 4 && req_is(&o, 0, BASE + BLK(15), BLK(1)) && req_is(&o, 3, BASE + BLK(30), BLK(1)));
	CHECK("stride: detected once, stride 5", r.ctr[PFE_C_POLICY] == 1 && r.ctr[PFE_C_POLICY + 1] == 5);
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
	struct pfe_req q;
	struct pfe_out o;
	uint64_t a = BASE, s2 = BASE + (4ull << 30);

	next = 3;
	ext[0][0] = a;			/* 64 MiB */
	ext[0][1] = a + 64 * MB;
	ext[1][0] = s2;			/* 1 GiB */
	ext[1][1] = s2 + 1024 * MB;
	ext[2][0] = BASE + (8ull << 30);	/* 16 KiB: below min_kb */
	ext[2][1] = ext[2][0] + 16384;

	feed(&r, &env, a + 10 * MB + 4096, 1000, &o);
	CHECK("populate: first fault: from its block to the end, then the part before",
	      o.n == 2 && req_is(&o, 0, a + 10 * MB, 54 * MB) && req_is(&o, 1, a, 10 * MB));
	CHECK("populate: the allocation counted", r.ctr[PFE_C_POLICY] == 1);
	CHECK("populate: while it moves: nothing", feed(&r, &env, a + 30 * MB, 1001, &o) == 0);
	q = (struct pfe_req){ a + 10 * MB, 54 * MB };
	pfe_run_done(&r, &q, true, 50000000);
	CHECK("populate: half done: still nothing", feed(&r, &env, a + 30 * MB, 60000000, &o) == 0);
	q = (struct pfe_req){ a, 10 * MB };
	pfe_run_done(&r, &q, true, 70000000);
	CHECK("populate: a fault from before the move ended: nothing",
	      feed(&r, &env, a + 30 * MB, 69000000, &o) == 0);
	feed(&r, &env, a + 40 * MB, 90000000, &o);
	CHECK("populate: a fault after it ended (freed and reused, or evicted): again",
	      o.n == 2 && r.ctr[PFE_C_POLICY + 2] == 1);
	pfe_run_free(&r);

	r = start("populate", 0, NULL);
	feed(&r, &env, s2, 1, &o);
	CHECK("populate: 1 GiB in 256 MiB calls", o.n == 4 && req_is(&o, 0, s2, 256 * MB) &&
	      req_is(&o, 3, s2 + 768 * MB, 256 * MB));
	CHECK("populate: allocations under min_kb left alone", feed(&r, &env, ext[2][0], 2, &o) == 0);
	CHECK("populate: a fault outside managed memory: nothing, counted",
	      feed(&r, &env, 4096, 3, &o) == 0 && r.ctr[PFE_C_POLICY + 1] == 1);
	CHECK("populate: no extents known: nothing", feed(&r, NULL, s2 + 8192, 4, &o) == 0);
	pfe_run_free(&r);

	/* eager: allocations made since the last read move before they fault */
	r = start("populate", 0, NULL);
	nfresh = 2;
	fresh[0][0] = s2;
	fresh[0][1] = s2 + 1024 * MB;
	fresh[1][0] = a;
	fresh[1][1] = a + 64 * MB;
	feed(&r, &env_fresh, a + 4096, 1, &o);
	CHECK("populate eager: the faulting allocation, then the fresh one it has not seen",
	      o.n == 5 && req_is(&o, 0, a, 64 * MB) && req_is(&o, 1, s2, 256 * MB) &&
	      req_is(&o, 4, s2 + 768 * MB, 256 * MB));
	CHECK("populate eager: counted once, the faulting one not twice", r.ctr[PFE_C_POLICY + 3] == 1 &&
	      r.ctr[PFE_C_POLICY] == 2 && nfresh == 0);
	CHECK("populate eager: a fault in the eagerly moved one while it moves: nothing",
	      feed(&r, &env_fresh, s2 + 8192, 2, &o) == 0);
	pfe_run_free(&r);

	char *noeager[] = { "eager", "0" };

	r = start("populate", 2, noeager);
	nfresh = 1;
	fresh[0][0] = s2;
	fresh[0][1] = s2 + 1024 * MB;
	feed(&r, &env_fresh, a + 4096, 1, &o);
	CHECK("populate eager 0: only the faulting allocation", o.n == 1 && nfresh == 1);
	nfresh = 0;
	pfe_run_free(&r);

	char *args[] = { "max_mb", "100", "chunk_mb", "64" };

	r = start("populate", 4, args);
	feed(&r, &env, s2 + 512 * MB, 1, &o);
	CHECK("populate max_mb 100 chunk_mb 64: 64 + 36 MiB from the fault",
	      o.n == 2 && req_is(&o, 0, s2 + 512 * MB, 64 * MB) && req_is(&o, 1, s2 + 576 * MB, 36 * MB));
	CHECK("populate: requested bytes counted", r.ctr[PFE_C_REQ_BYTES] == 100 * MB);
	pfe_run_free(&r);
}

static void test_common(void)
{
	struct pfe_run r;
	struct pfe_out o;
	struct gt_event e;
	int total = 0;
	char *bad1[] = { "nosuch", "1" }, *bad2[] = { "distance", "0" }, *bad3[] = { "distance" };

	r = start("none", 0, NULL);
	for (int b = 0; b < 50; b++)
		total += feed(&r, NULL, BASE + BLK(b), b, &o);
	CHECK("none: never migrates, counts every fault", total == 0 && r.ctr[PFE_C_FAULTS] == 50);
	pfe_run_free(&r);

	r = start("stream", 0, NULL);
	for (int b = 0; b < 5; b++) {
		e = fault(BASE + BLK(b), b);
		e.flags = GT_F_DUPLICATE;
		o.n = 0;
		pfe_run_event(&r, NULL, &e, &o);
		total += o.n;
		e = (struct gt_event){ .type = GT_EV_MIGRATION, .addr = BASE + BLK(b), .bytes = BLK(1) };
		pfe_run_event(&r, NULL, &e, &o);
		total += o.n;
	}
	CHECK("duplicate faults and migrations: seen, not acted on",
	      total == 0 && r.ctr[PFE_C_SEEN] == 10 && r.ctr[PFE_C_FAULTS] == 0);
	pfe_run_free(&r);

	CHECK("unknown parameter refused", pfe_run_init(&r, pfe_policy_find("stream"), 2, bad1) == -1);
	CHECK("parameter out of range refused", pfe_run_init(&r, pfe_policy_find("stream"), 2, bad2) == -1);
	CHECK("parameter without a value refused", pfe_run_init(&r, pfe_policy_find("stream"), 1, bad3) == -1);
	CHECK("unknown policy", pfe_policy_find("adaptive") == NULL);
	for (int i = 0; pfe_policies[i]; i++) {
		const struct pfe_policy *p = pfe_policies[i];
		bool okp = p->nparams <= PFE_MAX_PARAMS;

		for (int k = 0; k < p->nparams; k++)
			okp = okp && p->params[k].min <= p->params[k].def &&
			      p->params[k].def <= p->params[k].max && p->params[k].doc;
		char name[80];

		snprintf(name, sizeof(name), "%s: defaults within their ranges", p->name);
		CHECK(name, okp);
	}
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
	uint64_t s, e;
	char buf[48];
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	uvm_maps_init(&m, 1);
	CHECK("maps: parsed", f && uvm_maps_parse(&m, f) == 0);
	if (f)
		fclose(f);
	CHECK("maps: two extents (touching mappings joined; PROT_NONE, tools, heap skipped)", m.n == 2);
	CHECK("maps: the joined extent", m.n == 2 && m.x[0].start == 0x7f0000000000ull &&
	      m.x[0].end == 0x7f0000600000ull);
	m.loaded_s = 1e18;	/* no re-read of /proc */
	CHECK("maps: find inside", uvm_maps_find(&m, 0x7f0000500000ull, 1e9, &s, &e) == 0 &&
	      s == 0x7f0000000000ull);
	CHECK("maps: find outside", uvm_maps_find(&m, 0x7f0000800000ull, 1e9, &s, &e) == -1);
	CHECK("maps: covers a range inside", uvm_maps_covers(&m, 0x7f0000100000ull, 0x400000));
	CHECK("maps: does not cover a range past the end", !uvm_maps_covers(&m, 0x7f0000500000ull, 0x200000));
	CHECK("maps: does not cover the heap", !uvm_maps_covers(&m, 0x7f0002000000ull, 4096));
	{
		static const char more[] =
			"7f0000000000-7f0000600000 rw-s 7f0000000000 00:05 12 /dev/nvidia-uvm\n"
			"7f0000800000-7f0000a00000 rw-s 7f0000800000 00:05 12 /dev/nvidia-uvm\n"
			"7f0003000000-7f0003200000 rw-s 7f0003000000 00:05 12 /dev/nvidia-uvm\n";
		uint64_t fs[4], fe[4];
		FILE *g = fmemopen((void *)more, sizeof(more) - 1, "r");

		CHECK("maps: the first read has nothing fresh", uvm_maps_take_fresh(&m, fs, fe, 4) == 0);
		CHECK("maps: read again", g && uvm_maps_parse(&m, g) == 0);
		if (g)
			fclose(g);
		CHECK("maps: a new and a grown mapping are fresh, the same one is not",
		      uvm_maps_take_fresh(&m, fs, fe, 4) == 2 && fs[0] == 0x7f0000800000ull &&
		      fs[1] == 0x7f0003000000ull && fe[1] == 0x7f0003200000ull);
		CHECK("maps: fresh ones are handed out once", uvm_maps_take_fresh(&m, fs, fe, 4) == 0);
	}
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
	test_stream();
	test_stride();
	test_populate();
	test_common();
	test_maps_uuid();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
