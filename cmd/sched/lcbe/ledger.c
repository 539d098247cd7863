// SPDX-License-Identifier: GPL-2.0
/*
 * ledger.c - the gate's ledger turned into shares: each BE process's time
 * on its runlist (gate.c measures it) and what that leaves it of its GPU
 * while an LC is busy, written for sched status and the exporter (share.c).
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "gate_state.h"

__u64 gate_lc_ts(const struct gate_opts *g, int nlc)
{
	__u64 ts;

	if (!g->lc_derived || nlc <= 1)
		return g->lc_ts;
	ts = g->lc_ts / (__u64)nlc;
	return ts < GATE_TS_PROGRESS_US ? GATE_TS_PROGRESS_US : ts;
}

/*
 * A BE process's share while an LC is busy, reckoned by construction: the
 * time its TSGs were on (measured) times what RM gives a BE TSG between
 * two LC timeslices, divided among the BE processes on at once.
 */
static void proc_share(const struct gate *g, const struct gate_proc *p, __u64 now,
		       struct gate_share_row *r)
{
	const struct gate_gpu *gs = NULL;
	/* on_ns runs to the last account (last_ns), not to now: a share written
	 * a moment after it must not read as time off */
	double life = (p->last_ns - p->joined_ns) / 1e9, rm = 1.0;
	int k;

	for (int i = 0; i < g->ngpus; i++)
		if (g->gpus[i].gpu == p->gpu)
			gs = &g->gpus[i];
	k = gs && gs->nbe ? gs->nbe : 1;
	if (g->o.rotate_ms)
		k = 1;
	if (gs && gs->nlc)
		rm = (double)g->o.be_ts /
		     (g->o.be_ts + (double)gs->nlc * gate_lc_ts(&g->o, gs->nlc));
	memset(r, 0, sizeof(*r));
	r->gpu = p->gpu;
	r->pid = p->pid;
	snprintf(r->comm, sizeof(r->comm), "%s", p->comm);
	r->on_pct = life > 0 ? 100.0 * (p->on_ns / 1e9) / life : 100.0;
	if (r->on_pct > 100)
		r->on_pct = 100;
	r->share_pct = r->on_pct * rm / k;
	r->floor_pct = gs && gs->nbe ? (double)g->o.floor_pct / gs->nbe : g->o.floor_pct;
	r->longest_off_ms = (p->on ? p->longest_off_ns :
			     (now - p->off_since > p->longest_off_ns ? now - p->off_since :
			      p->longest_off_ns)) / 1e6;
	/* on, it still waits for the LC's timeslices and the other BE's on at once */
	r->rm_wait_ms = gs ? ((double)gs->nlc * gate_lc_ts(&g->o, gs->nlc) +
			      (k - 1) * (double)g->o.be_ts) / 1e3 : 0;
	r->stall_ms = r->longest_off_ms + r->rm_wait_ms;
	r->age_s = (now - p->joined_ns) / 1e9;
	/* 2 % for rounding */
	r->kept = r->share_pct >= r->floor_pct * 0.98;
	r->stall_kept = r->longest_off_ms <= g->o.stall_ms + 2 * GATE_GUARD_NS / 1e6;
}

/* The share file sched status and the exporter read. Caller holds mu. */
void gate_share(struct gate *g, __u64 now)
{
	struct gate_share_row rows[64];
	struct gate_stats st = g->st;
	struct gate_lat lat;
	int n = 0;

	st.reported = g->page ? g->page->begins : 0;

	for (int k = 0; k < g->nprocs && n < 64; k++)
		if (!g->procs[k].gone)
			proc_share(g, &g->procs[k], now, &rows[n++]);
	gate_lat_window(g, &lat);
	if (g->o.target_us) {
		struct gate_lat span;

		gate_lat_span(g, &span);
		target_step(g, &lat, &span);
	}
	share_write(&g->o, &st, &lat, g->o.target_us ? &g->tgt : NULL, rows, n);
}
