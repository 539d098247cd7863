// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - lc-be's latency target (lc-p99 MS): once a second, the LC's
 * P99 over the last GATE_LAT_SPAN seconds (latency.c, from the hint
 * library's histogram; one second's few hundred requests make a P99 that
 * one slow request moves) steps along one ladder:
 *  - the TSGs' rung: RM's own timeslices and interleave levels (no policy:
 *    BE gets what it gets there) until the target is first missed, then the
 *    classes' interleave levels (LC high, BE low), then lc-be's timeslices
 *    (LC long, BE short) too;
 *  - then the share of time the hint may hold BE off (its duty, at most
 *    GATE_HINT_DUTY, which be-floor's timeslices are reckoned with: the
 *    floor always wins), half its range a step.
 * Above the target (after the first span, which only measures) it goes up
 * a step, and again only once the span holds two seconds measured after
 * the step.  Off RM's values the step is taken at once: the LC has shown a
 * need there.  From RM's values a miss must be confirmed first: the first
 * window above marks itself (miss_at); the span judged GATE_LAT_SPAN
 * windows later, which holds no window up to the mark, steps if it still
 * misses and cancels the mark if kept (so does any kept span after that,
 * before a step); the windows in between neither step nor cancel.  A burst,
 * such as an LC's first requests after a pause (H100, BERT: 25-45 ms, the
 * phases' maxima in bench/results/static-2026-11-27-h100-session13.md),
 * must not cost BE its share: there one span above the target climbed to
 * lc-be's timeslices, where BE keeps ~37 % of its throughput, and coming
 * back down takes TARGET_CALM plus relax_wait calm windows a rung, the
 * rest of a 10-s phase.  The cost is GATE_LAT_SPAN windows more on RM's
 * values under a sustained miss.  Under 90 % of the target for
 * TARGET_CALM windows it comes down one (the duty halved, under a tenth of
 * its range to 0; at duty 0 a rung, after relax_wait calm windows, a wait
 * that doubles each time the lower rung missed within TARGET_RELAX_RECENT
 * windows of coming down to it).  The H100 runs behind it
 * (bench/results/static-2026-11-26-h100*): lc-be's timeslices cost BE 63 %
 * of its throughput (be-timeslice 200: 37 % of BE alone, no policy 92 %);
 * RM's timeslices with LC high and BE low gave it 68 %; starting at the
 * largest duty gave it 23 %, giving a tenth back every 2 s 20-30 %.  A second
 * with fewer than TARGET_MIN_REQ timed requests moves nothing.  At the
 * largest duty and still above the target for TARGET_CALM windows, the
 * target is said not to be kept, with the P99 measured there: the GPU does
 * not give the LC that much beside its BE processes (or at all).
 *
 * Unless the LC runs alone: with no BE process on its GPU that the run
 * knows of (the gate's ledger; under mechanism mps also its daemon's
 * clients not started in class lc, which the gate leaves to MPS), no BE
 * share can bring its P99 down.  Above the target on TARGET_REFUSE spans
 * in a row, each all alone and over TARGET_MIN_REQ requests or more, its
 * last second too, before the target was met once in this run: the
 * target is refused; row.c's tick then ends the run, which puts everything
 * back as a stop does and fails with target_refusal's line.  Two spans'
 * worth, and a quiet second starts over: an LC's first requests after a
 * pause are slow (see above), and the span judged last holds none of its
 * first GATE_LAT_SPAN seconds.  Met once, or with a BE process beside it,
 * a miss stays a miss (the warning above).
 *
 * Under mechanism mps the gate leaves MPS's clients alone (their work runs
 * on the server's TSGs, bench/results/mps-facts-2026-11-26-h100): the knob
 * is then what BE clients started from now get: their client priority,
 * from TARGET_MPS_PRIORITY, and their active thread percentage, from
 * be-threads (or TARGET_MPS_THREADS).  A miss puts the priority to 1 (below
 * the LC) first, then takes the threads to 70 % (not under 10); calm gives
 * back threads 10 points at a time up to where they started, then the
 * priority.  These MPS steps are taken at each miss as before, without
 * the confirmation (the TSG rung still waits for it): they reach only
 * clients started afterwards, the first (priority 1) cost BE 1-2 % of its
 * steps on an H100 (issue 39's runs), and on RM's values every two calm
 * windows give one back; a knob that comes late reaches fewer clients.
 */
#include <stdio.h>

#include "gpuctl.h"
#include "gate_state.h"

#define TARGET_MIN_REQ	20
#define TARGET_CALM	2
#define TARGET_RELAX_MIN	4	/* calm windows at duty 0 before a rung down */
#define TARGET_RELAX_MAX	64	/* ... at most */
#define TARGET_RELAX_RECENT	30	/* a miss this soon after a rung down: wait longer */
#define DUTY_MAX_PM	((__u32)(GATE_HINT_DUTY * 1000))
#define TARGET_REFUSE	(2 * GATE_LAT_SPAN)	/* spans alone and above in a row: refused */

void target_init(struct gate *g)
{
	/* BE first: the hint holds BE off only once the LC's P99 asks for it */
	__atomic_store_n(&g->duty_pm, 0, __ATOMIC_RELAXED);
	g->tgt.duty_pm = 0;
	g->tgt.be_threads = g->o.mps_threads;
	g->tgt.be_priority = g->o.mps_threads ? TARGET_MPS_PRIORITY : 1;
	g->tgt.rung = TARGET_RUNG_RM;
	g->tgt.relax_wait = TARGET_RELAX_MIN;
	/* under mps its daemon's clients are not known until the run's first tick */
	g->be_others = g->o.mps_threads ? -1 : 0;
}

void target_be_others(struct gate *g, int n)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->be_others = n;
	pthread_mutex_unlock(&g->mu);
}

