/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - the sched engine, under gpuctl sched (cmd/sched.c) and trace tsg
 * (cmd/trace_rm.c), in four rooms over the TSG watcher (cmd/tsgw/):
 *
 *   tsg.c       RM controls on a TSG through its process's borrowed RM file.
 *   policies.c  the scheduling policies (lc-be, fixed): their words, their
 *               rules, the decision for a TSG.
 *   run.c       the run daemon: applies decisions, re-applies them, restores
 *               the originals, also those a killed run left changed.
 *   gate.c      lc-be's hint gate: BE TSGs off the runlist while an LC
 *               process says (hint/gpuctl_hint.h) it has work in flight.
 *
 * Nothing here prints except through p_err/p_info and run's events; the
 * command file prints the results.
 */
#ifndef GPUCTL_SCHED_H
#define GPUCTL_SCHED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gpuctl_hint.h"
#include "rm.h"
#include "tsg_watch.h"
#include "tsgw/tsgw.h"	/* the watcher and its TSG table */

/* What gpuctl accepts as a timeslice; RM may refuse more (its status is shown). */
#define SCHED_TS_MIN_US	1ULL
#define SCHED_TS_MAX_US	1000000000000ULL

/* --------------------------------------------------------------- tsg.c */

/* RM files borrowed from the processes, one per (pid, fd). */
struct borrowed {
	__u32 pid;
	int fd;
	int dup;
};

/* A command's hold on the pinned watcher and the RM files it borrowed. */
struct sched {
	struct watcher w;
	char dir[PATH_MAX];	/* the pin directory */
	__u64 rdev;		/* what the watcher filters on (META_RDEV) */
	bool any_minor;
	struct borrowed *files;
	int nfiles, files_cap;
};
#define SCHED_INIT { .w = WATCHER_INIT }

/*
 * Opens the pinned watcher: 0, or -1 after p_err (bpffs missing, no watcher:
 * how to start one, an untrusted pin directory).  Creates nothing.
 */
int sched_open(struct sched *s);
void sched_close(struct sched *s);
/* Closes the files borrowed from pid (0: all). */
void sched_files_close(struct sched *s, __u32 pid);

/* The live TSGs of the table, by ID (entries of processes gone are dropped). */
int tsg_read(struct sched *s, struct tsg **out, int *n);

/* TARGET := --tsg ID | --pid PID */
struct tsg_target {
	bool by_pid;
	unsigned long long id;
};
/* The TSGs target names, at least one: 0, or -1 after p_err. */
int tsg_select(struct sched *s, const struct tsg_target *tg, struct tsg **out, int *n);
void tsg_label(const struct tsg *t, char *buf, size_t len);

/*
 * RM of some drivers (580.x on the H200) has no GET_INTERLEAVE_LEVEL for
 * TSGs (NV_ERR_NOT_SUPPORTED): a level read is then LEVEL_UNKNOWN.
 */
#define LEVEL_UNKNOWN 0xff

/* The process's RM file for t (borrowed once), or -1 with the reason in err. */
int tsg_file(struct sched *s, const struct tsg *t, char *err, size_t len);
/* Controls on t: 0, or -1 with the reason (RM status decoded) in err. */
int tsg_get(struct sched *s, const struct tsg *t, __u64 *ts, __u32 *level, char *err,
	    size_t len);
int tsg_set_ts(struct sched *s, const struct tsg *t, __u64 us, char *err, size_t len);
int tsg_set_level(struct sched *s, const struct tsg *t, __u32 level, char *err, size_t len);
int tsg_preempt(struct sched *s, const struct tsg *t, bool wait, __u32 timeout_us, char *err,
		size_t len);
/* Its channels enabled again (FIFO_DISABLE_CHANNELS bDisable 0): 0 or -1 with err. */
int tsg_channels_on(struct sched *s, const struct tsg *t, char *err, size_t len);
/* GPFIFO_SCHEDULE: t on its runlist (enable) or off it. */
int tsg_schedule(struct sched *s, const struct tsg *t, bool enable, char *err, size_t len);
/*
 * The level to put back when RM cannot say what it was: the last one set
 * through gpuctl or by the process, else RM's default for a new TSG (medium).
 */
__u32 level_fallback(__u32 level, const struct tsg_info *i);
/* Remembers in the table the level gpuctl set on t. */
void tsg_note_level(struct sched *s, const struct tsg *t, __u32 level);

/* ---------------------------------------------------------- policies.c */


