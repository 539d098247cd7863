// SPDX-License-Identifier: GPL-2.0
/*
 * trace_rm.c - the rm trace backend: TSG creation, frees and the scheduling
 * controls a process sets itself, from a private instance of the TSG watcher.
 *
 * The watcher keeps the TSGs it saw allocated in its own table (a map of this
 * instance, gone with it).  It frees an entry when the TSG is freed; a freed
 * client and a process that exits are gpuctl's to clean up, as gpuctl sched
 * does with the pinned watcher's table.  Loading the watcher and walking its
 * table are the sched engine's (cmd/sched/), the same as for gpuctl sched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "rm.h"
#include "trace_rm.h"
#include "tsgw/tsgw.h"
#include "tsg_ctl.h"	/* how the watcher recorded a control */

#define RM_GC_NS		2000000000ull	/* table clean-up period */

struct rm_trace {
	struct watcher w;	/* a private watcher: nothing pinned */
	struct ring_buffer *rb;
	uint32_t tgid;		/* 0: every process */
	rm_event_fn fn;
	void *arg;
	uint32_t max_id;	/* highest TSG number delivered */
	uint64_t last_ts;	/* timestamps never go backwards */
	uint64_t drops_seen;
	uint64_t next_gc;
};

uint64_t rm_trace_now_ns(void)
{
	return boottime_ns();
}

/* ------------------------------------------------------------- events */

static void event_init(struct gt_event *e, uint32_t type, const struct tsg_info *info)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->pid = info->pid;
	e->addr = info->hTsg;
	e->batch = info->hClient;
	e->count = info->id;
	e->gpu = GT_GPU_NONE;
}

/* Stamps e (never before the previous event) and hands it on when it is wanted. */
static void emit(struct rm_trace *r, struct gt_event *e, uint64_t ts, const char *comm)
{
	if (ts < r->last_ts)
		ts = r->last_ts;
	r->last_ts = e->ts_ns = ts;
	if (!r->tgid || e->pid == r->tgid)
		r->fn(e, comm, r->arg);
}

/* The trace record's control, from how the watcher recorded it (bpf/tsg_ctl.h). */
static uint8_t ctl_of(uint32_t cmd)
{
	switch (tsg_ctl_watch(cmd)) {
	case RM_WATCH_TIMESLICE:
		return GT_TSG_CTL_TIMESLICE;
	case RM_WATCH_LEVEL:
		return GT_TSG_CTL_INTERLEAVE;
	case RM_WATCH_COUNT:
		return GT_TSG_CTL_PREEMPT;
	}
	return GT_TSG_CTL_NONE;
}

struct client_ctx {
	struct rm_trace *r;
	uint32_t pid, hClient;
	uint64_t now;
};

/* A client was freed: so were its TSGs (those delivered so far). */
static enum tsg_walk client_tsg(const struct tsg_key *key, const struct tsg_info *info,
				void *arg)
{
	struct client_ctx *c = arg;
	struct gt_event e;

	/* id > max_id: not delivered yet, a newer client's with the same handle */
	if (key->pid != c->pid || key->hClient != c->hClient || info->id > c->r->max_id)
		return TSG_KEEP;
	event_init(&e, GT_EV_TSG_FREE, info);
	e.flags = GT_F_WITH_CLIENT;
	emit(c->r, &e, c->now, info->comm);
	return TSG_DELETE;
}

static void client_free(struct rm_trace *r, uint32_t pid, uint32_t hClient)
{
	struct client_ctx c = { r, pid, hClient, rm_trace_now_ns() };

	tsg_table_walk(r->w.tsgs, client_tsg, &c);
}

/* A TSG of a process that exited: freed "at exit" when it was delivered. */
static enum tsg_walk exited_tsg(const struct tsg_key *key, const struct tsg_info *info,
				void *arg)
{
	struct client_ctx *c = arg;
	struct gt_event e;

	if (!tsg_proc_gone(key->pid))
		return TSG_KEEP;
	if (info->id <= c->r->max_id) {
		event_init(&e, GT_EV_TSG_FREE, info);
		e.flags = GT_F_AT_EXIT;
		emit(c->r, &e, c->now, info->comm);
	}
	return TSG_DELETE;
}

