/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lcbe.h - lc-be, the latency-critical / best-effort policy of gpuctl sched
 * run, in its own room (a row with hooks, cmd/sched/policy.h):
 *
 *   row.c        its row: words, classes, defaults, and the hooks run calls.
 *   words.c      its own words (hint, be-floor, ...) and the floor's timeslices.
 *   gate.c       the hint gate: BE TSGs off the runlist while an LC process
 *                says (hint/gpuctl_hint.h) it has work in flight; be-rotate.
 *   hint_file.c  the hint page and its safety.
 *   latency.c    the LC's request latencies the hint library reports.
 *   target.c     lc-p99: the latency target's loop (the hint's duty, MPS BE threads).
 *   ledger.c     each BE process's share and stall, from the gate's ledger.
 *   share.c      the ledger file (tsgw.h's struct gate_share): written here,
 *                read by sched status and the exporter.
 *
 * Nothing outside this room calls a gate_* function: run.c reaches lc-be
 * through its hooks only.
 */
#ifndef GPUCTL_SCHED_LCBE_H
#define GPUCTL_SCHED_LCBE_H

#include "gpuctl_hint.h"
#include "sched/sched.h"
#include "sched/mps/mpss.h"	/* mechanism mps|tsg|auto and its words */

/* ------------------------------------------------- options (words.c) */

/* What lc-be's hint and be-rotate words set (gate.c); neither: no gate. */
struct gate_opts {
	const char *hint;	/* the hint file gpuctl creates */
	__u32 hold_ms;		/* longest one LC request keeps BE off (0: no limit) */
	__u32 mode;		/* the hint file's permissions */
	__u32 rotate_ms;	/* be-rotate: one BE process on the runlist at a time */
	__u32 be_off;		/* GATE_OFF_*: how a BE TSG is taken off */
	__u32 floor_pct;	/* be-floor: the share of a GPU its BE processes keep together */
	__u32 stall_ms;		/* be-stall: the longest a BE process is held off */
	__u32 min_off_ms;	/* hint-min-off: BE back on no sooner than this after it went off */
	__u64 lc_ts, be_ts;	/* the timeslices the floor is reckoned with (us) */
	bool lc_derived;	/* lc_ts from be-floor (for one LC process): divided per GPU */
	__u32 target_us;	/* lc-p99: the LC's P99 to keep (0: none) */
	/*
	 * Under mechanism mps with a target (0: neither), the thread % BE
	 * clients start with and the most the target gives back (be-threads or
	 * TARGET_MPS_THREADS): the target then moves their priority and threads.
	 */
	__u32 mps_threads;
	const struct sched_mech *mech;	/* the run's mechanism: the gate takes BE off through it */
};
enum {
	GATE_OFF_SCHEDULE = 0,	/* GPFIFO_SCHEDULE bEnable 0 on the TSG (no effect on 580 GSP) */
	GATE_OFF_CHANNELS = 1,	/* FIFO_DISABLE_CHANNELS on its channels (preempts) */
	GATE_OFF_NR,
};
extern const char *const gate_off_names[GATE_OFF_NR];
#define GATE_HOLD_MS_DEFAULT	100
/*
 * lc-p99 under mechanism mps, no be-threads: BE clients start with half the
 * SMs, at the LC's priority.  H100, 3 CNN trainers beside BERT
 * (bench/results/static-2026-11-26-h100*, static-2026-11-27-h100*): at 50 %
 * BE made 2-5 % more steps than at 100 % in 4 of 4 pairs, at the same LC P99
 * or lower; at 25 % 25 % fewer; priority 0 at 50 % gave BE 0.6-2.3 % more
 * than priority 1 (2 calls of 5 rounds), the LC's pooled P99 no worse.
 * A miss lowers the priority first, then the threads.
 */
#define TARGET_MPS_THREADS	50
#define TARGET_MPS_PRIORITY	0
/*
 * hint-min-off: once the hint took BE off, it stays off this long at least,
 * so a writer flipping the hint cannot switch BE more than 1000 / MS times
 * a second (each switch is an RM call per BE TSG, ~0.15-0.2 ms of RM/GSP
 * time); the LC is never delayed: BE goes off at once when it turns busy.
 */
#define GATE_MIN_OFF_MS_DEFAULT	5
#define GATE_MIN_OFF_MS_MAX	1000
/* Only the policy's user writes the hint unless hint-mode says more. */
#define GATE_MODE_DEFAULT	0600
#define GATE_FLOOR_DEFAULT	10	/* % of a GPU for its BE processes together */
#define GATE_FLOOR_MAX		90
#define GATE_STALL_MS_DEFAULT	100
#define GATE_STALL_MIN_MS	10
#define GATE_HINT_DUTY		0.5	/* the hint keeps BE off at most this share of the time */
#define GATE_LC_TS_NOFLOOR_US	1000000	/* be-floor 0: the LC keeps the GPU (no guarantee) */
#define GATE_RM_TS_DEFAULT_US	1024
/*
 * Under this timeslice a TSG spends it being switched out: 4 CNN trainers
 * (BE) at 50 us made no progress on an H100 (bench/results/coloc-2026-11-24-h100.md;
 * one at a time, be-rotate, did), and an LC at 116 us answered no request in
 * 40 s (bench/results/static-2026-11-27-h100-session15/C).  A derived LC
 * timeslice never goes under it.
 */
#define GATE_TS_PROGRESS_US	200	/* RM's default TSG timeslice (H100/H200, 580.x) */
/*
 * The LC timeslice be-floor allows (when *lc_ts is 0; GATE_TS_PROGRESS_US
 * at least), the figures kept in g.
 */
void gate_floor_timeslices(struct gate_opts *g, __u64 *lc_ts, __u64 be_ts);
/*
 * The LC timeslice on a GPU with nlc LC processes: derived, the floor's
 * one divided among them (each busy LC takes its timeslice between two BE
 * ones), GATE_TS_PROGRESS_US at least; given by the user, as given.
 */
__u64 gate_lc_ts(const struct gate_opts *g, int nlc);
/* ------------------------------------------------------------- target.c */

struct gate;

/* lc-p99's state (target.c), read by the ledger and the run's tick. */
struct gate_target {
	__u64 windows, kept_windows, moves;
	__u64 count;		/* requests timed in the last window */
	double p99_us;		/* their P99 */
	bool kept;
	__u32 duty_pm;		/* the knob: the most of the time the hint may hold BE off, per mille */
	__u32 be_threads;	/* under mps: the thread % BE clients started from now get */
	__u32 be_priority;	/* ... and their client priority (0, or 1: below the LC) */
	/*
	 * The first knob, the TSGs' rung (TARGET_RUNG_*): RM's own values
	 * until the target is missed (BE first, as with no policy), then the
	 * classes' interleave levels, then lc-be's timeslices too; one rung
	 * down after relax_wait calm windows at duty 0 (doubled each time the
	 * lower rung missed soon after).
	 */
	__u32 rung;
	__u32 relax_wait;
	__u64 up_at, down_at;	/* the windows of the last move up, of the last rung down */
	/*
	 * A miss on RM's values waiting for its confirmation (target.c): the
	 * window of the first miss there (0: none).  The rung leaves RM's
	 * values only if the span still misses once it holds no window up to
	 * this one.
	 */
	__u64 miss_at;
	__u32 calm, at_max;
	double unreachable_us;	/* at the largest duty and still above the target: the P99 then */
	/*
	 * The LC alone (target.c's refusal): seconds in a row with no BE
	 * process on its GPU, spans judged in a row all alone and above the
	 * target, and once refused the last such span's P99 and requests.
	 */
	__u32 alone, alone_over;
	double refused_us;
	__u64 refused_count;
};
enum {
	TARGET_RUNG_RM,		/* timeslices and interleave as RM has them */
	TARGET_RUNG_LEVELS,	/* the classes' interleave levels, RM's timeslices */
	TARGET_RUNG_LCBE,	/* lc-be's timeslices and levels */
};
#define GATE_LAT_SPAN		3	/* seconds (windows) the target's P99 is taken over */
/*
 * BE processes the run knows outside the gate's ledger, once a second
 * (row.c's tick: under mechanism mps, its daemon's clients not started in
 * class lc; -1: not known, which counts as some): with none there and none
 * in the ledger on the LC's GPU, the LC runs alone.
 */
void target_be_others(struct gate *g, int n);
/*
 * A refused target (t->refused_us set: the LC alone above it before it was
 * ever met): the line that says so and what to ask for, in buf.
 */
const char *target_refusal(const struct gate_opts *o, const struct gate_target *t, char *buf,
			   size_t len);
#define TARGET_MIN_US		100	/* lc-p99's bounds */
#define TARGET_MAX_US		10000000

/* --------------------------------------------------------------- gate.c */

struct gate_stats {
	/*
	 * LC requests begun as the hint file's writers report them (the page's
	 * begins counter): whoever may write the file may write any number
	 * there; it is not a measurement.
	 */
	__u64 reported;
	__u64 busy_turns;	/* the hint turned busy, as the gate saw it (at most once a look) */
	__u64 offs;		/* times BE went off */
	__u64 switches;		/* times the hint switched BE off or back on (per GPU) */
	__u64 suppressed;	/* the hint turned idle while hint-min-off kept BE off */
	__u64 calls;		/* GPFIFO_SCHEDULE calls */
	__u64 forced;		/* requests longer than hold_ms: BE put back on */
	__u64 errors;		/* calls RM refused */
	__u64 rotations;	/* be-rotate: turns passed on */
	__u64 hint_repairs;	/* hint file found cut short (or its page lost) and made whole */
	__u64 hint_garbage;	/* hint page read with a bad header or an impossible count */
	__u64 longest_off_ms;	/* the longest any BE process was held off */
	double off_p50_us, off_p99_us, off_max_us;	/* taking all BE off */
};
/* Creates and maps the hint file: 0, or -1 after p_err. */
int gate_start(struct gate **g, const struct gate_opts *o);
/* Starts the gate's thread in the process that serves: 0, or -1 after p_err. */
int gate_run(struct gate *g);
/*
 * An LC or BE TSG joins (a BE's owner's file borrowed when the gate may
 * take it off); gpu: the GPU it runs on, the one field every decision
 * groups by; g may be NULL.
 */
void gate_add(struct gate *g, const struct tsg *t, __u32 gpu);
/* LC processes on gpu, pid counted as one more when it has no TSG there yet (pid 0: none). */
int gate_lc_procs(struct gate *g, __u32 gpu, __u32 pid);
/* hint or be-rotate: the gate may take BE TSGs off (else it only keeps the ledger). */
bool gate_engaged(const struct gate *g);
/* Drops the TSGs of processes gone and of a freed client. */
void gate_prune(struct gate *g);
void gate_drop_client(struct gate *g, __u32 pid, __u32 hClient);
/* Every BE TSG back on, the thread stopped, the hint file removed. */
void gate_stop(struct gate *g, struct gate_stats *st);
/* lc-p99: what the target loop did so far (a copy, under the gate's lock); zeros without g. */
void gate_target_get(struct gate *g, struct gate_target *t);
/* The parent of run --detach lets go of what the child serves. */
void gate_forget(struct gate *g);

/* -------------------------------------------------------------- share.c */

/* The ledger file (struct gate_share, RUN_SHARE): tsgw.h, where the exporter reads it too. */
void share_write(const struct gate_opts *o, const struct gate_stats *st,
		 const struct gate_lat *lat, const struct gate_target *tgt,
		 const struct gate_share_row *rows, int n);
/* The running policy's ledger: 0, or -ENOENT when none is written. */
int share_read(struct gate_share *s);
void share_remove(void);
/* sched status's part: the ledger of the policy process runner, if it wrote one. */
void share_print(pid_t runner);
/* What keeps a floor from being kept by the timeslices alone (static), or NULL. */
const char *share_floor_problem(const struct gate_opts *o, char *buf, size_t len);

/* --------------------------------------------------------------- words.c */

/* One lc-be policy: its options, then its gate (the hooks' self, row.c). */
struct lcbe {
	struct gate_opts o;
	bool hint_word, off_word;	/* parsing: words that need hint FILE (or be-rotate) */
	bool p99_word;			/* lc-p99, which needs hint FILE */
	struct gate *gate;		/* the ledger, and the gate when engaged */
	struct gate_stats st;		/* what the gate counted, once stopped */
	struct mps_opts mps;		/* the mechanism's words */
	struct mps_state mst;		/* the mechanism the run uses (mps: its daemon) */
	bool mps_started;		/* mst is the run's (written at start) */
	__u32 rung;			/* lc-p99: the TSGs' rung applied (TARGET_RUNG_*) */
	struct gate_target refused;	/* lc-p99 refused (refused_us set): the run ends failed */
	struct class_values cls[POLICY_CLASS_NR];	/* the classes' values, once parsed */
};

/* The options at their defaults. */
void lcbe_defaults(struct gate_opts *g);
/* lc-be's own words (SW_OWN) into l: 0, or EXIT_USAGE after usage_err. */
int lcbe_word(struct lcbe *l, const char *word, const char *arg);
/* After every word: the checks across them, the floor's timeslices (val: LC, BE). */
int lcbe_parsed(struct lcbe *l, struct class_values *val);

#endif