struct sched_policy;	/* one of lc-be, fixed */
/* The policy named name, or NULL. */
const struct sched_policy *sched_policy_find(const char *name);
const char *sched_policy_name(const struct sched_policy *p);
/* "lc-be or fixed": for messages. */
const char *sched_policy_list(void);
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
};
enum {
	GATE_OFF_SCHEDULE = 0,	/* GPFIFO_SCHEDULE bEnable 0 on the TSG (no effect on 580 GSP) */
	GATE_OFF_CHANNELS = 1,	/* FIFO_DISABLE_CHANNELS on its channels (preempts) */
	GATE_OFF_NR,
};
extern const char *const gate_off_names[GATE_OFF_NR];
#define GATE_HOLD_MS_DEFAULT	100
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
 * Under this BE timeslice, several BE TSGs on the runlist together spend it
 * switching: 4 CNN trainers at 50 us made no progress on an H100
 * (bench/results/coloc-2026-11-24-h100.md); one at a time (be-rotate) did.
 */
#define GATE_BE_TS_PROGRESS_US	200	/* RM's default TSG timeslice (H100/H200, 580.x) */
/* The LC timeslice be-floor allows (when *lc_ts is 0), the figures kept in g. */
void gate_floor_timeslices(struct gate_opts *g, __u64 *lc_ts, __u64 be_ts);
/*
 * The LC timeslice on a GPU with nlc LC processes: derived, the floor's
 * one divided among them (each busy LC takes its timeslice between two BE
 * ones); given by the user, as given.
 */
__u64 gate_lc_ts(const struct gate_opts *g, int nlc);
/*
 * The policy's ARGS into pol's rules and gate's options: 0, or EXIT_USAGE
 * after usage_err.
 */
int sched_policy_parse(const struct sched_policy *p, int argc, char **argv, struct policy *pol,
		       struct gate_opts *gate);
/* The decision the watcher takes for a new TSG, for TSGs that existed before run. */
void policy_decide(const struct policy *pol, struct tsg_info *i);

/* --------------------------------------------------------------- gate.c */

struct gate;
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
/* The parent of run --detach lets go of what the child serves. */
void gate_forget(struct gate *g);

/* -------------------------------------------------------------- share.c */

/* The ledger file (struct gate_share, RUN_SHARE): tsgw.h, where the exporter reads it too. */
void share_write(const struct gate_opts *o, const struct gate_stats *st,
		 const struct gate_share_row *rows, int n);
/* The running policy's ledger: 0, or -ENOENT when none is written. */
int share_read(struct gate_share *s);
void share_remove(void);
/* sched status's part: the ledger of the policy process runner, if it wrote one. */
void share_print(pid_t runner);
/* What keeps a floor from being kept by the timeslices alone (static), or NULL. */
const char *share_floor_problem(const struct gate_opts *o, char *buf, size_t len);

/* --------------------------------------------------------------- run.c */

struct run_opts {
	const struct sched_policy *policy;
	struct policy rules;
	struct gate_opts gate;
	bool detach;
	const char *device;	/* RM device for a watcher run starts; NULL: default */
	const struct gpu_info *gpu;	/* --gpu: the TSGs of this GPU only; NULL: all */
};
/* gpuctl sched run: EXIT_OK, or EXIT_FAIL after p_err. */
int run_main(const struct run_opts *o);

#define RUN_DIR		"/run/gpuctl"
#define RUN_PIDFILE	RUN_DIR "/sched-run.pid"

/* The running policy process (its pid file; a zombie is gone), or 0. */
pid_t run_pid(void);
/* run --detach, in the parent: reports the child ready (EXIT_OK), or EXIT_FAIL. */
int run_detach_report(const struct run_opts *o, pid_t child, int ready_fd);

struct run_stopped {
	pid_t pid;		/* the policy process stopped (0: none ran) */
	int restored;		/* TSGs a killed run left changed, now restored */
	int failed;		/* of those, how many RM refused */
};
/*
 * Stops the policy process (SIGTERM; it restores its TSGs), then restores
 * what a killed one left changed and deactivates the policy.  dir: the
 * sched pin directory, locked by the caller, or NULL when there is none.
 * unloading: a watcher of another gpuctl version is no error (its table
 * cannot be read, and is about to go).  0, or -1 after p_err.
 */
int run_stop(const char *dir, bool unloading, struct run_stopped *st);
/* run.c, for run_stop.c: the policy's active flag in the watcher (pol NULL: none). */
void run_set_active(struct watcher *w, const struct policy *pol, bool on);
/* run.c: puts back what a killed run left changed (counted); 0 or -ENOMEM. */
int run_restore_left(struct sched *s, int *restored, int *failed);

#endif
