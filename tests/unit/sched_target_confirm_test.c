// SPDX-License-Identifier: GPL-2.0
/*
 * sched_target_confirm_test.c - lc-p99's loop (cmd/sched/lcbe/target.c)
 * window by window, with no clock and no gate thread: each step is one
 * second's span P99 handed to target_step.  A miss on RM's values is
 * confirmed by a span without it before the rung leaves them: a burst
 * leaves the rung at RM, a sustained miss steps GATE_LAT_SPAN windows
 * after the first, a kept span at the judgment cancels the mark and the
 * next miss marks anew, kept windows in between cancel nothing, quiet
 * seconds count for nothing; off RM's values misses step as before, and
 * back on RM's values they are confirmed again; under mechanism mps the
 * BE clients' knob moves at the same windows as without the confirmation.
 * Prints "N passed, N failed".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "sched/lcbe/gate_state.h"

static int npass, nfail;
#define CHECK(c, ...) do { if (c) { npass++; printf("ok   "); } else { nfail++; printf("FAIL "); } \
	printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

#define TGT	10000	/* µs */
#define MISS	20000	/* a span P99 above it */
#define KEPT	9500	/* under it, not calm (>= 90 %) */
#define CALM	3000	/* well under it */

static struct gate g;

static void start(__u32 mps_threads)
{
	memset(&g, 0, sizeof(g));
	pthread_mutex_init(&g.mu, NULL);
	g.o.target_us = TGT;
	g.o.mps_threads = mps_threads;
	target_init(&g);
	g.be_others = 1;	/* a BE beside the LC: never refused */
}

static __u32 duty(void) { return __atomic_load_n(&g.duty_pm, __ATOMIC_RELAXED); }

/* One window whose span's P99 is p99_us (100 requests); the rung after it. */
static __u32 step(double p99_us)
{
	struct gate_lat w = { .begun = 100, .count = 100, .p50_us = p99_us / 2, .p99_us = p99_us };

	target_step(&g, &w, &w);
	return g.tgt.rung;
}

/* A second with too few timed requests: no window. */
static void quiet(void)
{
	struct gate_lat w = { .begun = 5, .count = 5, .p50_us = MISS, .p99_us = MISS };

	target_step(&g, &w, &w);
}

/* Windows of p99_us until the rung leaves what it is; 0: none in max. */
static int until_rung_moves(double p99_us, int max)
{
	__u32 r0 = g.tgt.rung;

	for (int i = 1; i <= max; i++)
		if (step(p99_us) != r0)
			return i;
	return 0;
}

/* The first span only measures: GATE_LAT_SPAN - 1 windows, kept. */
static void first_span(double p99_us)
{
	for (int i = 1; i < GATE_LAT_SPAN; i++)
		step(p99_us);
}

static void burst(void)
{
	printf("-- a burst: the span above the target while it holds one second\n");
	start(0);
	first_span(KEPT);
	step(MISS);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && g.tgt.miss_at == GATE_LAT_SPAN && !g.tgt.moves,
	      "the first miss marks its window (%llu), the rung stays RM's (%u)",
	      (unsigned long long)g.tgt.miss_at, g.tgt.rung);
	for (int i = 1; i < GATE_LAT_SPAN; i++)
		step(MISS);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && g.tgt.miss_at == GATE_LAT_SPAN,
	      "the %d windows after it, still above: no step, the mark stands", GATE_LAT_SPAN - 1);
	step(KEPT);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && !g.tgt.miss_at && !g.tgt.moves && duty() == 0,
	      "the span without the burst kept: the mark cancelled, RM's values, duty 0, no move");
	for (int i = 0; i < 10; i++)
		step(KEPT);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && !g.tgt.moves, "10 kept windows later: RM's still");

	start(0);
	first_span(KEPT);
	step(MISS);
	for (int i = 0; i < 2 * GATE_LAT_SPAN; i++)
		step(KEPT);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && !g.tgt.miss_at && !g.tgt.moves,
	      "a single window above, then kept: RM's values, the mark gone");
}

static void sustained(void)
{
	int n;

	printf("-- a sustained miss: a step GATE_LAT_SPAN windows after the first\n");
	start(0);
	first_span(MISS);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && !g.tgt.miss_at, "the first span only measures");
	n = until_rung_moves(MISS, 20);
	CHECK(n == 1 + GATE_LAT_SPAN && g.tgt.rung == TARGET_RUNG_LEVELS,
	      "the classes' levels %d windows after the first span (the mark, then %d)", n,
	      GATE_LAT_SPAN);
	CHECK(g.tgt.up_at == 2 * GATE_LAT_SPAN && !g.tgt.miss_at && g.tgt.moves == 1,
	      "the step at window %llu, the mark cleared", (unsigned long long)g.tgt.up_at);
	n = until_rung_moves(MISS, 20);
	CHECK(n == GATE_LAT_SPAN - 1 && g.tgt.rung == TARGET_RUNG_LCBE && duty() == 0,
	      "off RM's values, as before: lc-be's timeslices %d windows later, no confirmation", n);
	for (n = 1; n <= 20 && step(MISS) == TARGET_RUNG_LCBE && duty() == 0; n++)
		;
	CHECK(n == GATE_LAT_SPAN - 1 && duty() == (__u32)(GATE_HINT_DUTY * 1000) / 2,
	      "then the duty up %d windows later (%u per mille)", n, duty());

	start(0);
	first_span(KEPT);
	step(MISS);
	step(KEPT);
	step(KEPT);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && g.tgt.miss_at == GATE_LAT_SPAN,
	      "kept windows between the mark and its judgment cancel nothing");
	step(MISS);
	CHECK(g.tgt.rung == TARGET_RUNG_LEVELS && !g.tgt.miss_at,
	      "and a span still above at the judgment steps");

	start(0);
	first_span(KEPT);
	step(MISS);
	quiet();
	quiet();
	CHECK(g.tgt.miss_at == GATE_LAT_SPAN && g.tgt.windows == GATE_LAT_SPAN,
	      "quiet seconds are no windows (%llu)", (unsigned long long)g.tgt.windows);
	n = until_rung_moves(MISS, 20);
	CHECK(n == GATE_LAT_SPAN, "the step %d windows after the mark, quiet seconds aside", n);
}

