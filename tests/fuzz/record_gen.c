// SPDX-License-Identifier: GPL-2.0
/*
 * record_gen - trace records for the report tests and the fuzzer: sane
 * ones, the crafted ones of known bugs, and a corpus of structured
 * mutations (deterministic for a seed) of the classes a hostile or
 * damaged file has: huge and negative-looking values, counts, timestamps
 * out of order or far away, control bytes in strings, odd header and event
 * sizes, truncation.
 *
 *   record_gen sample FILE         faults, batches, migrations, replays, evictions
 *                                  (a version-1 record, as gpuctl wrote before 2)
 *   record_gen pictures FILE       version 2: two GPUs, two processes (one named with
 *                                  < & " ' , ESC), four allocations (two 760 GB
 *                                  apart, one untouched), faults at known times and
 *                                  addresses, printed as lines on stdout:
 *                                  "fault NS ADDR read|write GPU PID" (NS after the start)
 *   record_gen many FILE N         version 2: N faults over two allocations and 10 s
 *   record_gen demo FILE           version 2, the README's sample: a sweep with
 *                                  prefetch ahead of it on GPU 0, a strided reader
 *                                  on GPU 1, evictions, replays
 *   record_gen wide FILE           faults spread over 2^47 and up to 2^64 - 1
 *   record_gen single FILE | lost FILE | empty FILE   one fault; lost events only;
 *                                  a header alone
 *   record_gen tsg FILE            TSG events of two processes
 *   record_gen craft KIND FILE     KIND: overflow (latencies whose sum wraps),
 *                                  ctrl (ESC, BEL, CSI in the header strings),
 *                                  gaps (fault times far apart, back and forth),
 *                                  gpusN (GPU g of N: g + 1 faults, 4 KiB in)
 *   record_gen corpus DIR N [SEED] N mutated records, DIR/r000 ...
 *
 * Built with -Icmd -Ibpf: the layouts are gpuctl's own (record.h, trace_uvm.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/record.h"

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("record_gen");
			exit(1);
		}
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Values that break arithmetic: limits, sign bits, the reader's bounds and one past. */
static const uint64_t nasty64[] = {
	0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
	0x100000000ull, 1ull << 47, GT_MAX_EVENT_BYTES, GT_MAX_EVENT_BYTES + 1,
	GT_MAX_LATENCY_NS, GT_MAX_LATENCY_NS + 1, GT_MAX_TS_SKEW_NS, 1ull << 62,
	0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffffeull,
	0xffffffffffffffffull, 0x5555555555555556ull,
};

static uint16_t version = GT_VERSION;

static void header(struct buf *b, const char *backend, const char *what, uint64_t start)
{
	struct gt_file_header h = { 0 };

	memcpy(h.magic, GT_MAGIC, 8);
	h.version = version;
	h.header_len = sizeof(h);
	h.event_size = sizeof(struct gt_event);
	h.start_realtime_ns = 1700000000ull * 1000000000ull;
	h.start_ts_ns = start;
	snprintf(h.host, sizeof(h.host), "testhost");
	snprintf(h.driver, sizeof(h.driver), "550.163.01");
	snprintf(h.backend, sizeof(h.backend), "%s", backend);
	snprintf(h.what, sizeof(h.what), "%s", what);
	h.target_pid = 4242;
	put(b, &h, sizeof(h));
}

static struct gt_event ev(uint8_t type, uint64_t ts)
{
	struct gt_event e = { .type = type, .ts_ns = ts, .pid = 4242, .gpu = 0,
			      .src = GT_PROC_CPU, .dst = GT_PROC_CPU };

	return e;
}

