// SPDX-License-Identifier: GPL-2.0
/*
 * done.c - the end of a policy's request: a move's counts (bytes, calls,
 * errors, the first refusal said), the allocations it served (their age: to
 * the call's start), and the DONE event back to the policy in a later batch.
 * act.c ends here what needs no call; lane.c the moves its threads made.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "engine_priv.h"
#include "units.h"

/* q's DONE event, into the next batch: len moved (0: nothing), ok. */
void done_event(struct engine *g, const struct pfe_request *q, uint64_t len, bool ok)
{
	struct pfe_event *done = pfe_run_slot(&g->run);

	if (!done)
		return;
	done->kind = PFE_EV_DONE;
	done->addr = q->addr;
	done->len = len;
	done->cookie = q->cookie;
	done->gpu = q->dst;
	done->ts_ns = monoraw_ns();
	done->flags = ok ? PFE_F_OK : 0;
}

/* A move of len bytes for q that ended (ret, st) after running [t0, t1]: its counts and DONE. */
void done_move(struct engine *g, const struct pfe_request *q, int i, uint64_t len, int ret,
	       uint32_t st, uint64_t t0, uint64_t t1)
{
	uint64_t *c = g->run.ctr;
	bool ok = !ret && !st;

	if (len)
		c[PFE_C_IOCTLS]++;
	if (len && !ok) {
		c[PFE_C_ERRORS]++;
		if (!g->refused_said) {
			char hl[UNITS_BUF];

			p_info("engine: UVM_MIGRATE of %s at 0x%llx refused: %s",
			       units_fmt_size(len, UNITS_HUMAN, hl, sizeof(hl)), (unsigned long long)q->addr,
			       ret ? strerror(-ret) : uvm_status_text(st));
			g->refused_said = true;
		}
	} else if (len) {
		c[PFE_C_BYTES] += len;
		if (i >= 0) {
			g->since_free[i] += len;
			g->gpu_bytes[i] += len;
			allocs_served(&g->al, q->addr, len, t0, t1);
		}
	}
	done_event(g, q, len, ok);
}