static void again(void)
{
	__u32 wait;
	int n;

	printf("-- a miss, kept, a miss again: the mark starts over\n");
	start(0);
	first_span(KEPT);
	for (int i = 0; i < GATE_LAT_SPAN; i++)
		step(MISS);
	step(KEPT);
	CHECK(!g.tgt.miss_at && g.tgt.rung == TARGET_RUNG_RM, "kept at the judgment: cancelled");
	step(MISS);
	CHECK(g.tgt.miss_at == g.tgt.windows && g.tgt.rung == TARGET_RUNG_RM,
	      "the next miss marks anew (window %llu)", (unsigned long long)g.tgt.miss_at);
	n = until_rung_moves(MISS, 20);
	CHECK(n == GATE_LAT_SPAN && g.tgt.rung == TARGET_RUNG_LEVELS,
	      "and steps %d windows after the new mark, not the old one", n);

	printf("-- back down on RM's values: a miss is confirmed again\n");
	for (n = 1; n <= 40 && step(CALM) != TARGET_RUNG_RM; n++)
		;
	CHECK(g.tgt.rung == TARGET_RUNG_RM && n == (int)g.tgt.relax_wait,
	      "calm: back to RM's values after %d windows", n);
	wait = g.tgt.relax_wait;
	step(MISS);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && g.tgt.miss_at == g.tgt.windows,
	      "a miss there marks, the rung stays");
	n = until_rung_moves(MISS, 20);
	CHECK(n == GATE_LAT_SPAN && g.tgt.relax_wait == 2 * wait,
	      "confirmed %d windows later; soon after the rung down: relax_wait doubled (%u)", n,
	      g.tgt.relax_wait);
}

static void mps(void)
{
	__u32 seen_p[12], seen_t[12], seen_r[12];

	printf("-- mechanism mps: the BE clients' knob moves at once, the rung waits\n");
	start(50);
	for (int i = 1; i <= 11; i++) {
		seen_r[i] = step(MISS);
		seen_p[i] = g.tgt.be_priority;
		seen_t[i] = g.tgt.be_threads;
	}
	CHECK(seen_p[GATE_LAT_SPAN - 1] == 0 && seen_p[GATE_LAT_SPAN] == 1 &&
	      seen_t[GATE_LAT_SPAN] == 50 && seen_r[GATE_LAT_SPAN] == TARGET_RUNG_RM,
	      "window %d (the mark): priority 1 at once, the rung still RM's", GATE_LAT_SPAN);
	CHECK(seen_t[GATE_LAT_SPAN + 1] == 50 && seen_t[GATE_LAT_SPAN + 2] == 35 &&
	      seen_r[GATE_LAT_SPAN + 2] == TARGET_RUNG_RM,
	      "2 windows later the threads to 35 %% (as without the confirmation), the rung still RM's");
	CHECK(seen_r[2 * GATE_LAT_SPAN] == TARGET_RUNG_RM && seen_t[2 * GATE_LAT_SPAN] == 35,
	      "window %d: the judgment waits for 2 windows after the knob's step", 2 * GATE_LAT_SPAN);
	CHECK(seen_r[2 * GATE_LAT_SPAN + 1] == TARGET_RUNG_LEVELS &&
	      seen_t[2 * GATE_LAT_SPAN + 1] == 24,
	      "window %d: confirmed: the levels, the threads to 24 %%", 2 * GATE_LAT_SPAN + 1);

	start(50);
	first_span(KEPT);
	step(MISS);
	step(MISS);
	step(MISS);
	CHECK(g.tgt.be_priority == 1 && g.tgt.be_threads == 35 && g.tgt.rung == TARGET_RUNG_RM,
	      "a burst under mps: the knob moved (priority 1, 35 %%), the rung did not");
	step(KEPT);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && !g.tgt.miss_at,
	      "kept at the judgment: the mark cancelled");

	start(50);
	first_span(KEPT);
	for (int i = 0; i <= GATE_LAT_SPAN; i++)
		step(MISS);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && g.tgt.miss_at == GATE_LAT_SPAN,
	      "above at the judgment, whose step waits for 2 windows after the knob's: the mark stands");
	step(KEPT);
	CHECK(g.tgt.rung == TARGET_RUNG_RM && !g.tgt.miss_at,
	      "a kept span after the judgment, before any step: the mark cancelled");
	for (int i = 0; i < 12; i++)
		step(CALM);
	CHECK(g.tgt.be_priority == 0 && g.tgt.be_threads == 50 && g.tgt.rung == TARGET_RUNG_RM,
	      "calm: the knob back to priority 0 and 50 %% (%u, %u)", g.tgt.be_priority,
	      g.tgt.be_threads);
}

int main(void)
{
	burst();
	sustained();
	again();
	mps();
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