static void sample(struct buf *b)
{
	uint64_t t = 1000000000;

	version = 1;
	header(b, "bpf", "all", t);
	version = GT_VERSION;
	for (int i = 0; i < 64; i++) {
		struct gt_event e = ev(GT_EV_GPU_FAULT, t + 1000 * i);

		e.addr = 0x7f0000000000ull + (uint64_t)(i % 16) * 0x200000 + (i * 4096);
		e.access = 1 + i % 4;
		e.batch = i / 8;
		e.flags = i % 5 == 0 ? GT_F_DUPLICATE : 0;
		put(b, &e, sizeof(e));
		if (i % 8 == 7) {
			e = ev(GT_EV_BATCH, t + 1000 * i + 500);
			e.count = 8;
			e.latency_ns = 20000 + i * 100;
			e.gpu = GT_GPU_NONE;
			put(b, &e, sizeof(e));
			e = ev(GT_EV_REPLAY, t + 1000 * i + 600);
			put(b, &e, sizeof(e));
		}
		if (i % 4 == 0) {
			e = ev(GT_EV_MIGRATION, t + 1000 * i + 100);
			e.addr = 0x7f0000000000ull + (uint64_t)(i % 16) * 0x200000;
			e.bytes = 65536;
			e.cause = i % 8 ? GT_CAUSE_FAULT : GT_CAUSE_PREFETCH;
			e.flags = GT_F_TO_GPU;
			e.src = GT_PROC_CPU;
			e.dst = 0;
			put(b, &e, sizeof(e));
		}
	}
	struct gt_event e = ev(GT_EV_EVICTION, t + 70000);

	e.bytes = 2 << 20;
	put(b, &e, sizeof(e));
	e = ev(GT_EV_LOST, t + 70001);
	e.count = 3;
	put(b, &e, sizeof(e));
}

static void tsg(struct buf *b)
{
	uint64_t t = 5000000000ull;

	header(b, "rm", "tsg", t);
	for (uint32_t i = 0; i < 6; i++) {
		struct gt_event e = ev(GT_EV_TSG, t + i * 1000);

		e.pid = 100 + i % 2;
		e.addr = 0x5c000000 + i;
		e.batch = 0xc1d00000 + i % 2;
		e.count = i + 1;
		e.gpu = GT_GPU_NONE;
		put(b, &e, sizeof(e));
		e.type = GT_EV_TSG_SET;
		e.cause = 1 + i % 3;
		e.bytes = i % 3 == 1 ? 2 : 500;
		put(b, &e, sizeof(e));
		e.type = GT_EV_TSG_FREE;
		e.cause = 0;
		e.bytes = 0;
		e.flags = i % 2 ? GT_F_WITH_CLIENT : GT_F_AT_EXIT;
		put(b, &e, sizeof(e));
	}
}

static int craft(struct buf *b, const char *kind)
{
	if (!strcmp(kind, "overflow")) {
		/* Three batches of (2^64 - 1) / 3 + 1 ns: the sum wraps to 2. */
		header(b, "bpf", "all", 1000);
		for (int i = 0; i < 3; i++) {
			struct gt_event e = ev(GT_EV_BATCH, 2000 + i);

			e.count = 5;
			e.latency_ns = 0x5555555555555556ull;
			put(b, &e, sizeof(e));
		}
		return 0;
	}
	if (!strcmp(kind, "ctrl")) {
		struct gt_file_header *h;

		sample(b);
		h = (struct gt_file_header *)b->p;
		snprintf(h->host, sizeof(h->host), "h\x1b[31mred\x07\x9b" "2J\\");
		snprintf(h->driver, sizeof(h->driver), "5\x1b]0;title\x07");
		snprintf(h->backend, sizeof(h->backend), "bpf\x7f\x01");
		snprintf(h->what, sizeof(h->what), "all\r\n\t");
		return 0;
	}
	if (!strcmp(kind, "gaps")) {
		/* Faults a few years apart, back and forth: every gap is huge. */
		uint64_t start = 1ull << 60;

		header(b, "bpf", "all", start);
		for (int i = 0; i < 200; i++) {
			struct gt_event e = ev(GT_EV_GPU_FAULT, i % 2 ? start + GT_MAX_TS_SKEW_NS :
						 start - GT_MAX_TS_SKEW_NS);

			e.addr = (uint64_t)i << 30;
			put(b, &e, sizeof(e));
		}
		return 0;
	}
	if (!strncmp(kind, "gpus", 4) && atoi(kind + 4) > 0) {
		/* GPU g: g + 1 faults and a 4 KiB migration in, for N GPUs */
		int n = atoi(kind + 4);
		uint64_t t = 1000000000;

		header(b, "uvm-tools", "all", t);
		for (int g = 0; g < n; g++) {
			struct gt_event e;

			for (int k = 0; k <= g; k++) {
				e = ev(GT_EV_GPU_FAULT, t++);
				e.gpu = (uint16_t)g;
				e.addr = 0x7f0000000000ull + ((uint64_t)g << 21) + ((uint64_t)k << 12);
				put(b, &e, sizeof(e));
			}
			e = ev(GT_EV_MIGRATION, t++);
			e.gpu = (uint16_t)g;
			e.bytes = 4096;
			e.cause = GT_CAUSE_FAULT;
			e.flags = GT_F_TO_GPU;
			e.dst = (uint16_t)g;
			put(b, &e, sizeof(e));
		}
		return 0;
	}
	fprintf(stderr, "record_gen: unknown kind '%s'\n", kind);
	return 2;
}

