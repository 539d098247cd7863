// SPDX-License-Identifier: GPL-2.0
/*
 * pair.c - UVM events and TSG events in one trace (`trace record all tsg`):
 * the rm back-end runs beside the UVM events' back-end (bpf or uvm-tools),
 * on the same workload, and its events reach the trace's callback through
 * the first one, their times moved onto the first one's clock (rm stamps
 * with CLOCK_BOOTTIME, bpf with CLOCK_MONOTONIC, uvm-tools with
 * CLOCK_MONOTONIC_RAW).  So one record holds a co-location run's faults and
 * its TSGs on one time axis.
 */
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"

/*
 * The second's clock onto the first's: the two clocks read now, their
 * difference taken off (read at each event: the clocks may drift apart over
 * a long record, MONOTONIC_RAW from MONOTONIC under NTP).
 */
static uint64_t onto_first(const struct tb *t, uint64_t ts)
{
	int64_t d = (int64_t)(t->second->ops->now_ns() - t->ops->now_ns());

	if (!ts)
		return 0;
	if (d > 0 && ts <= (uint64_t)d)
		return 1;	/* before the first clock's zero: the earliest time it has */
	return ts - (uint64_t)d;
}

/* The second's callback: its event (filtered by its own types) on through the first. */
static void second_event(const struct gt_event *e, void *arg)
{
	struct tb *t = arg;
	struct gt_event c = *e;

	c.ts_ns = onto_first(t, e->ts_ns);
	t->comm = t->second->comm;
	if (t->o.fn)
		t->o.fn(&c, t->o.arg);
	t->comm = NULL;
}

int tb_pair_start(struct tb *t, uint32_t tsg_types)
{
	struct tb *s = calloc(1, sizeof(*s));
	char reason[256] = "";

	if (!s) {
		p_err("out of memory");
		return -1;
	}
	s->ops = &tb_rm_ops;
	s->o = t->o;
	s->o.types = tsg_types;
	s->o.fn = second_event;
	s->o.arg = t;
	s->w = t->w;
	if (s->ops->start(s, reason, sizeof(reason))) {
		if (reason[0])
			p_err("%s backend: %s", s->ops->name, reason);
		free(s);
		return -1;
	}
	t->second = s;
	snprintf(t->name, sizeof(t->name), "%s+%s", t->ops->name, s->ops->name);
	return 0;
}

/* Without waiting: the first back-end's poll is the one that sleeps. */
void tb_pair_poll(struct tb *t)
{
	if (t->second)
		t->second->ops->poll(t->second, 0);
}

/* Its last events, before the command is reaped or after (as its ops say). */
void tb_pair_stop(struct tb *t, bool after_exit)
{
	struct tb *s = t->second;

	if (s && s->ops->drain_after_exit == after_exit)
		s->ops->stop(s);
}

void tb_pair_free(struct tb *t)
{
	struct tb *s = t->second;

	if (!s)
		return;
	s->ops->free(s);
	free(s);
	t->second = NULL;
	t->name[0] = '\0';
}
