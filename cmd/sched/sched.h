/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - the sched engine, under gpuctl sched (cmd/sched.c) and trace tsg
 * (cmd/trace_rm.c), in rooms over the TSG watcher (cmd/tsgw/):
 *
 *   tsg.c       RM controls on a TSG through its process's borrowed RM file.
 *   policies.c  the table of scheduling policies (rows, policy.h): the
 *               generic words, the rules, the decision for a TSG; `fixed`.
 *   match.c     the MATCH words, one row each (match.h); the subtree ones
 *               in match_tree.c and match_pod.c.
 *   run.c       the run daemon: applies decisions, calls the policy's
 *               hooks, re-applies, restores the originals, also those a
 *               killed run left changed.  It knows no class.
 *   rules_pid.c a rule for one process added to the running policy (sched exec).
 *   mech.c      the scheduling mechanisms (mech.h), one row each: how a
 *               policy's wish reaches the GPU; mech_rm.c: RM's TSG controls.
 *   lcbe/       lc-be: its row, words and defaults, the hint gate, the
 *               hint file, the ledger and its file (lcbe/lcbe.h).
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

#include "rm.h"
#include "tsg_watch.h"
#include "tsgw/tsgw.h"	/* the watcher and its TSG table */
#include "policy.h"	/* a scheduling policy: a row with hooks */
#include "mech.h"	/* how a wish reaches the GPU: a row of ops */
#include "match.h"	/* the MATCH words: a row each */

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
int sched_open_how(struct sched *s, bool absent_ok);
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
/* Its channels enabled (on: FIFO_DISABLE_CHANNELS bDisable 0) or disabled: 0 or -1 with err. */
int tsg_channels(struct sched *s, const struct tsg *t, bool on, char *err, size_t len);
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

/* The policy named name, or NULL. */
const struct sched_policy *sched_policy_find(const char *name);
/* The table's i-th row, NULL past its end (completion walks it). */
const struct sched_policy *sched_policy_at(int i);
const char *sched_policy_name(const struct sched_policy *p);
/* "lc-be or fixed": for messages. */
const char *sched_policy_list(void);
/* "lc-be | fixed": help's POLICY line (the completion reads it there). */
const char *sched_policy_alts(void);
/*
 * The policy's ARGS into pol's rules and, for a row with hooks, its options
 * (*self, from its make hook): 0, or EXIT_USAGE after usage_err (EXIT_FAIL
 * out of memory).
 */
int sched_policy_parse(const struct sched_policy *p, int argc, char **argv, struct policy *pol,
		       void **self);
/* The decision the watcher takes for a new TSG, for TSGs that existed before run. */
void policy_decide(const struct policy *pol, struct tsg_info *i);
/*
 * The decision for i again, under rules that changed (a pod's cgroup came):
 * true, with i's wanted values the new ones, when it gives another class.
 */
bool policy_redecide(const struct policy *pol, struct tsg_info *i);
/* sched status: each policy's part about the running policy process runner. */
void sched_policy_status(pid_t runner);
/* sched stop/unload: each policy's sweep of what a killed run left (its sweep hook). */
void sched_policy_sweep(void);

/* --------------------------------------------------------- rules_pid.c */

/*
 * A rule "pid:PID gets class cls" first in the active policy's rules (the
 * class's values from its first rule): 0, or -1 after p_err (no active
 * policy, no such class, the rules full of live processes).  The sched
 * lock is held by the caller.
 */
int policy_rule_pid_add(struct watcher *w, pid_t pid, __u32 cls);
/* That rule out again (nothing when it is not there). */
void policy_rule_pid_del(struct watcher *w, pid_t pid);

/* --------------------------------------------------------------- run.c */

struct run_opts {
	const struct sched_policy *policy;
	struct policy rules;
	void *self;		/* the policy's options and state (its hooks' self) */
	bool detach;
	const char *device;	/* RM device for a watcher run starts; NULL: default */
	const struct gpu_info *gpu;	/* --gpu: the TSGs of this GPU only; NULL: all */
};
/* gpuctl sched run: EXIT_OK, or EXIT_FAIL after p_err. */
int run_main(const struct run_opts *o);

#define RUN_DIR		"/run/gpuctl"
#define RUN_PIDFILE	RUN_DIR "/sched-run.pid"
#define RUN_LOG		RUN_DIR "/sched-run.log"	/* run_log.c */

/* The running policy process (its pid file; a zombie is gone), or 0. */
pid_t run_pid(void);
/* run --detach, in the parent: reports the child ready (EXIT_OK), or EXIT_FAIL. */
int run_detach_report(const struct run_opts *o, pid_t child, int ready_fd);
/*
 * run_log.c: run --detach's fork (daemon_fork) with the child's stderr in
 * RUN_LOG, made anew; sched status: with no policy process (runner 0), the
 * last detached run's last Error line (text), "last_run_error" (-j: null
 * when none; inside status's object).
 */
pid_t run_detach_fork(void);
void run_log_status(pid_t runner);

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
