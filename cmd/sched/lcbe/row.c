// SPDX-License-Identifier: GPL-2.0
/*
 * row.c - lc-be's row in the table of scheduling policies (policy.h): its
 * words, classes and defaults, and the hooks through which the run daemon
 * (run.c) reaches the gate and the ledger without knowing them.
 *
 * Latency-critical (LC) processes get long timeslices, the rest (BE) short
 * ones; BE keeps be-floor of each GPU, the hint gate takes BE off while an
 * LC request is in flight, be-rotate lets one BE process on at a time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "lcbe.h"

#define LEVEL(l) (NVA06C_CTRL_INTERLEAVE_LEVEL_##l + 1)

static const struct sched_word lcbe_words[] = {
	{ "lc", SW_MATCH, POLICY_CLASS_LC, NULL },
	{ "be", SW_MATCH, POLICY_CLASS_BE, NULL },
	{ "lc-timeslice", SW_TIMESLICE, POLICY_CLASS_LC, NULL },
	{ "be-timeslice", SW_TIMESLICE, POLICY_CLASS_BE, NULL },
	{ "lc-interleave", SW_INTERLEAVE, POLICY_CLASS_LC, NULL },
	{ "be-interleave", SW_INTERLEAVE, POLICY_CLASS_BE, NULL },
	{ "hint", SW_OWN, POLICY_CLASS_BE, "__files__" },
	{ "hint-hold", SW_OWN, POLICY_CLASS_BE, NULL },
	{ "hint-mode", SW_OWN, POLICY_CLASS_BE, "0600 0660 0666" },
	{ "hint-min-off", SW_OWN, POLICY_CLASS_BE, NULL },
	{ "be-rotate", SW_OWN, POLICY_CLASS_BE, NULL },
	{ "be-off", SW_OWN, POLICY_CLASS_BE, "schedule channels" },
	{ "be-floor", SW_OWN, POLICY_CLASS_BE, NULL },
	{ "be-stall", SW_OWN, POLICY_CLASS_BE, NULL },
	{ "lc-p99", SW_OWN, POLICY_CLASS_LC, NULL },
	/* mps_words (cmd/sched/mps/words.c) */
	{ "mechanism", SW_OWN, POLICY_CLASS_BE, "tsg mps auto" },
	{ "mps-dir", SW_OWN, POLICY_CLASS_BE, "__files__" },
	{ "be-threads", SW_OWN, POLICY_CLASS_BE, NULL },
	{ "lc-threads", SW_OWN, POLICY_CLASS_LC, NULL },
	{ "be-mem", SW_OWN, POLICY_CLASS_BE, NULL },
	{ NULL },
};

static void *lcbe_make(void)
{
	struct lcbe *l = calloc(1, sizeof(*l));

	if (l)
		lcbe_defaults(&l->o);
	return l;
}

static int hook_word(void *self, const char *word, const char *arg)
{
	return lcbe_word(self, word, arg);
}

static int hook_parsed(void *self, struct class_values *val)
{
	struct lcbe *l = self;

	if (lcbe_parsed(l, val))
		return EXIT_USAGE;
	memcpy(l->cls, val, sizeof(l->cls));	/* lc-p99's rungs put them back */
	return 0;
}

/* The ledger, and the gate when engaged (be_ts is reckoned for lc-be alone). */
static int hook_start(void *self, struct sched *s, const struct policy *rules)
{
	struct lcbe *l = self;

	/* the mechanism first: under mps the target also moves BE clients' threads */
	if (mps_session_start(&l->mps, &l->mst, s, rules))
		return -1;
	if (l->o.target_us && !strcmp(l->mst.mech, "mps")) {
		/* the BE clients' start, before the first */
		if (!l->mst.be_threads)
			l->mst.be_threads = TARGET_MPS_THREADS;
		l->mst.be_priority = TARGET_MPS_PRIORITY;
		if (l->mst.file_ours && mps_state_write(&l->mst)) {
			mps_session_stop(&l->mst);
			return -1;
		}
		l->o.mps_threads = l->mst.be_threads;
	}
	l->o.mech = mps_session_mech(&l->mst);
	if (l->o.be_ts && gate_start(&l->gate, &l->o)) {
		mps_session_stop(&l->mst);
		return -1;
	}
	l->mps_started = true;
	l->rung = TARGET_RUNG_RM;	/* lc-p99: target.c's first rung */
	return 0;
}

/* The mechanism chosen at start: the run applies through it, the gate takes BE off through it. */
static const struct sched_mech *hook_mech(const void *self)
{
	return ((const struct lcbe *)self)->o.mech;
}

static bool hook_engaged(const void *self)
{
	return gate_engaged(((const struct lcbe *)self)->gate);
}

static int hook_serve(void *self)
{
	struct lcbe *l = self;

	if (l->mps_started && l->mst.run != getpid())
		mps_session_served(&l->mst, getpid());
	return l->gate ? gate_run(l->gate) : 0;
}

