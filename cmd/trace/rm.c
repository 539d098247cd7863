// SPDX-License-Identifier: GPL-2.0
/*
 * rm.c - the rm trace back-end: TSG events from a private instance of the
 * TSG watcher, through cmd/trace_rm.h (rm_trace_*), which the sched side
 * keeps.  It has no counters and no UVM events.
 */
#include <stdlib.h>

#include "backend.h"
#include "rm.h"		/* rm_device_path */
#include "trace_rm.h"

/* The watcher's callback: the process name goes with the event. */
static void rmb_event(const struct gt_event *e, const char *comm, void *arg)
{
	struct tb *t = arg;

	t->comm = comm;
	tb_deliver(t, e);
	t->comm = NULL;
}

static void rmb_lost(struct tb *t)
{
	uint64_t n = rm_trace_new_drops(t->priv);

	if (n)
		tb_deliver_lost(t, n);
}

static bool rmb_usable(char *reason, size_t len)
{
	char buf[256];

	if (!reason) {
		reason = buf;
		len = sizeof(buf);
	}
	return rm_trace_usable(reason, len);
}

/* rm_trace_start checks the device and says what is wrong itself. */
static int rmb_start(struct tb *t, char *reason, size_t len)
{
	(void)reason;
	(void)len;
	t->priv = rm_trace_start(rm_device_path(t->o.device), (uint32_t)t->w->pid, rmb_event, t);
	return t->priv ? 0 : -1;
}

static void rmb_poll(struct tb *t, int timeout_ms)
{
	rm_trace_poll(t->priv, timeout_ms);
	rmb_lost(t);
}

/* After the command is reaped: TSGs it held are reported freed at exit. */
static void rmb_stop(struct tb *t)
{
	rm_trace_drain(t->priv);
	rmb_lost(t);
}

static void rmb_free(struct tb *t)
{
	rm_trace_free(t->priv);
	t->priv = NULL;
}

const struct tb_ops tb_rm_ops = {
	.name = "rm",
	.scope = "TSG events, system-wide or one process",
	.caps = NEED_BPF,
	.usable = rmb_usable,
	.start = rmb_start,
	.poll = rmb_poll,
	.stop = rmb_stop,
	.drain_after_exit = true,
	.free = rmb_free,
	.now_ns = rm_trace_now_ns,
};
