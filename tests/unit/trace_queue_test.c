// SPDX-License-Identifier: GPL-2.0
/*
 * trace_queue_test - the uvm-tools queue consumer (cmd/drv/ut_queue.c) against
 * a synthetic producer that follows the driver's rules (uvm_tools.c
 * enqueue: full with one free slot left, drops counted per event type,
 * put_ahead/put_behind published after the entry), plus entry decoding and
 * the record file (cmd/trace/record.c) round trip and its errors.
 * Prints "ok"/"FAIL" lines and "N passed, N failed" (tests/lib.sh style).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/record.h"
#include "ut.h"

static int passed, failed;

#define CHECK(name, cond) do { if (cond) { passed++; printf("ok   %s\n", name); } \
	else { failed++; printf("FAIL %s (line %d)\n", name, __LINE__); } } while (0)

/* ---- the synthetic producer: what the driver's enqueue does ---- */
struct producer {
	union {
		struct ut_ctrl ctrl;
		uint8_t page[UT_CTRL_BYTES];
	};
	uint64_t *dropped;	/* where the abi puts dropped[] */
	uint8_t *entries;
	uint32_t count;
};

static void produce(struct producer *p, uint8_t type, uint64_t seq)
{
	uint32_t mask = p->count - 1;
	uint32_t get_behind = p->ctrl.get_behind & mask;
	uint32_t put = p->ctrl.put_behind & mask;
	uint8_t *e;

	if (((p->count + get_behind - put) & mask) == 1) {
		p->dropped[type]++;
		return;
	}
	e = p->entries + (size_t)put * UT_ENTRY_SIZE;
	memset(e, 0, UT_ENTRY_SIZE);
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

static void setup_abi(struct producer *p, struct ut_queue *q, uint32_t count,
		      enum ut_abi abi)
{
	memset(p, 0, sizeof(*p));
	p->count = count;
	p->entries = calloc(count, UT_ENTRY_SIZE);
	p->dropped = (uint64_t *)(p->page + (abi == UT_ABI_550 ? 24 : 16));
	ut_queue_init(q, p->page, p->entries, count, abi);
}

static void setup(struct producer *p, struct ut_queue *q, uint32_t count)
{
	setup_abi(p, q, count, UT_ABI_565);
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

/* dropped[] sits 8 bytes further in the 550 control page (version word). */
static void test_drops_by_abi(void)
{
	enum ut_abi abis[] = { UT_ABI_550, UT_ABI_565 };

	for (int i = 0; i < 2; i++) {
		struct producer p;
		struct ut_queue q;
		char name[64];

		setup_abi(&p, &q, 4, abis[i]);
		for (int k = 0; k < 5; k++)
			produce(&p, UT_EV_MIGRATION, k);
		produce(&p, UT_EV_GPU_FAULT, 9);
		snprintf(name, sizeof(name), "drops (%s layout): 3 counted at the right offset",
			 abis[i] == UT_ABI_550 ? "550" : "565");
		CHECK(name, ut_queue_new_drops(&q) == 3 && q.dropped_seen[UT_EV_MIGRATION] == 2 &&
		      q.dropped_seen[UT_EV_GPU_FAULT] == 1);
		free(p.entries);
	}
}

static void put16(uint8_t *e, size_t off, uint16_t v) { memcpy(e + off, &v, 2); }
static void put32(uint8_t *e, size_t off, uint32_t v) { memcpy(e + off, &v, 4); }
static void put64(uint8_t *e, size_t off, uint64_t v) { memcpy(e + off, &v, 8); }

/* Entries laid out as uvm_types.h's _V2 structs of each driver generation. */
static void test_decode(void)
{
	uint8_t e[UT_ENTRY_SIZE];
	struct gt_event ev;

	/* GpuFaultInfo_V2, 550: accessType at 2, gpuIndex at 38 */
	memset(e, 0, sizeof(e));
	e[0] = UT_EV_GPU_FAULT;
	e[2] = 2;	/* write */
	put64(e, 8, 0x7f0000123000);
	put64(e, 16, 12345);
	put32(e, 32, 77);
	put16(e, 38, 9);	/* UVM id 9: the second GPU */
	CHECK("decode gpu fault (550)", ut_decode(e, UT_ABI_550, &ev) &&
	      ev.type == GT_EV_GPU_FAULT && ev.addr == 0x7f0000123000 && ev.ts_ns == 12345 &&
	      ev.batch == 77 && ev.gpu == 1 && ev.access == GT_ACC_WRITE);

	/* GpuFaultInfo_V2, 565+: gpuIndex at 2, accessType at 37 */
	memset(e, 0, sizeof(e));
	e[0] = UT_EV_GPU_FAULT;
	put16(e, 2, 1);		/* UVM id 1: the first GPU */
	put64(e, 8, 0x7f0000456000);
	put64(e, 16, 999);
	put32(e, 32, 5);
	e[36] = 1;		/* clientType */
	e[37] = 3;		/* atomic */
	CHECK("decode gpu fault (565+)", ut_decode(e, UT_ABI_565, &ev) &&
	      ev.addr == 0x7f0000456000 && ev.batch == 5 && ev.gpu == 0 &&
	      ev.access == GT_ACC_ATOMIC);
	CHECK("the 550 reading of a 565 fault differs", ut_decode(e, UT_ABI_550, &ev) &&
	      ev.access != GT_ACC_ATOMIC);

	/* MigrationInfo_V2 (both): src 4, dst 6, address 16, bytes 24, times 32/40 */
	memset(e, 0, sizeof(e));
	e[0] = UT_EV_MIGRATION;
	e[1] = 3;	/* prefetch */
	put16(e, 4, 0);	/* CPU */
	put16(e, 6, 1);	/* GPU 0 */
	put32(e, 8, 0);	/* srcNid */
	put32(e, 12, 0xffffffff);	/* dstNid -1 */
	put64(e, 16, 0x200000);
	put64(e, 24, 65536);
	put64(e, 32, 1000);
	put64(e, 40, 1500);
	CHECK("decode migration to the GPU", ut_decode(e, UT_ABI_565, &ev) &&
	      ev.type == GT_EV_MIGRATION && ev.cause == GT_CAUSE_PREFETCH &&
	      ev.addr == 0x200000 && ev.bytes == 65536 && ev.latency_ns == 500 &&
	      (ev.flags & GT_F_TO_GPU) && ev.gpu == 0 && ev.src == GT_PROC_CPU && ev.dst == 0);
	put16(e, 4, 9);	/* second GPU */
	put16(e, 6, 0);	/* CPU */
	e[1] = 4;	/* eviction */
	CHECK("decode migration to the CPU", ut_decode(e, UT_ABI_550, &ev) &&
	      (ev.flags & GT_F_TO_CPU) && ev.gpu == 1 && ev.src == 1 &&
	      ev.dst == GT_PROC_CPU && ev.cause == GT_CAUSE_EVICTION);

	/* GpuFaultReplayInfo_V2: gpuIndex 2, batchId 4, timeStamp 8 */
	memset(e, 0, sizeof(e));
	e[0] = UT_EV_GPU_FAULT_REPLAY;
	put16(e, 2, 1);
	put32(e, 4, 41);
	put64(e, 8, 777);
	CHECK("decode replay", ut_decode(e, UT_ABI_565, &ev) && ev.type == GT_EV_REPLAY &&
	      ev.gpu == 0 && ev.batch == 41 && ev.ts_ns == 777);

	/* EvictionInfo_V2: src 4, dst 6, addressOut 8, size 24, timeStamp 32 */
	memset(e, 0, sizeof(e));
	e[0] = UT_EV_EVICTION;
	put16(e, 4, 1);
	put64(e, 8, 0x400000);
	put64(e, 24, 2 << 20);
	put64(e, 32, 55);
	CHECK("decode eviction", ut_decode(e, UT_ABI_565, &ev) && ev.type == GT_EV_EVICTION &&
	      ev.gpu == 0 && ev.addr == 0x400000 && ev.bytes == 2 << 20 && ev.ts_ns == 55);

	e[0] = 63;
	CHECK("unknown type ignored", !ut_decode(e, UT_ABI_565, &ev));
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
	test_drops_by_abi();
	test_decode();
	test_record(argc > 1 ? argv[1] : NULL);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
