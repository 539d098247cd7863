// SPDX-License-Identifier: GPL-2.0
/*
 * uvmtools.c - the uvm-tools trace back-end: NVIDIA's tools API on one
 * process (ut.h).  Counters are the driver's; events come from a V2 queue
 * with only the types asked for, sized for them, read when the driver's
 * notification threshold wakes us.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "gpus.h"
#include "ut.h"

#define UT_MAX_GPUS GPUCTL_MAX_GPUS

struct ut_backend {
	struct ut_session s;
	bool attached;
	uint32_t events;	/* 1 << UT_EV_* */
	uint64_t last_ts, last_page;	/* the last GPU fault, to flag duplicates */
	uint32_t last_batch;
	uint64_t ev_count[GT_EV_MAX];	/* for the counters the driver lacks */
	uint64_t evict_bytes;
	/* stat: a counter tracker per GPU RM lists (index = nvidia-smi's) */
	int ngpu;
	int gfd[UT_MAX_GPUS];
	void *gmem[UT_MAX_GPUS];
};

/* Our event types as the tools API's. */
static const uint8_t ut_event_of[GT_EV_MAX] = {
	[GT_EV_GPU_FAULT] = UT_EV_GPU_FAULT,
	[GT_EV_CPU_FAULT] = UT_EV_CPU_FAULT,
	[GT_EV_MIGRATION] = UT_EV_MIGRATION,
	[GT_EV_EVICTION] = UT_EV_EVICTION,
	[GT_EV_REPLAY] = UT_EV_GPU_FAULT_REPLAY,
	[GT_EV_THRASHING] = UT_EV_THRASHING,
};

static uint32_t ut_mask(uint32_t types)
{
	uint32_t m = 0;

	for (int i = 0; i < GT_EV_MAX; i++)
		if ((types & (1u << i)) && ut_event_of[i])
			m |= 1u << ut_event_of[i];
	return m;
}

