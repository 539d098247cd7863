// SPDX-License-Identifier: GPL-2.0
/*
 * ut_queue.c - the consumer side of a UVM tools event queue, and the
 * decoder of its V2 entries into gpuctl's events.  Pure: no syscalls, so
 * the unit test drives it with a synthetic producer.
 */
#include <string.h>

#include "ut.h"

uint32_t ut_queue_pending(const struct ut_queue *q)
{
	uint32_t mask = q->count - 1;
	uint32_t put = __atomic_load_n(&q->ctrl->put_behind, __ATOMIC_ACQUIRE) & mask;
	uint32_t get = __atomic_load_n(&q->ctrl->get_ahead, __ATOMIC_RELAXED) & mask;

	return (put - get) & mask;
}

void ut_queue_init(struct ut_queue *q, void *ctrl, const void *entries,
		   uint32_t count, enum ut_abi abi)
{
	memset(q, 0, sizeof(*q));
	q->ctrl = ctrl;
	q->dropped = (const volatile uint64_t *)((uint8_t *)ctrl +
		(abi == UT_ABI_550 ? UT_CTRL_DROPPED_550 : UT_CTRL_DROPPED_565));
	q->entries = entries;
	q->count = count;
	q->abi = abi;
}

uint32_t ut_queue_consume(struct ut_queue *q, uint32_t max, ut_entry_fn fn, void *arg)
{
	uint32_t mask = q->count - 1, done = 0;
	/* put_behind moves only after the entry is written (release on the driver side). */
	uint32_t put = __atomic_load_n(&q->ctrl->put_behind, __ATOMIC_ACQUIRE) & mask;
	uint32_t get = __atomic_load_n(&q->ctrl->get_ahead, __ATOMIC_RELAXED) & mask;
	uint8_t entry[UT_ENTRY_SIZE];

	while (get != put && (!max || done < max)) {
		/* Copy first: the page is shared, decode a stable snapshot. */
		memcpy(entry, q->entries + (size_t)get * UT_ENTRY_SIZE, UT_ENTRY_SIZE);
		if (fn)
			fn(entry, arg);
		get = (get + 1) & mask;
		done++;
	}
	if (done) {
		/* Entries before get may be reused by the producer from now on. */
		__atomic_store_n(&q->ctrl->get_ahead, get, __ATOMIC_RELEASE);
		__atomic_store_n(&q->ctrl->get_behind, get, __ATOMIC_RELEASE);
	}
	return done;
}

uint64_t ut_queue_new_drops(struct ut_queue *q)
{
	uint64_t total = 0;

	for (int i = 0; i < UT_EV_NUM_ALL; i++) {
		uint64_t d = __atomic_load_n(&q->dropped[i], __ATOMIC_RELAXED);

		if (d > q->dropped_seen[i]) {
			total += d - q->dropped_seen[i];
			q->dropped_seen[i] = d;
		}
	}
	return total;
}

/* ------------------------------------------------------------ decoding */

static uint64_t rd64(const uint8_t *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p, size_t off)
{
	uint16_t v;

	memcpy(&v, p + off, 2);
	return v;
}

/* gpuctl reports the GPU, i.e. UVM's parent GPU index, of a processor id. */
static uint16_t proc_gpu(uint16_t v)
{
	return v ? (v - 1) / UT_SUB_PROCESSORS : GT_PROC_CPU;
}

static uint8_t access_of(uint8_t acc)
{
	return acc < GT_ACC_MAX ? acc : GT_ACC_NONE;
}

bool ut_decode(const uint8_t *p, enum ut_abi abi, struct gt_event *e)
{
	bool v550 = abi == UT_ABI_550;

	memset(e, 0, sizeof(*e));
	e->gpu = GT_GPU_NONE;
	e->src = e->dst = GT_PROC_CPU;
	switch (p[0]) {
	case UT_EV_GPU_FAULT:
		e->type = GT_EV_GPU_FAULT;
		e->access = access_of(p[v550 ? UT_GPU_FAULT_ACCESS_550 : UT_GPU_FAULT_ACCESS_565]);
		e->addr = rd64(p, UT_GPU_FAULT_ADDR);
		e->ts_ns = rd64(p, UT_GPU_FAULT_TS);
		e->batch = rd32(p, UT_GPU_FAULT_BATCH);
		e->gpu = proc_gpu(rd16(p, v550 ? UT_GPU_FAULT_GPU_550 : UT_GPU_FAULT_GPU_565));
		return true;
	case UT_EV_CPU_FAULT:
		e->type = GT_EV_CPU_FAULT;
		e->access = access_of(p[UT_CPU_FAULT_ACCESS]);
		e->addr = rd64(p, UT_CPU_FAULT_ADDR);
		e->ts_ns = rd64(p, UT_CPU_FAULT_TS);
		e->pid = rd32(p, UT_CPU_FAULT_PID);
		return true;
	case UT_EV_MIGRATION: {
		uint64_t begin = rd64(p, UT_MIGRATION_BEGIN), end = rd64(p, UT_MIGRATION_END);
		uint8_t cause = p[UT_MIGRATION_CAUSE];

		e->type = GT_EV_MIGRATION;
		e->cause = cause < GT_CAUSE_MAX ? cause : GT_CAUSE_NONE;
		e->src = proc_gpu(rd16(p, UT_MIGRATION_SRC));
		e->dst = proc_gpu(rd16(p, UT_MIGRATION_DST));
		e->addr = rd64(p, UT_MIGRATION_ADDR);
		e->bytes = rd64(p, UT_MIGRATION_BYTES);
		e->ts_ns = begin;
		e->latency_ns = end > begin ? end - begin : 0;
		e->flags = e->dst != GT_PROC_CPU ? GT_F_TO_GPU : GT_F_TO_CPU;
		e->gpu = e->dst != GT_PROC_CPU ? e->dst : e->src;
		return true;
	}
	case UT_EV_GPU_FAULT_REPLAY:
		e->type = GT_EV_REPLAY;
		e->gpu = proc_gpu(rd16(p, UT_REPLAY_GPU));
		e->batch = rd32(p, UT_REPLAY_BATCH);
		e->ts_ns = rd64(p, UT_REPLAY_TS);
		return true;
	case UT_EV_EVICTION:
		e->type = GT_EV_EVICTION;
		e->src = proc_gpu(rd16(p, UT_EVICTION_SRC));
		e->dst = proc_gpu(rd16(p, UT_EVICTION_DST));
		e->addr = rd64(p, UT_EVICTION_ADDR);
		e->bytes = rd64(p, UT_EVICTION_BYTES);
		e->ts_ns = rd64(p, UT_EVICTION_TS);
		e->gpu = e->src;
		return true;
	case UT_EV_THRASHING:
		e->type = GT_EV_THRASHING;
		e->addr = rd64(p, UT_THRASHING_ADDR);
		e->bytes = rd64(p, UT_THRASHING_BYTES);
		e->ts_ns = rd64(p, UT_THRASHING_TS);
		return true;
	default:
		return false;
	}
}