static const char *hook_describe(const void *self, char *buf, size_t len)
{
	const struct lcbe *l = self;
	const struct gate_opts *o = &l->o;
	char floor[160] = "";

	if (l->gate)
		snprintf(floor, sizeof(floor), ", BE keep %u%% of each GPU, held off %u ms "
			 "at most, LC timeslice %llu us%s", o->floor_pct, o->stall_ms,
			 (unsigned long long)o->lc_ts,
			 o->lc_derived ? " / the GPU's LC processes" : "");
	char tgt[64] = "";

	if (o->target_us)
		snprintf(tgt, sizeof(tgt), ", LC P99 target %.1f ms", o->target_us / 1e3);
	snprintf(buf, len, "%s%s%s%s%s", floor, o->hint ? ", BE off while LC holds the hint " : "",
		 o->hint ? o->hint : "",
		 o->rotate_ms ? ", one BE process on the runlist at a time" : "", tgt);
	return buf;
}

static const char *hook_warning(const void *self, char *buf, size_t len)
{
	const struct lcbe *l = self;

	return l->gate ? share_floor_problem(&l->o, buf, len) : NULL;
}

/*
 * lc-p99's rung (target.c): RM's own values (those saved before this run
 * changed the TSG; a new one's left as they are), the class's interleave
 * level beside them, or the class's values.
 */
static void rung_values(const struct lcbe *l, struct tsg *t)
{
	const struct class_values *c = &l->cls[t->info.want_class];
	bool saved = t->info.orig_by != 0;
	__u32 orig_level = t->info.orig_flags & ORIG_LEVEL_KNOWN ? t->info.orig_interleave :
			   NVA06C_CTRL_INTERLEAVE_LEVEL_MEDIUM;

	switch (l->rung) {
	case TARGET_RUNG_RM:
		t->info.want_timeslice = saved ? t->info.orig_timeslice : 0;
		t->info.want_interleave = saved ? orig_level + 1 : 0;
		break;
	case TARGET_RUNG_LEVELS:
		t->info.want_timeslice = saved ? t->info.orig_timeslice : 0;
		t->info.want_interleave = c->interleave;
		break;
	default:
		t->info.want_timeslice = c->timeslice;
		t->info.want_interleave = c->interleave;
	}
}

/*
 * A derived LC timeslice is the floor's one divided among the GPU's LC
 * processes; a BE TSG the gate may take off is put back on (or its channels
 * enabled) by whoever restores.
 */
static __u32 hook_adjust(void *self, struct tsg *t, __u32 gpu)
{
	struct lcbe *l = self;
	__u32 more;

	/* MPS orders its clients (priorities at their start): its TSGs are left to it */
	if (l->mps_started && mps_tsg_is_mps(&l->mst, t)) {
		t->info.want_class = POLICY_CLASS_NONE;
		return 0;
	}
	if (l->o.target_us && l->gate && t->info.want_class < POLICY_CLASS_NR)
		rung_values(l, t);
	if (t->info.want_class == POLICY_CLASS_LC && l->gate && l->o.lc_derived &&
	    (!l->o.target_us || l->rung == TARGET_RUNG_LCBE))
		t->info.want_timeslice = gate_lc_ts(&l->o, gate_lc_procs(l->gate, gpu, t->info.pid));
	/* lc-p99 may move the values later: the originals are kept whichever are set first */
	more = l->o.target_us ? ORIG_TIMESLICE | ORIG_INTERLEAVE : 0;
	if (!gate_engaged(l->gate) || t->info.want_class != POLICY_CLASS_BE)
		return more;
	return more | (l->o.be_off == GATE_OFF_CHANNELS ? ORIG_CHANNELS : ORIG_SCHEDULE);
}

/* The ledger's (and the gate's); a new LC process: the GPU's LC timeslices shrink. */
static bool hook_applied(void *self, const struct tsg *t, __u32 gpu, bool again)
{
	struct lcbe *l = self;
	int nlc;

	if (again || !l->gate)
		return false;
	nlc = gate_lc_procs(l->gate, gpu, 0);
	gate_add(l->gate, t, gpu);
	return t->info.want_class == POLICY_CLASS_LC && l->o.lc_derived &&
	       gate_lc_procs(l->gate, gpu, 0) != nlc;
}

/* An LC process fewer: the others' timeslices grow back. */
static bool hook_gone(void *self, __u32 pid, __u32 hClient)
{
	struct lcbe *l = self;

	gate_drop_client(l->gate, pid, hClient);
	return l->gate && l->o.lc_derived;
}

/*
 * Once a second: true when lc-p99 moved the timeslices (every TSG adjusted
 * again).  A target refused (target.c: the LC alone above it) ends the run
 * as a stop signal would; the report hook then says why and fails.
 */