static uint64_t mono_raw_ns(void)
{
	struct timespec ts;

	/* the driver's NV_GETTIME for tools timestamps */
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void ut_entry(const uint8_t *entry, void *arg)
{
	struct tb *t = arg;
	struct ut_backend *u = t->priv;
	struct gt_event e;

	if (!ut_decode(entry, u->s.q.abi, &e))
		return;
	/*
	 * The driver reports a fault and then each instance merged into it
	 * (same page, other uTLB or access type) with the same batch and the
	 * same timestamp: those are the batch's duplicates.
	 */
	if (e.type == GT_EV_GPU_FAULT) {
		if (e.ts_ns == u->last_ts && e.batch == u->last_batch &&
		    e.addr >> 12 == u->last_page)
			e.flags |= GT_F_DUPLICATE;
		u->last_ts = e.ts_ns;
		u->last_batch = e.batch;
		u->last_page = e.addr >> 12;
	}
	if (!e.pid)
		e.pid = t->w->pid;
	u->ev_count[e.type]++;
	if (e.type == GT_EV_EVICTION)
		u->evict_bytes += e.bytes;
	tb_deliver(t, &e);
}

/* stat: counters per GPU (best effort: without them, one row for all GPUs). */
static void gpu_trackers_open(struct ut_backend *u)
{
	const struct gpu_info *g;
	char err[160];
	int n = gpus_list(&g, false, NULL);

	if (n > UT_MAX_GPUS)
		p_info("%d GPUs: counters per GPU for the first %d only (gpuctl's limit); the "
		       "process's totals count them all", n, UT_MAX_GPUS);
	for (int i = 0; i < n && i < UT_MAX_GPUS; i++) {
		u->gfd[i] = -1;
		u->gmem[i] = NULL;
		ut_open_gpu_counters(&u->s, g[i].uuid, UT_CTR_STAT_MASK, &u->gfd[i], &u->gmem[i],
				     err, sizeof(err));
		u->ngpu = i + 1;
	}
}

static void gpu_trackers_close(struct ut_backend *u)
{
	for (int i = 0; i < u->ngpu; i++) {
		if (u->gfd[i] >= 0)
			close(u->gfd[i]);
		if (u->gmem[i])
			munmap(u->gmem[i], 4096);
	}
	u->ngpu = 0;
}

/* 1 attached, 0 not yet (no GPU context, quiet_if_absent), -errno with err set. */
static int try_attach(struct tb *t, bool quiet_if_absent, char *err, size_t len)
{
	struct ut_backend *u = t->priv;
	/* Events only as many as asked: fault streams need room, stat very little. */
	uint32_t entries = (u->events & ((1u << UT_EV_GPU_FAULT) | (1u << UT_EV_MIGRATION) |
					 (1u << UT_EV_CPU_FAULT))) ? 1u << 16 : 1u << 12;
	int ret = ut_attach(&u->s, t->w->pid, err, len);

	if ((ret == -ENOENT || ret == -EAGAIN) && quiet_if_absent) {
		ut_close(&u->s);
		return 0;
	}
	/* Counters for stat; for a trace only to check the events by (-d). */
	if (!ret && (!t->o.types || debug_output))
		ret = ut_enable_counters(&u->s, UT_CTR_STAT_MASK, err, len);
	if (!ret && !t->o.types)
		gpu_trackers_open(u);
	if (!ret && u->events) {
		ret = ut_open_queue(&u->s, entries, u->events, entries / 2, err, len);
		if (!ret && debug_output)
			fprintf(stderr, "uvm-tools: %u-entry V2 event queue through the %s interface\n",
				entries, u->s.q.abi == UT_ABI_550 ? "550 (versioned ioctl 56)" :
				"565+ (ioctl 76)");
	}
	if (ret) {
		gpu_trackers_close(u);
		ut_close(&u->s);
		return ret;
	}
	u->attached = true;
	return 1;
}

static bool ut_usable(char *reason, size_t len)
{
	if (ut_available())
		return true;
	if (reason)
		snprintf(reason, len, "/dev/nvidia-uvm-tools missing");
	return false;
}

/* -p PID attaches now; -- CMD once the command has its GPU context (poll). */
static int ut_start(struct tb *t, char *reason, size_t len)
{
	struct ut_backend *u = calloc(1, sizeof(*u));
	int ret;

	if (!u) {
		snprintf(reason, len, "out of memory");
		return -ENOMEM;
	}
	/* Said now, not after waiting for a GPU context that cannot be watched. */
	if (!ut_available()) {
		free(u);
		snprintf(reason, len, "the uvm-tools backend needs /dev/nvidia-uvm-tools, which is "
			 "missing (load nvidia-uvm: nvidia-modprobe -u)");
		return -ENOENT;
	}
	ut_session_init(&u->s);
	u->events = ut_mask(t->o.types);
	if (!t->o.types)	/* stat: the rare events its counters need */
		u->events = (1u << UT_EV_GPU_FAULT_REPLAY) | (1u << UT_EV_EVICTION) |
			    (1u << UT_EV_THRASHING);
	t->priv = u;
	if (t->o.target.cmd)
		return 0;
	ret = try_attach(t, false, reason, len);
	return ret < 0 ? ret : 0;
}

static void drain(struct tb *t)
{
	struct ut_backend *u = t->priv;
	uint64_t drops;

	if (!u->attached || u->s.queue_fd < 0)
		return;
	while (ut_queue_consume(&u->s.q, 0, ut_entry, t))
		;
	drops = ut_queue_new_drops(&u->s.q);
	if (drops)
		tb_deliver_lost(t, drops);
}

/* -- CMD: waits for the command's GPU context, a millisecond at a time. */
static void wait_attach(struct tb *t, int timeout_ms)
{
	struct ut_backend *u = t->priv;
	struct timespec ms = { 0, 1000000 };
	char err[256];

	for (int waited = 0; !u->attached && waited < timeout_ms; waited++) {
		if (workload_gone(t->w))
			return;
		if (try_attach(t, true, err, sizeof(err)) < 0) {
			p_err("%s", err);
			t->failed = true;
			return;
		}
		if (!u->attached)
			nanosleep(&ms, NULL);
	}
}

static void ut_poll(struct tb *t, int timeout_ms)
{
	struct ut_backend *u = t->priv;

	if (!u->attached) {
		wait_attach(t, timeout_ms);
	} else if (u->s.queue_fd >= 0) {
		ut_wait(&u->s, timeout_ms);
		drain(t);
	} else {
		/* Counters only: nothing to wait for but time or the target. */
		workload_wait(t->w, timeout_ms);
	}
}

/*
 * The driver's counters, and events for the rest.  It defines prefetch
 * byte counters but never counts them (565-595 sources, 580.159.04
 * measured): not supported rather than 0.
 */
static void ut_counters(struct tb *t, struct tb_counters *c)
{
	struct ut_backend *u = t->priv;

	drain(t);
	c->have[TC_GPU_FAULTS] = c->have[TC_CPU_FAULTS] = true;
	c->have[TC_BYTES_HTOD] = c->have[TC_BYTES_DTOH] = true;
	c->have[TC_REPLAYS] = c->have[TC_EVICTIONS] = c->have[TC_EVICTION_BYTES] = true;
	c->have[TC_THRASHING] = true;
	if (u->attached && u->s.counters) {
		volatile uint64_t *v = u->s.counters;

		c->total[TC_GPU_FAULTS] = v[UT_CTR_GPU_FAULTS];
		c->total[TC_CPU_FAULTS] = v[UT_CTR_CPU_FAULTS];
		c->total[TC_BYTES_HTOD] = v[UT_CTR_BYTES_HTOD];
		c->total[TC_BYTES_DTOH] = v[UT_CTR_BYTES_DTOH];
	}
	c->total[TC_REPLAYS] = u->ev_count[GT_EV_REPLAY];
	c->total[TC_EVICTIONS] = u->ev_count[GT_EV_EVICTION];
	c->total[TC_EVICTION_BYTES] = u->evict_bytes;
	c->total[TC_THRASHING] = u->ev_count[GT_EV_THRASHING];
	c->rows = calloc(1 + u->ngpu, sizeof(*c->rows));
	/* one row per GPU that counted something, by nvidia-smi's index */
	for (int i = 0; c->rows && i < u->ngpu; i++) {
		volatile uint64_t *v = u->gmem[i];
		struct tb_row *r = &c->rows[c->nrows];

		if (u->gfd[i] < 0 || !(v[UT_CTR_GPU_FAULTS] | v[UT_CTR_BYTES_HTOD] |
				       v[UT_CTR_BYTES_DTOH]))
			continue;
		r->pid = t->w->pid;
		r->gpu = i;
		r->v[TC_GPU_FAULTS] = v[UT_CTR_GPU_FAULTS];
		r->v[TC_BYTES_HTOD] = v[UT_CTR_BYTES_HTOD];
		r->v[TC_BYTES_DTOH] = v[UT_CTR_BYTES_DTOH];
		c->nrows++;
	}
	if (c->rows && !c->nrows) {
		c->rows[0].pid = t->w->pid;
		c->rows[0].gpu = GT_GPU_NONE;
		memcpy(c->rows[0].v, c->total, sizeof(c->total));
		c->nrows = 1;
	}
}

static void ut_stop(struct tb *t)
{
	struct ut_backend *u = t->priv;

	if (!u->attached)
		return;
	ut_flush(&u->s);
	drain(t);
	/* The driver's own counts over the same span, to check the events by. */
	if (debug_output && u->s.counters)
		fprintf(stderr, "uvm-tools: driver counters since attach: gpu_faults %llu "
			"bytes_htod %llu bytes_dtoh %llu cpu_faults %llu\n",
			(unsigned long long)u->s.counters[UT_CTR_GPU_FAULTS],
			(unsigned long long)u->s.counters[UT_CTR_BYTES_HTOD],
			(unsigned long long)u->s.counters[UT_CTR_BYTES_DTOH],
			(unsigned long long)u->s.counters[UT_CTR_CPU_FAULTS]);
}

static void ut_free(struct tb *t)
{
	struct ut_backend *u = t->priv;

	if (!u)
		return;
	gpu_trackers_close(u);
	ut_close(&u->s);
	free(u);
	t->priv = NULL;
}

const struct tb_ops tb_uvm_tools_ops = {
	.name = "uvm-tools",
	.scope = "one process (-p PID or -- CMD)",
	.usable = ut_usable,
	.start = ut_start,
	.poll = ut_poll,
	.counters = ut_counters,
	.stop = ut_stop,
	.free = ut_free,
	.now_ns = mono_raw_ns,
};