/*
 * BE processes beside the LC: the ledger's on a GPU with an LC process
 * (on any GPU while the gate knows none: an LC that is an MPS client has
 * no TSG of its own to tell), and those outside the ledger.  Caller holds mu.
 */
static int be_beside_lc(const struct gate *g)
{
	int n = g->be_others ? 1 : 0, nlc = 0;

	for (int i = 0; i < g->ngpus; i++)
		nlc += g->gpus[i].nlc;
	for (int i = 0; i < g->ngpus; i++)
		if (g->gpus[i].nlc || !nlc)
			n += g->gpus[i].nbe;
	return n;
}

/* The LC alone and above the target, before it was ever met: refused (see the top). */
static void judge_alone(struct gate *g, const struct gate_lat *last, const struct gate_lat *w)
{
	struct gate_target *t = &g->tgt;

	if (be_beside_lc(g)) {
		t->alone = t->alone_over = 0;
		return;
	}
	t->alone++;
	if (t->refused_us)
		return;
	if (t->kept_windows || last->count < TARGET_MIN_REQ || t->alone < GATE_LAT_SPAN ||
	    w->count < TARGET_MIN_REQ || w->p99_us <= (double)g->o.target_us) {
		t->alone_over = 0;
		return;
	}
	if (++t->alone_over < TARGET_REFUSE)
		return;
	t->refused_us = w->p99_us;
	t->refused_count = w->count;
}

const char *target_refusal(const struct gate_opts *o, const struct gate_target *t, char *buf,
			   size_t len)
{
	snprintf(buf, len, "lc-p99 %.2f ms is below the LC's P99 alone: %.2f ms (%llu requests "
		 "over the last %d s with no BE process on its GPU, and never under the target "
		 "in this run); no BE share can meet it: ask for more than %.2f ms (the run "
		 "stopped and put back all it changed)", o->target_us / 1e3, t->refused_us / 1e3,
		 (unsigned long long)t->refused_count, GATE_LAT_SPAN, t->refused_us / 1e3);
	return buf;
}

