// SPDX-License-Identifier: GPL-2.0
/*
 * Counts each kind of event the engine hands over (tests/vm/t_pfengine_allocs.sh):
 * faults, ALLOC, FREE, GAP (and the events GAPs say were lost), kinds it
 * does not know; asks for nothing.
 */
#include "pfengine_abi.h"

PFE_ENGINE("test: counts the events of each kind");

PFE_COUNTER(n_fault);
PFE_COUNTER(n_alloc);
PFE_COUNTER(n_free);
PFE_COUNTER(n_gap);
PFE_COUNTER(n_gap_lost);
PFE_COUNTER(n_other);

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);

	if (!e)
		return 0;
	switch (e->kind) {
	case PFE_EV_FAULT:
		n_fault++;
		break;
	case PFE_EV_ALLOC:
		n_alloc++;
		break;
	case PFE_EV_FREE:
		n_free++;
		break;
	case PFE_EV_GAP:
		n_gap++;
		n_gap_lost += e->len;
		break;
	case PFE_EV_DONE:
		break;
	default:
		n_other++;
	}
	return 0;
}

SEC("syscall")
int pfe_batch(void *ctx)
{
	return pfe_for_each(one);
}