static bool hook_tick(void *self)
{
	struct lcbe *l = self;
	struct gate_target t;
	bool moved = false;
	int others;

	gate_prune(l->gate);
	gate_target_get(l->gate, &t);
	if (l->o.target_us && l->gate && t.rung != l->rung) {
		l->rung = t.rung;
		moved = true;
	}
	if (t.refused_us > 0 && !(l->refused.refused_us > 0)) {
		l->refused = t;
		stop_request();
	}
	if (!l->mps_started || !l->mst.file_ours)
		return moved;
	if (l->o.mps_threads && t.be_threads &&
	    (t.be_threads != l->mst.be_threads || t.be_priority != l->mst.be_priority)) {
		l->mst.be_threads = t.be_threads;	/* BE clients started from now */
		l->mst.be_priority = t.be_priority;
		mps_state_write(&l->mst);
	}
	others = mps_snap_write(&l->mst);	/* what the exporter shows */
	target_be_others(l->gate, others);	/* its BE clients: not alone */
	return moved;
}

static void hook_stop(void *self)
{
	struct lcbe *l = self;

	gate_stop(l->gate, &l->st);
	l->gate = NULL;
	if (l->mps_started)
		mps_session_stop(&l->mst);
	l->mps_started = false;
}

static void hook_forget(void *self)
{
	struct lcbe *l = self;

	gate_forget(l->gate);
	l->mps_started = false;	/* the child serves (and ends) the mechanism */
}

static void hook_status(pid_t runner)
{
	share_print(runner);
	mps_show_status(runner);
}

/* A killed run's MPS daemon: quit once its clients are gone (gpuctl's only). */
static void hook_sweep(void)
{
	mps_session_sweep(false);
}

static void report_text(const struct lcbe *l)
{
	const struct gate_opts *o = &l->o;
	const struct gate_stats *gs = &l->st;

	if (o->rotate_ms)
		printf("be-rotate: %llu turns passed on\n", (unsigned long long)gs->rotations);
	if (o->be_ts)
		printf("BE floor: longest any BE process was held off: %llu ms (be-stall %u)\n",
		       (unsigned long long)gs->longest_off_ms, o->stall_ms);
	if (gs->hint_repairs || gs->hint_garbage)
		printf("hint file: cut short %llu times (made whole), garbage read %llu times "
		       "(ignored)\n", (unsigned long long)gs->hint_repairs,
		       (unsigned long long)gs->hint_garbage);
	if (o->hint)
		printf("hint gate: BE off %llu times, %llu switches (%llu calls, "
		       "%llu refused), %llu saved by hint-min-off %u ms; taking BE off: "
		       "p50 %.0f us, p99 %.0f us, max %.0f us; %llu requests over hint-hold; "
		       "the LC turned busy %llu times as the gate saw it (the hint file's "
		       "writers report %llu requests: not checked)\n",
		       (unsigned long long)gs->offs, (unsigned long long)gs->switches,
		       (unsigned long long)gs->calls, (unsigned long long)gs->errors,
		       (unsigned long long)gs->suppressed, o->min_off_ms,
		       gs->off_p50_us, gs->off_p99_us, gs->off_max_us,
		       (unsigned long long)gs->forced, (unsigned long long)gs->busy_turns,
		       (unsigned long long)gs->reported);
}

/* The run's end, all put back: its lines (text), and a refused target's error (exit 1). */
static int hook_report(const void *self)
{
	const struct lcbe *l = self;
	char buf[512];

	if (!json_output)
		report_text(l);
	if (!(l->refused.refused_us > 0))
		return EXIT_OK;
	p_err("%s", target_refusal(&l->o, &l->refused, buf, sizeof(buf)));
	return EXIT_FAIL;
}

static const struct sched_hooks lcbe_hooks = {
	.make = lcbe_make,
	.word = hook_word,
	.parsed = hook_parsed,
	.start = hook_start,
	.mech = hook_mech,
	.engaged = hook_engaged,
	.serve = hook_serve,
	.describe = hook_describe,
	.warning = hook_warning,
	.adjust = hook_adjust,
	.applied = hook_applied,
	.gone = hook_gone,
	.tick = hook_tick,
	.stop = hook_stop,
	.forget = hook_forget,
	.report = hook_report,
	.status = hook_status,
	.sweep = hook_sweep,
};

const struct sched_policy sched_policy_lcbe = {
	.name = "lc-be",
	.words = lcbe_words,
	.classes = { POLICY_CLASS_LC, POLICY_CLASS_BE },
	.defaults = {
		/* LC timeslice 0 here: derived from be-floor (lcbe_parsed) */
		[POLICY_CLASS_LC] = { 0, LEVEL(HIGH) },
		[POLICY_CLASS_BE] = { 200, LEVEL(LOW) },
	},
	.catch_all = POLICY_CLASS_BE,
	.max_matches = POLICY_RULES - 1,
	.need_match = POLICY_CLASS_LC,
	.need_msg = "lc-be needs at least one 'lc MATCH' (the latency-critical processes)",
	.hooks = &lcbe_hooks,
};