/* MPS: the BE clients' priority and threads, for clients started from now (row.c's tick writes them). */
static void knob_mps(struct gate *g, bool up)
{
	__u32 t = g->tgt.be_threads, top = g->o.mps_threads;
	__u32 p = g->tgt.be_priority;

	if (up && !p)
		p = 1;
	else if (up)
		t = t * 7 / 10 > 10 ? t * 7 / 10 : 10;
	else if (t < top)
		t = t + 10 < top ? t + 10 : top;
	else
		p = TARGET_MPS_PRIORITY;
	if (t != g->tgt.be_threads || p != g->tgt.be_priority) {
		g->tgt.be_threads = t;
		g->tgt.be_priority = p;
		g->tgt.moves++;
	}
}

/* Missed: one step up.  Returns the duty wanted next. */
static __u32 step_up(struct gate_target *t, __u32 duty)
{
	t->up_at = t->windows;
	if (t->rung < TARGET_RUNG_LCBE) {
		t->rung++;	/* the duty stays */
		if (t->down_at && t->windows - t->down_at <= TARGET_RELAX_RECENT)
			t->relax_wait = t->relax_wait * 2 < TARGET_RELAX_MAX ?
					t->relax_wait * 2 : TARGET_RELAX_MAX;
		t->moves++;
		return duty;
	}
	return duty + DUTY_MAX_PM / 2;
}

/*
 * A miss on RM's values is confirmed before the rung leaves them (see the
 * top): the first marks its window and steps nothing; the windows up to
 * GATE_LAT_SPAN after it neither step nor cancel; then a span still above,
 * which holds no window up to the mark, steps.  Off RM's values a miss
 * steps at once.  True: step up now.
 */
static bool confirmed(struct gate_target *t)
{
	if (t->rung > TARGET_RUNG_RM)
		return true;
	if (!t->miss_at) {
		t->miss_at = t->windows;
		return false;
	}
	if (t->windows - t->miss_at < GATE_LAT_SPAN)
		return false;
	t->miss_at = 0;
	return true;
}

/* Calm: one step down.  Returns the duty wanted next. */
static __u32 step_down(struct gate_target *t, __u32 duty)
{
	if (duty)
		return duty / 2 >= DUTY_MAX_PM / 10 ? duty / 2 : 0;
	if (t->rung > TARGET_RUNG_RM && t->calm >= t->relax_wait) {
		t->rung--;
		t->down_at = t->windows;
		t->moves++;
	}
	return 0;
}

void target_step(struct gate *g, const struct gate_lat *last, const struct gate_lat *w)
{
	struct gate_target *t = &g->tgt;
	__u32 duty = __atomic_load_n(&g->duty_pm, __ATOMIC_RELAXED), next = duty;

	if (!g->o.target_us)
		return;
	judge_alone(g, last, w);
	if (last->count < TARGET_MIN_REQ)
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
		/*
		 * The first span only measures (an LC's first requests after a
		 * pause are slow: H100, BERT, up to 4 s); then the span still
		 * holds the seconds before the last step: wait for two after it.
		 */
		if (t->windows < GATE_LAT_SPAN ||
		    (t->up_at && t->windows - t->up_at < GATE_LAT_SPAN - 1))
			goto out;
		if (confirmed(t))
			next = step_up(t, duty);
		if (g->o.mps_threads) {
			knob_mps(g, true);	/* at once, as before (see the top) */
			t->up_at = t->windows;
		}
	} else {
		t->at_max = 0;
		t->unreachable_us = 0;
		t->kept_windows++;
		if (t->miss_at && t->windows - t->miss_at >= GATE_LAT_SPAN)
			t->miss_at = 0;	/* a span without the first miss kept: not confirmed */
		if (w->p99_us >= 0.9 * (double)g->o.target_us)
			t->calm = 0;
		else if (++t->calm >= TARGET_CALM &&
			 (duty || !t->rung || t->calm >= t->relax_wait)) {
			next = step_down(t, duty);
			t->calm = 0;
			if (g->o.mps_threads)
				knob_mps(g, false);
		}
	}
out:
	if (next > DUTY_MAX_PM)
		next = DUTY_MAX_PM;
	if (next != duty) {
		__atomic_store_n(&g->duty_pm, next, __ATOMIC_RELAXED);
		t->moves++;
	}
	t->duty_pm = next;
}
