// SPDX-License-Identifier: GPL-2.0
/*
 * trace_queue_test - the uvm-tools queue consumer (cmd/uvm_tools.c) against
 * a synthetic producer that follows the driver's rules (uvm_tools.c
 * enqueue: full with one free slot left, drops counted per event type,
 * put_ahead/put_behind published after the entry), plus entry decoding and
 * the record file (cmd/record.c) round trip and its errors.
 * Prints "ok"/"FAIL" lines and "N passed, N failed" (tests/lib.sh style).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "uvm_tools.h"

static int passed, failed;

#define CHECK(name, cond) do { if (cond) { passed++; printf("ok   %s\n", name); } \
	else { failed++; printf("FAIL %s (line %d)\n", name, __LINE__); } } while (0)

/* ---- the synthetic producer: what enqueue_event_v2() does ---- */
struct producer {
	struct ut_ctrl ctrl;
	uint8_t *entries;
	uint32_t count;
	uint32_t stride;	/* the driver's sizeof(UvmEventEntry_V2) */
};

static void produce(struct producer *p, uint8_t type, uint64_t seq)
{
	uint32_t mask = p->count - 1;
	uint32_t get_behind = p->ctrl.get_behind & mask;
	uint32_t put = p->ctrl.put_behind & mask;
	uint8_t *e;

	if (((p->count + get_behind - put) & mask) == 1) {
		p->ctrl.dropped[type]++;
		return;
	}
	e = p->entries + (size_t)put * (p->stride ? p->stride : UT_ENTRY_SIZE);
	memset(e, 0, p->stride ? p->stride : UT_ENTRY_SIZE);
	e[0] = type;
	memcpy(e + 8, &seq, 8);	/* GpuFault: address at 8 */
	put = (put + 1) & mask;
	__atomic_store_n(&p->ctrl.put_ahead, put, __ATOMIC_RELEASE);
	__atomic_store_n(&p->ctrl.put_behind, put, __ATOMIC_RELEASE);
}

struct sink {
	uint64_t seen[64];
	int n;
};

static void collect(const uint8_t *entry, void *arg)
{
	struct sink *s = arg;
	uint64_t seq;

	memcpy(&seq, entry + 8, 8);
	if (s->n < 64)
		s->seen[s->n] = seq;
	s->n++;
}

static void setup(struct producer *p, struct ut_queue *q, uint32_t count)
{
	memset(p, 0, sizeof(*p));
	p->count = count;
	p->entries = calloc(count, UT_ENTRY_MAX);
	memset(q, 0, sizeof(*q));
	q->ctrl = &p->ctrl;
	q->entries = p->entries;
	q->count = count;
}

static int in_order(const struct sink *s, uint64_t first, int n)
{
	if (s->n != n)
		return 0;
	for (int i = 0; i < n && i < 64; i++)
		if (s->seen[i] != first + i)
			return 0;
	return 1;
}