static void meta(struct buf *b, uint8_t kind, uint32_t pid, uint16_t gpu, const char *p, size_t n)
{
	struct gt_event e = ev(GT_EV_META, 1000000000);
	static const char zero[8];

	e.cause = kind;
	e.pid = pid;
	e.gpu = gpu;
	e.count = (uint32_t)n;
	put(b, &e, sizeof(e));
	put(b, p, n);
	put(b, zero, (8 - n % 8) % 8);
}

static void alloc(struct buf *b, uint32_t pid, uint64_t addr, uint64_t len)
{
	struct gt_event e = ev(GT_EV_ALLOC, 1000000000);

	e.pid = pid;
	e.addr = addr;
	e.bytes = len;
	e.gpu = GT_GPU_NONE;
	e.flags = GT_F_FROM_MAPS;
	put(b, &e, sizeof(e));
}

static void fault(struct buf *b, uint64_t start, uint64_t ns, uint64_t addr, int write,
		  uint16_t gpu, uint32_t pid, FILE *list)
{
	struct gt_event e = ev(GT_EV_GPU_FAULT, start + ns);

	e.addr = addr;
	e.access = write ? GT_ACC_WRITE : GT_ACC_READ;
	e.gpu = gpu;
	e.pid = pid;
	put(b, &e, sizeof(e));
	if (list)
		fprintf(list, "fault %llu 0x%llx %s %u %u\n", (unsigned long long)ns,
		       (unsigned long long)addr, write ? "write" : "read", gpu, pid);
}

#define MiB (1ull << 20)
#define PA 0x7f0000000000ull			/* pid 4242, 64 MiB */
#define PB (PA + 760000000000ull / (2 * MiB) * (2 * MiB))	/* 760 GB on, 32 MiB */
#define PC 0x7e0000000000ull			/* pid 4343, 16 MiB, GPU 1 */
#define PD 0x7d0000000000ull			/* untouched */

