// SPDX-License-Identifier: GPL-2.0
/*
 * adaptive: migrates ahead of sequential faults by a degree that follows
 * how sequential the faults are: every `window` faults, the share of faults
 * that continued the sequence (or landed in what was asked for: the GPU
 * caught up) doubles the degree when high and halves it when low, down to
 * 0 (nothing moved) on a random access pattern, and back up when the
 * pattern turns sequential again.
 */
#include "engine_common.bpf.h"
#include "pfengine_abi.h"

PFE_ENGINE("migrate ahead of sequential faults by a degree that grows when they are sequential and falls to 0 when not");

PFE_PARAM(degree_init, 4, 1, 4096, "blocks ahead at first (2 MiB each)");
PFE_PARAM(max_degree, 512, 1, 65536, "most blocks ahead");
PFE_PARAM(window, 32, 4, 4096, "faults between two adjustments");
PFE_PARAM(high_pct, 75, 1, 100, "sequential share at or above which the degree doubles");
PFE_PARAM(low_pct, 25, 0, 99, "sequential share at or below which it halves");

PFE_COUNTER(degree);
PFE_COUNTER(raised);
PFE_COUNTER(lowered);
PFE_COUNTER(sequential);

__s64 last = -1;		/* the last distinct block */
__s64 req_lo = -1, req_hi = -1;	/* the blocks asked for last */
__u64 started, nfaults, nseq;

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);
	__s64 b, d, from, to;
	int seq, inreq;

	if (!e || !pfe_is_fault(e))
		return 0;
	if (!started) {
		degree = degree_init;
		started = 1;
	}
	b = block_of(e->addr);
	if (b == last)
		return 0;
	d = last < 0 ? 0 : b - last;
	last = b;
	/* next to the last fault, or in or right after what was asked for (it worked) */
	seq = d == 1 || d == -1 || (req_lo >= 0 && b >= req_lo - 1 && b <= req_hi + 1);
	nfaults++;
	if (seq) {
		nseq++;
		sequential++;
	}
	if (nfaults >= window) {
		__u64 pct = nseq * 100 / nfaults;

		if (pct >= high_pct && degree < max_degree) {
			degree = degree ? degree * 2 : 1;
			if (degree > max_degree)
				degree = max_degree;
			raised++;
		} else if (pct <= low_pct && degree) {
			degree /= 2;
			lowered++;
		}
		nfaults = nseq = 0;
	}
	if (!seq || !degree || d == 0)
		return 0;
	inreq = req_lo >= 0 && b >= req_lo && b <= req_hi;
	if (d > 0) {
		from = inreq ? req_hi + 1 : b + 1;
		to = b + (__s64)degree;
	} else {
		from = b - (__s64)degree;
		to = inreq ? req_lo - 1 : b - 1;
	}
	if (from > to || from < 0)
		return 0;
	add_blocks(e, from, to);
	req_lo = from;
	req_hi = to;
	return 0;
}

SEC("syscall")
int pfe_batch(void *ctx)
{
	return pfe_for_each(one);
}