static void test_queue(void)
{
	struct producer p;
	struct ut_queue q;
	struct sink s = { 0 };
	uint64_t seq = 0;

	/* simple */
	setup(&p, &q, 16);
	for (int i = 0; i < 10; i++)
		produce(&p, UT_EV_GPU_FAULT, seq++);
	CHECK("pending counts 10", ut_queue_pending(&q) == 10);
	CHECK("consume all returns 10", ut_queue_consume(&q, 0, collect, &s) == 10);
	CHECK("entries in order", in_order(&s, 0, 10));
	CHECK("empty after", ut_queue_pending(&q) == 0 && ut_queue_consume(&q, 0, collect, &s) == 0);
	CHECK("get published to get_ahead and get_behind", p.ctrl.get_ahead == 10 && p.ctrl.get_behind == 10);
	free(p.entries);

	/* wrap-around */
	setup(&p, &q, 8);
	seq = 100;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 5; i++)
		produce(&p, UT_EV_GPU_FAULT, seq++);
	ut_queue_consume(&q, 0, collect, &s);
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 6; i++)
		produce(&p, UT_EV_GPU_FAULT, seq++);
	CHECK("wrap: put index wrapped", p.ctrl.put_behind == 3);
	CHECK("wrap: 6 pending across the end", ut_queue_pending(&q) == 6);
	CHECK("wrap: consumes 6", ut_queue_consume(&q, 0, collect, &s) == 6);
	CHECK("wrap: in order across the end", in_order(&s, 105, 6));
	CHECK("wrap: no drops", ut_queue_new_drops(&q) == 0);
	free(p.entries);

	/* drops: a full queue keeps count-1 entries */
	setup(&p, &q, 8);
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 10; i++)
		produce(&p, UT_EV_GPU_FAULT, i);
	produce(&p, UT_EV_MIGRATION, 99);
	CHECK("drops: 7 kept", ut_queue_pending(&q) == 7);
	CHECK("drops: 4 reported once", ut_queue_new_drops(&q) == 4);
	CHECK("drops: not reported twice", ut_queue_new_drops(&q) == 0);
	CHECK("drops: kept entries in order", ut_queue_consume(&q, 0, collect, &s) == 7 && in_order(&s, 0, 7));
	produce(&p, UT_EV_GPU_FAULT, 50);
	CHECK("drops: room again after consuming", ut_queue_pending(&q) == 1 && ut_queue_new_drops(&q) == 0);
	free(p.entries);

	/* partial reads */
	setup(&p, &q, 8);
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 7; i++)
		produce(&p, UT_EV_GPU_FAULT, i);
	CHECK("partial: consume max 3", ut_queue_consume(&q, 3, collect, &s) == 3);
	CHECK("partial: 4 left", ut_queue_pending(&q) == 4);
	produce(&p, UT_EV_GPU_FAULT, 7);
	produce(&p, UT_EV_GPU_FAULT, 8);
	produce(&p, UT_EV_GPU_FAULT, 9);
	CHECK("partial: producer reuses only consumed slots", ut_queue_new_drops(&q) == 0 && ut_queue_pending(&q) == 7);
	produce(&p, UT_EV_GPU_FAULT, 10);
	CHECK("partial: then full again", ut_queue_new_drops(&q) == 1);
	CHECK("partial: the rest in order", ut_queue_consume(&q, 0, collect, &s) == 7 && in_order(&s, 0, 10));
	free(p.entries);

	/* garbage indexes from a hostile producer are masked */
	setup(&p, &q, 8);
	p.ctrl.put_behind = 0xfffffff3;	/* & 7 = 3 */
	p.ctrl.get_ahead = 0xfffffff9;	/* & 7 = 1 */
	CHECK("indexes masked", ut_queue_pending(&q) == 2);
	free(p.entries);
}

static void test_calibrate(void)
{
	struct producer p;
	struct ut_queue q;
	struct sink s = { 0 };

	for (uint32_t stride = 72; stride <= 120; stride += 16) {
		char name[64];

		setup(&p, &q, 64);
		p.stride = stride;
		q.enabled = (1ull << UT_EV_GPU_FAULT) | (1ull << UT_EV_MIGRATION);
		memset(&s, 0, sizeof(s));
		produce(&p, UT_EV_GPU_FAULT, 0);
		snprintf(name, sizeof(name), "calibrate %u: waits for enough entries", stride);
		CHECK(name, ut_queue_calibrate(&q, 8) == 0);
		for (int i = 1; i < 10; i++)
			produce(&p, i % 3 ? UT_EV_GPU_FAULT : UT_EV_MIGRATION, i);
		snprintf(name, sizeof(name), "calibrate %u: learns the stride", stride);
		CHECK(name, ut_queue_calibrate(&q, 8) == stride);
		snprintf(name, sizeof(name), "calibrate %u: then consumes in order", stride);
		CHECK(name, ut_queue_consume(&q, 0, collect, &s) == 10 && in_order(&s, 0, 10));
		free(p.entries);
	}
}