static void pictures(struct buf *b, FILE *list)
{
	static const char gpu0[] = "GPU-6d6f6465-6c67-5055-8000-000000000001\0NVIDIA H100 80GB HBM3";
	static const char gpu1[] = "GPU-6d6f6465-6c67-5055-8000-000000000002\0NVIDIA H100 80GB HBM3";
	static const char weird[] = "py<&\"',\x1b>";
	uint64_t t = 1000000000, us = 1000;
	struct gt_event e;

	header(b, "uvm-tools", "all", t);
	meta(b, GT_META_GPU, 0, 0, gpu0, sizeof(gpu0) - 1);
	meta(b, GT_META_GPU, 0, 1, gpu1, sizeof(gpu1) - 1);
	meta(b, GT_META_COMM, 4242, GT_GPU_NONE, weird, sizeof(weird) - 1);
	meta(b, GT_META_COMM, 4343, GT_GPU_NONE, "trainer", 7);
	alloc(b, 4242, PA, 64 * MiB);
	alloc(b, 4242, PB, 32 * MiB);
	alloc(b, 4343, PC, 16 * MiB);
	alloc(b, 4242, PD, 8 * MiB);
	for (uint64_t i = 0; i < 12; i++)
		fault(b, t, 10 * us + i * 40 * us, PA + i * 5 * MiB + i * 4096, i % 2, 0, 4242, list);
	for (uint64_t i = 0; i < 6; i++)
		fault(b, t, 20 * us + i * 80 * us, PB + i * 5 * MiB, 1, 0, 4242, list);
	for (uint64_t i = 0; i < 6; i++)
		fault(b, t, 30 * us + i * 75 * us, PC + i * 5 * MiB / 2, 0, 1, 4343, list);
	for (uint64_t i = 0; i < 4; i++) {
		e = ev(GT_EV_MIGRATION, t + 15 * us + i * 100 * us);
		e.addr = PA + i * 8 * MiB;
		e.bytes = 2 * MiB;
		e.cause = i % 2 ? GT_CAUSE_PREFETCH : GT_CAUSE_FAULT;
		e.flags = GT_F_TO_GPU;
		e.latency_ns = 30 * us;
		e.dst = 0;
		put(b, &e, sizeof(e));
	}
	e = ev(GT_EV_EVICTION, t + 300 * us);
	e.addr = PA + MiB;
	e.bytes = 2 * MiB;
	put(b, &e, sizeof(e));
	e = ev(GT_EV_REPLAY, t + 250 * us);
	put(b, &e, sizeof(e));
	e = ev(GT_EV_LOST, t + 460 * us);
	e.count = 5;
	e.gpu = GT_GPU_NONE;
	e.pid = 0;
	put(b, &e, sizeof(e));
}

static void many(struct buf *b, uint64_t n)
{
	uint64_t t = 1000000000;

	header(b, "bpf", "all", t);
	meta(b, GT_META_COMM, 4242, GT_GPU_NONE, "many", 4);
	alloc(b, 4242, PA, 1024 * MiB);
	alloc(b, 4242, PB, 1024 * MiB);
	for (uint64_t i = 0; i < n; i++)
		fault(b, t, i * (10000000000ull / n), (i % 2 ? PA : PB) + (rnd() % (1024 * MiB)),
		      (int)(i % 3 == 0), (uint16_t)(i % 2), 4242, NULL);
}

static void demo(struct buf *b)
{
	static const char gpu0[] = "GPU-6d6f6465-6c67-5055-8000-000000000001\0NVIDIA H100 80GB HBM3";
	static const char gpu1[] = "GPU-6d6f6465-6c67-5055-8000-000000000002\0NVIDIA H100 80GB HBM3";
	uint64_t t = 1000000000, ms = 1000000;
	struct gt_event e;

	header(b, "uvm-tools", "all", t);
	meta(b, GT_META_GPU, 0, 0, gpu0, sizeof(gpu0) - 1);
	meta(b, GT_META_GPU, 0, 1, gpu1, sizeof(gpu1) - 1);
	meta(b, GT_META_COMM, 4242, GT_GPU_NONE, "python3", 7);
	meta(b, GT_META_COMM, 4343, GT_GPU_NONE, "stride_bench", 12);
	alloc(b, 4242, PA, 512 * MiB);
	alloc(b, 4242, PB, 64 * MiB);
	alloc(b, 4343, PC, 256 * MiB);
	/* python3 on GPU 0: a sweep over PA in 40 ms, writes in its second half; PB read throughout */
	for (uint64_t i = 0; i < 6000; i++) {
		uint64_t at = i * 40 * ms / 6000, off = (i * 512 * MiB / 6000) & ~4095ull;

		fault(b, t, at, PA + off + (rnd() % 8) * 4096, i > 3000, 0, 4242, NULL);
		if (i % 300 == 0) {
			e = ev(GT_EV_MIGRATION, t + at + 200000);
			e.addr = PA + off + 16 * MiB;
			e.bytes = 16 * MiB;
			e.cause = GT_CAUSE_PREFETCH;
			e.flags = GT_F_TO_GPU;
			e.latency_ns = 350000;
			e.dst = 0;
			put(b, &e, sizeof(e));
		}
		if (i % 40 == 0) {
			e = ev(GT_EV_MIGRATION, t + at + 30000);
			e.addr = PA + off;
			e.bytes = 2 * MiB;
			e.cause = GT_CAUSE_FAULT;
			e.flags = GT_F_TO_GPU;
			e.latency_ns = 60000;
			e.dst = 0;
			put(b, &e, sizeof(e));
			e = ev(GT_EV_REPLAY, t + at + 95000);
			put(b, &e, sizeof(e));
		}
		if (i % 5 == 0)
			fault(b, t, at + 1000, PB + rnd() % (64 * MiB), 0, 0, 4242, NULL);
	}
	/* stride_bench on GPU 1: every 8th 2 MiB block of PC, three passes, from 10 ms */
	for (uint64_t pass = 0; pass < 3; pass++)
		for (uint64_t k = 0; k < 128; k += 8)
			for (int j = 0; j < 12; j++)
				fault(b, t, 10 * ms + pass * 10 * ms + k * 60000 + j * 3000,
				      PC + k * 2 * MiB + j * 4096, 0, 1, 4343, NULL);
	for (uint64_t i = 0; i < 20; i++) {
		e = ev(GT_EV_EVICTION, t + 30 * ms + i * 500000);
		e.addr = PA + i * 2 * MiB;
		e.bytes = 2 * MiB;
		e.gpu = 0;
		put(b, &e, sizeof(e));
	}
}

