// SPDX-License-Identifier: GPL-2.0
/*
 * act.c - carrying out a policy's requests: the destination (a GPU of the
 * process, --gpu, or the CPU), the budget (the GPU's free memory less a
 * reserve, --max-bytes, the calls still running), UVM_MIGRATE on the
 * process's own UVM file (made by lane.c's threads; done.c ends each: its
 * counts, the allocations it served, the DONE event back to the policy).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine_priv.h"
#include "units.h"
#include "nvml.h"

#define FREE_REFRESH_S 0.02		/* how often free memory is read again */

static const struct uvm_uuid zero_uuid;

/*
 * The process's GPUs (UVM's table, by index), --gpu checked against them:
 * 0; -1 after p_err (quiet when the process has no GPU yet).
 */
int act_read_gpus(struct engine *g, bool quiet_if_none)
{
	struct uvm_uuid want;
	char a[48];
	int n = uvm_gpus_by_index(g->s.uvm_fd, g->gpu, PFE_MAX_GPUS), used = 0;

	g->only = -1;
	if (n <= 0 && g->o->gpu) {
		/* no table (yet): the driver itself checks the UUID on each call */
		uuid_parse(g->o->gpu, &g->gpu[0]);
		g->ngpus = 1;
		g->only = 0;
		return 0;
	}
	if (n < 0) {
		p_err("cannot read the GPUs of process %d (%s): give --gpu UUID", g->w.pid,
		      strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++)
		used += !!memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid));
	if (!used) {
		if (!quiet_if_none)
			p_err("process %d has registered no GPU with UVM yet", g->w.pid);
		return -1;
	}
	g->ngpus = n;
	if (!g->o->gpu)
		return 0;
	uuid_parse(g->o->gpu, &want);	/* checked by the command line */
	for (int i = 0; i < n; i++) {
		if (!memcmp(&g->gpu[i], &want, sizeof(want))) {
			g->only = i;
			return 0;
		}
	}
	p_err("process %d does not use GPU %s", g->w.pid, uuid_format(&want, a, sizeof(a)));
	return -1;
}

int act_first_gpu(const struct engine *g)
{
	for (int i = 0; i < g->ngpus; i++)
		if (memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
			return i;
	return 0;
}

uint64_t pfe_budget(uint64_t max_bytes, bool have_free, uint64_t free_bytes, uint64_t used)
{
	uint64_t b = max_bytes ? max_bytes : UINT64_MAX, avail;

	if (!have_free)
		return b;
	avail = free_bytes > PFE_RESERVE_BYTES + used ? free_bytes - PFE_RESERVE_BYTES - used : 0;
	return avail < b ? avail : b;
}

/* How much one call to GPU i (-1: the CPU) may move now: --max-bytes and its free memory. */
static uint64_t budget(struct engine *g, int i)
{
	char err[160];

	if (!g->use_nvml || i < 0)
		return pfe_budget(g->o->max_bytes, false, 0, 0);
	if (mono_s() - g->free_at[i] >= FREE_REFRESH_S) {
		if (gpu_free_bytes(&g->gpu[i], &g->free_bytes[i], err, sizeof(err)))
			g->free_bytes[i] = 0;	/* unreadable now: move nothing */
		g->free_at[i] = mono_s();
		g->since_free[i] = 0;
	}
	/* moves still running count as made (the free memory may show them, or not yet) */
	return pfe_budget(g->o->max_bytes, true, g->free_bytes[i], g->since_free[i] + g->inflight[i]);
}

/* The destination of request q: GPU index (-1: the CPU, -3: a watch), or -2 when it names none to use. */
static int dest_of(struct engine *g, const struct pfe_request *q)
{
	int i = q->dst;

	if (q->dst == PFE_DST_CPU)
		return -1;
	if (q->dst == PFE_DST_WATCH)
		return -3;
	if (i >= g->ngpus || !memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
		act_read_gpus(g, true);	/* a GPU the process registered since */
	if (i >= g->ngpus || !memcmp(&g->gpu[i], &zero_uuid, sizeof(zero_uuid)))
		return -2;
	if (g->only >= 0 && i != g->only)
		return -2;
	return i;
}

/*
 * Carries out q: what needs no call (a watch, a GPU it may not use, no
 * room) at once; a move, given to a lane (lane.c), which ends it later.
 */
void act(struct engine *g, const struct pfe_request *q)
{
	uint64_t len = q->len, cap;
	int i = dest_of(g, q);

	if (q->dst == PFE_DST_WATCH) {	/* nothing moves: the PULL watch again */
		allocs_watch(&g->al, q->addr, q->len, monoraw_ns());
		done_event(g, q, 0, true);
		return;
	}
	if (i == -2) {
		g->run.ctr[PFE_C_BAD_REQS]++;
		if (!g->bad_said) {
			p_info("engine: a request for GPU index %u dropped (%s)", q->dst,
			       g->only >= 0 ? "--gpu names another" : "the process has no such GPU");
			g->bad_said = true;
		}
		done_event(g, q, 0, false);
		return;
	}
	cap = budget(g, i);
	if (len > cap) {
		len = cap >= PFE_BLOCK ? cap & ~(PFE_BLOCK - 1) : cap & ~4095ull;
		g->run.ctr[PFE_C_CAPPED]++;
		if (!g->capped_said) {
			char hq[UNITS_BUF], hl[UNITS_BUF];

			p_info("engine: a request of %s cut to %s: %s",
			       units_fmt_size(q->len, UNITS_HUMAN, hq, sizeof(hq)),
			       units_fmt_size(len, UNITS_HUMAN, hl, sizeof(hl)),
			       g->use_nvml ? "the GPU's free memory less 256 MiB" : "--max-bytes");
			g->capped_said = true;
		}
	}
	if (!len) {
		done_event(g, q, 0, false);
		return;
	}
	lane_submit(g, q, i, len, i >= 0 ? &g->gpu[i] : &uvm_cpu_uuid);
}