static void test_decode(void)
{
	uint8_t e[UT_ENTRY_SIZE] = { 0 };
	uint64_t v;
	uint32_t b;
	uint16_t g;
	struct gt_event ev;

	e[0] = UT_EV_GPU_FAULT;
	e[2] = 2;	/* write */
	v = 0x7f0000123000;
	memcpy(e + 8, &v, 8);
	v = 12345;
	memcpy(e + 16, &v, 8);
	b = 77;
	memcpy(e + 32, &b, 4);
	g = 1;
	memcpy(e + 38, &g, 2);
	CHECK("decode gpu fault", ut_decode(e, &ev) && ev.type == GT_EV_GPU_FAULT &&
	      ev.addr == 0x7f0000123000 && ev.ts_ns == 12345 && ev.batch == 77 &&
	      ev.gpu == 1 && ev.access == GT_ACC_WRITE);

	memset(e, 0, sizeof(e));
	e[0] = UT_EV_MIGRATION;
	e[1] = 3;	/* prefetch */
	g = 0;
	memcpy(e + 4, &g, 2);	/* src CPU */
	g = 1;
	memcpy(e + 6, &g, 2);	/* dst GPU 0 */
	v = 0x200000;
	memcpy(e + 16, &v, 8);
	v = 65536;
	memcpy(e + 24, &v, 8);
	v = 1000;
	memcpy(e + 32, &v, 8);
	v = 1500;
	memcpy(e + 40, &v, 8);
	CHECK("decode migration", ut_decode(e, &ev) && ev.type == GT_EV_MIGRATION &&
	      ev.cause == GT_CAUSE_PREFETCH && ev.bytes == 65536 && ev.latency_ns == 500 &&
	      (ev.flags & GT_F_TO_GPU) && ev.gpu == 0 && ev.src == GT_PROC_CPU);
	e[0] = 63;
	CHECK("unknown type ignored", !ut_decode(e, &ev));
}

static void test_record(const char *seed_out)
{
	struct gt_file_header h;
	struct gt_reader r;
	struct gt_event e = { .type = GT_EV_GPU_FAULT, .addr = 0x1000, .ts_ns = 5, .gpu = 0 }, got;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = 0, ret;

	gt_header_init(&h, "bpf", "all", 42, 1);
	gt_write_header(f, &h);
	for (int i = 0; i < 3; i++) {
		e.addr += 0x1000;
		gt_write_event(f, &e);
	}
	fclose(f);
	CHECK("record: size is header + 3 events", len == sizeof(h) + 3 * sizeof(e));
	CHECK("record: opens", gt_reader_open(&r, NULL, buf, len) == 0 &&
	      !strcmp(r.hdr.backend, "bpf") && r.hdr.target_pid == 42);
	while ((ret = gt_reader_next(&r, &got)) > 0)
		n++;
	CHECK("record: 3 events back", n == 3 && ret == 0 && got.addr == 0x4000);
	CHECK("record: truncated event is an error",
	      gt_reader_open(&r, NULL, buf, len - 5) == 0 && gt_reader_next(&r, &got) == 1 &&
	      gt_reader_next(&r, &got) == 1 && gt_reader_next(&r, &got) == -1 &&
	      strstr(r.err, "truncated"));
	CHECK("record: not a record", gt_reader_open(&r, NULL, "hello world, not a record", 25) == -1 &&
	      strstr(r.err, "not a gpuctl"));
	((struct gt_file_header *)buf)->version = 99;
	CHECK("record: future version refused", gt_reader_open(&r, NULL, buf, len) == -1 &&
	      strstr(r.err, "version 99"));
	((struct gt_file_header *)buf)->version = 1;
	((struct gt_file_header *)buf)->event_size = 3;
	CHECK("record: bad event size refused", gt_reader_open(&r, NULL, buf, len) == -1);
	((struct gt_file_header *)buf)->event_size = sizeof(e);
	if (seed_out) {
		FILE *s = fopen(seed_out, "wb");

		if (s) {
			fwrite(buf, 1, len, s);
			fclose(s);
		}
	}
	free(buf);
}

int main(int argc, char **argv)
{
	test_queue();
	test_calibrate();
	test_decode();
	test_record(argc > 1 ? argv[1] : NULL);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