/*
 * A process that exits without freeing its TSGs has them freed by RM when
 * its files close, which no ioctl shows: its remaining table entries become
 * tsg_free events "at exit".  Every RM_GC_NS, or now when force.
 */
static void table_gc(struct rm_trace *r, bool force)
{
	struct client_ctx c = { .r = r, .now = rm_trace_now_ns() };

	if (!force && c.now < r->next_gc)
		return;
	r->next_gc = c.now + RM_GC_NS;
	tsg_table_walk(r->w.tsgs, exited_tsg, &c);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct rm_trace *r = ctx;
	const struct tsg_event *ev = data;
	struct gt_event e;

	if (size < sizeof(*ev))
		return 0;
	switch (ev->type) {
	case TSG_EV_NEW:
		if (ev->info.id > r->max_id)
			r->max_id = ev->info.id;
		event_init(&e, GT_EV_TSG, &ev->info);
		emit(r, &e, ev->info.created_ns, ev->info.comm);
		break;
	case TSG_EV_APP_SET:
		/* The watcher stamps creation only: the time it is read, then. */
		event_init(&e, GT_EV_TSG_SET, &ev->info);
		e.cause = ctl_of(ev->cmd);
		e.bytes = ev->value;
		emit(r, &e, rm_trace_now_ns(), ev->info.comm);
		break;
	case TSG_EV_FREE:
		event_init(&e, GT_EV_TSG_FREE, &ev->info);
		emit(r, &e, rm_trace_now_ns(), ev->info.comm);
		break;
	case TSG_EV_CLIENT_FREE:
		client_free(r, ev->info.pid, ev->info.hClient);
		break;
	}
	return 0;
}

/* ------------------------------------------------------------ loading */

/* Loads and attaches a private watcher for the device rdev; -errno, reason set. */
static int watcher_load(struct rm_trace *r, dev_t rdev, char *reason, size_t len)
{
	int err = watcher_private(&r->w, rdev, reason, len);

	if (err)
		return err;
	r->rb = ring_buffer__new(r->w.events, on_event, r, NULL);
	if (!r->rb) {
		err = -errno;
		snprintf(reason, len, "TSG watcher ring buffer: %s", strerror(-err));
		watcher_close(&r->w);
		return err;
	}
	return 0;
}

struct rm_trace *rm_trace_start(const char *dev, uint32_t tgid, rm_event_fn fn, void *arg)
{
	struct rm_trace *r;
	char reason[320];
	dev_t rdev;

	if (rm_device_rdev(dev, &rdev, reason, sizeof(reason))) {
		p_err("%s", reason);
		return NULL;
	}
	if (need_caps("trace tsg", NEED_BPF))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		p_err("out of memory");
		return NULL;
	}
	r->tgid = tgid;
	r->fn = fn;
	r->arg = arg;
	if (watcher_load(r, rdev, reason, sizeof(reason))) {
		p_err("%s", reason);
		free(r);
		return NULL;
	}
	r->next_gc = rm_trace_now_ns() + RM_GC_NS;
	return r;
}

void rm_trace_poll(struct rm_trace *r, int timeout_ms)
{
	ring_buffer__poll(r->rb, timeout_ms);
	table_gc(r, false);
}

void rm_trace_drain(struct rm_trace *r)
{
	ring_buffer__consume(r->rb);
	table_gc(r, true);
}

uint64_t rm_trace_new_drops(struct rm_trace *r)
{
	int fd = r->w.stats;
	uint32_t slots[] = { STAT_RB_FULL, STAT_TABLE_FULL };
	uint64_t sum = 0, d;

	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		uint64_t v = 0;

		if (!bpf_map_lookup_elem(fd, &slots[i], &v))
			sum += v;
	}
	d = sum > r->drops_seen ? sum - r->drops_seen : 0;
	r->drops_seen = sum;
	return d;
}

void rm_trace_free(struct rm_trace *r)
{
	if (!r)
		return;
	ring_buffer__free(r->rb);
	watcher_close(&r->w);
	free(r);
}

bool rm_trace_usable(char *reason, size_t len)
{
	struct watcher w;

	reason[0] = '\0';
	if (watcher_private(&w, makedev(RM_NVIDIA_MAJOR, 255), reason, len))
		return false;
	watcher_close(&w);
	return true;
}
