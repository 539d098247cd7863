// SPDX-License-Identifier: GPL-2.0
/*
 * latency.c - the LC's request latencies over the last window, from the
 * histogram libgpuctl-hint.so keeps in the hint file (gpuctl_hint.h): the
 * buckets' growth since the last look, P50 and P99 interpolated within
 * their bucket (12.5 % wide), the largest bucket's upper bound.  Whoever
 * may write the hint file may write any number there: the figures are the
 * writers' report, as the request count is.  The target reads the same
 * figures over the last GATE_LAT_SPAN windows together.
 */
#include <string.h>

#include "gpuctl.h"
#include "gate_state.h"

static double quantile(const __u64 *d, __u64 n, double q)
{
	double rank = q * (double)n, cum = 0;

	for (__u32 b = 0; b < GPUCTL_HINT_LAT_BUCKETS; b++) {
		double lo, hi;

		if (!d[b] || cum + (double)d[b] < rank) {
			cum += (double)d[b];
			continue;
		}
		lo = (double)gpuctl_hint_lat_lo(b);
		hi = b + 1 < GPUCTL_HINT_LAT_BUCKETS ? (double)gpuctl_hint_lat_lo(b + 1) : lo * 1.125;
		return lo + (hi - lo) * (rank - cum) / (double)d[b];
	}
	return 0;
}

/* The figures of the n requests of histogram d into w. */
static void figures(const __u64 *d, __u64 n, struct gate_lat *w)
{
	w->count = n;
	if (!n)
		return;
	w->p50_us = quantile(d, n, 0.50);
	w->p99_us = quantile(d, n, 0.99);
	for (__u32 b = GPUCTL_HINT_LAT_BUCKETS; b-- > 0;)
		if (d[b]) {
			w->max_us = b + 1 < GPUCTL_HINT_LAT_BUCKETS ?
				    (double)gpuctl_hint_lat_lo(b + 1) : (double)gpuctl_hint_lat_lo(b);
			break;
		}
}

void gate_lat_window(struct gate *g, struct gate_lat *w)
{
	const struct gpuctl_hint_lat *cur;
	__u64 *d = g->lat_span[g->lat_span_next], n = 0, begins;

	memset(w, 0, sizeof(*w));
	if (!g->page)
		return;
	g->lat_span_next = (g->lat_span_next + 1) % GATE_LAT_SPAN;
	cur = hint_lat(g);
	begins = __atomic_load_n(&g->page->begins, __ATOMIC_RELAXED);
	w->begun = begins - g->lat_begins;
	g->lat_begins = begins;
	for (__u32 b = 0; b < GPUCTL_HINT_LAT_BUCKETS; b++) {
		__u64 v = __atomic_load_n(&cur->bucket[b], __ATOMIC_RELAXED);

		d[b] = v >= g->lat_prev[b] ? v - g->lat_prev[b] : 0;
		g->lat_prev[b] = v;
		n += d[b];
	}
	figures(d, n, w);
}

void gate_lat_span(struct gate *g, struct gate_lat *w)
{
	__u64 d[GPUCTL_HINT_LAT_BUCKETS], n = 0;

	memset(w, 0, sizeof(*w));
	for (__u32 b = 0; b < GPUCTL_HINT_LAT_BUCKETS; b++) {
		d[b] = 0;
		for (int i = 0; i < GATE_LAT_SPAN; i++)
			d[b] += g->lat_span[i][b];
		n += d[b];
	}
	figures(d, n, w);
}