static int special(struct buf *b, const char *kind)
{
	uint64_t t = 1000000000;

	if (!strcmp(kind, "demo")) {
		demo(b);
	} else if (!strcmp(kind, "wide")) {
		header(b, "bpf", "all", t);
		for (int i = 0; i < 64; i++)
			fault(b, t, (uint64_t)i * 1000, i == 63 ? UINT64_MAX : (uint64_t)i << 41,
			      i % 2, 0, 4242, NULL);
	} else if (!strcmp(kind, "single")) {
		header(b, "bpf", "all", t);
		fault(b, t, 5000, PA, 0, 0, 4242, NULL);
	} else if (!strcmp(kind, "lost")) {
		struct gt_event e = ev(GT_EV_LOST, t + 100);

		header(b, "bpf", "all", t);
		e.count = 1000;
		put(b, &e, sizeof(e));
		e.ts_ns += 100;
		put(b, &e, sizeof(e));
	} else if (!strcmp(kind, "empty")) {
		header(b, "bpf", "all", t);
	} else {
		return 0;
	}
	return 1;
}

/* One structured mutation of a sane record. */
static void mutate(struct buf *b)
{
	struct gt_file_header *h = (struct gt_file_header *)b->p;
	size_t nev = (b->len - sizeof(*h)) / sizeof(struct gt_event);
	struct gt_event *evs = (struct gt_event *)(b->p + sizeof(*h));
	int rounds = 1 + rnd() % 4;

	for (int r = 0; r < rounds; r++) {
		struct gt_event *e = &evs[rnd() % nev];

		switch (rnd() % 14) {
		case 0:		/* header sizes and version */
			h->version = (uint16_t)pick((const uint64_t[]){ 0, 1, 2, 0xffff }, 4);
			break;
		case 1:
			h->header_len = (uint16_t)pick((const uint64_t[]){ 0, 16, 167, 168, 169,
									   4096, 4097, 0xffff }, 8);
			break;
		case 2:
			h->event_size = (uint16_t)pick((const uint64_t[]){ 0, 55, 56, 57, 64,
									   1024, 1025, 0xffff }, 8);
			break;
		case 3:		/* start times */
			h->start_ts_ns = pick(nasty64, N(nasty64));
			h->start_realtime_ns = pick(nasty64, N(nasty64));
			break;
		case 4: {	/* control bytes, no NUL, in the strings */
			char *s[] = { h->host, h->driver, h->backend, h->what };
			size_t l[] = { sizeof(h->host), sizeof(h->driver), sizeof(h->backend),
				       sizeof(h->what) };
			int k = rnd() % 4;

			for (size_t i = 0; i < l[k]; i++)
				s[k][i] = (char)(rnd() % 4 ? rnd() % 0x20 : rnd());
			if (rnd() % 2)
				s[k][l[k] - 1] = '\0';
			break;
		}
		case 5:		/* the numbers of an event */
			e->bytes = pick(nasty64, N(nasty64));
			e->latency_ns = pick(nasty64, N(nasty64));
			break;
		case 6:
			e->addr = pick(nasty64, N(nasty64));
			e->pid = (uint32_t)pick(nasty64, N(nasty64));
			e->count = (uint32_t)pick(nasty64, N(nasty64));
			e->batch = (uint32_t)pick(nasty64, N(nasty64));
			break;
		case 7:		/* timestamps out of order, far away */
			e->ts_ns = pick(nasty64, N(nasty64));
			if (rnd() % 2)
				e->ts_ns = h->start_ts_ns - rnd() % 1000000;
			break;
		case 8:		/* enums out of range */
			e->type = (uint8_t)(rnd() % 2 ? rnd() % (GT_EV_MAX + 2) : rnd());
			e->access = (uint8_t)rnd();
			e->cause = (uint8_t)rnd();
			e->flags = (uint8_t)rnd();
			break;
		case 9:
			e->gpu = (uint16_t)rnd();
			e->src = (uint16_t)rnd();
			e->dst = (uint16_t)rnd();
			break;
		case 10:	/* truncated anywhere */
			b->len = rnd() % b->len;
			return;
		case 11:	/* junk appended */
			for (int i = rnd() % 100; i > 0; i--) {
				unsigned char c = (unsigned char)rnd();

				put(b, &c, 1);
			}
			return;
		case 12:	/* every event of one kind with the largest values accepted */
			for (size_t i = 0; i < nev; i++) {
				evs[i].latency_ns = GT_MAX_LATENCY_NS;
				evs[i].bytes = GT_MAX_EVENT_BYTES;
				evs[i].flags = GT_F_TO_GPU | GT_F_TO_CPU;
			}
			break;
		case 13:	/* many processes (the per-process TSG table) */
			for (size_t i = 0; i < nev; i++)
				evs[i].pid = (uint32_t)rnd();
			break;
		}
	}
}

