// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - lc-be's latency target (lc-p99 MS): once a second, the LC's
 * P99 over the last second (latency.c, from the hint library) moves the
 * one knob the hint gate has, the share of time the hint may hold BE off
 * (its duty, at most GATE_HINT_DUTY, which be-floor's timeslices are
 * reckoned with: the floor always wins).  It starts at 0 (BE gets all it
 * can); above the target the duty grows by half its range at once (the LC
 * waits for no slow climb); under 90 % of the target for TARGET_CALM
 * windows it gives BE back a tenth.  (Starting at the largest duty, the
 * first H100 run gave BE back too slowly: 23 % of BE alone where no policy
 * at all kept the target with 93 %.)  A second
 * with fewer than TARGET_MIN_REQ timed requests moves nothing.  At the
 * largest duty and still above the target for TARGET_CALM windows, the
 * target is said not to be kept, with the P99 measured there: the GPU does
 * not give the LC that much beside its BE processes (or at all).
 *
 * Under mechanism mps the gate leaves MPS's clients alone: the knob is
 * then the active thread percentage BE clients started from now get.
 */
#include <stdio.h>

#include "gpuctl.h"
#include "gate_state.h"

#define TARGET_MIN_REQ	20
#define TARGET_CALM	2
#define DUTY_MAX_PM	((__u32)(GATE_HINT_DUTY * 1000))

void target_init(struct gate *g)
{
	/* BE first: the hint holds BE off only once the LC's P99 asks for it */
	__atomic_store_n(&g->duty_pm, 0, __ATOMIC_RELAXED);
	g->tgt.duty_pm = 0;
	g->tgt.be_threads = 100;
}

/* MPS: the BE clients' thread percentage, for clients started from now (row.c's tick writes it). */
static void knob_mps(struct gate *g, bool up)
{
	__u32 t = g->tgt.be_threads;

	t = up ? (t * 7 / 10 > 10 ? t * 7 / 10 : 10) : (t + 10 < 100 ? t + 10 : 100);
	if (t != g->tgt.be_threads) {
		g->tgt.be_threads = t;
		g->tgt.moves++;
	}
}

void target_step(struct gate *g, const struct gate_lat *w)
{
	struct gate_target *t = &g->tgt;
	__u32 duty = __atomic_load_n(&g->duty_pm, __ATOMIC_RELAXED), next = duty;

	if (!g->o.target_us || w->count < TARGET_MIN_REQ)
		return;	/* a quiet second: the last one's figures stand */
	t->p99_us = w->p99_us;
	t->count = w->count;
	t->windows++;
	t->kept = w->p99_us <= (double)g->o.target_us;
	if (!t->kept) {
		t->calm = 0;
		t->at_max = duty >= DUTY_MAX_PM ? t->at_max + 1 : 0;
		if (t->at_max >= 3 && !t->unreachable_us)
			t->unreachable_us = w->p99_us;
		next = duty + DUTY_MAX_PM / 2;
		if (g->o.mps_knob)
			knob_mps(g, true);
	} else {
		t->at_max = 0;
		t->unreachable_us = 0;
		t->kept_windows++;
		if (w->p99_us < 0.9 * (double)g->o.target_us && ++t->calm >= TARGET_CALM) {
			t->calm = 0;
			next = duty > DUTY_MAX_PM / 10 ? duty - DUTY_MAX_PM / 10 : 0;
			if (g->o.mps_knob)
				knob_mps(g, false);
		}
	}
	if (next > DUTY_MAX_PM)
		next = DUTY_MAX_PM;
	if (next != duty) {
		__atomic_store_n(&g->duty_pm, next, __ATOMIC_RELAXED);
		t->moves++;
	}
	t->duty_pm = next;
}