static int write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct buf b = { 0 };
	int rc;

	if (argc == 3 && !strcmp(argv[1], "sample")) {
		sample(&b);
		return write_file(argv[2], &b);
	}
	if (argc == 3 && !strcmp(argv[1], "pictures")) {
		pictures(&b, stdout);
		return write_file(argv[2], &b);
	}
	if (argc == 4 && !strcmp(argv[1], "many")) {
		many(&b, strtoull(argv[3], NULL, 0));
		return write_file(argv[2], &b);
	}
	if (argc == 3 && special(&b, argv[1]))
		return write_file(argv[2], &b);
	if (argc == 3 && !strcmp(argv[1], "tsg")) {
		tsg(&b);
		return write_file(argv[2], &b);
	}
	if (argc == 4 && !strcmp(argv[1], "craft")) {
		rc = craft(&b, argv[2]);
		return rc ? rc : write_file(argv[3], &b);
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "corpus")) {
		int n = atoi(argv[3]);

		if (argc == 5)
			rng_state = strtoull(argv[4], NULL, 0) | 1;
		for (int i = 0; i < n; i++) {
			char path[4096];

			b.len = 0;
			if (i % 3 == 2)
				tsg(&b);
			else if (i % 3 == 1)
				pictures(&b, NULL);
			else
				sample(&b);
			mutate(&b);
			snprintf(path, sizeof(path), "%s/r%03d", argv[2], i);
			if (write_file(path, &b))
				return 1;
		}
		return 0;
	}
	fprintf(stderr, "usage: record_gen { sample FILE | pictures FILE | tsg FILE | "
		"many FILE N | wide FILE | single FILE | lost FILE | empty FILE | "
		"craft KIND FILE | corpus DIR N [SEED] }\n");
	return 2;
}
