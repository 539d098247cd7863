/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpss.h - NVIDIA MPS as a scheduling mechanism (mech.h), in its own room:
 *
 *   words.c     the words that choose and tune it (mechanism, mps-dir, ...).
 *   mech_mps.c  the mechanism's row: a client's environment at its start
 *               (the pipe directory, client priority, active thread
 *               percentage, pinned memory limit), the daemon's default
 *               thread percentage, the servers' TSGs told apart.
 *   session.c   a run's daemon: started on a private pipe directory or
 *               adopted (never the default one, never another user's),
 *               the choice of mechanism (mps, tsg, auto: which and why),
 *               and the end: quit only a daemon gpuctl started, once its
 *               clients are gone.
 *   auto.c      auto's look at the policy's rules: a rule naming another
 *               user, a pid or a process already running means TSG.
 *   (the run's MPS state and snapshot files, which exporter and probe read
 *   too, are a lower room's: cmd/tsgw/mpsfile.c)
 *   client.c    a client as its process says (name, environment's MPS words).
 *   snap.c      the run's snapshot of servers and clients, taken for the exporter.
 *   show.c      MPS in `sched status` and `sched list`: daemon, servers
 *               with user and pid, clients with their class and priority.
 *
 * The talk to the daemon itself is cmd/drv/mps.c's.
 */
#ifndef GPUCTL_SCHED_MPSS_H
#define GPUCTL_SCHED_MPSS_H

#include <stdbool.h>
#include <sys/types.h>

#include "mps.h"
#include "sched/sched.h"
#include "tsgw/mpsfile.h"	/* the state and snapshot files (read by exporter and probe too) */

/* What a client started by sched exec carries (its class, for status). */
#define MPS_CLASS_ENV	"GPUCTL_SCHED_CLASS"

enum mps_choice {
	MPS_CHOICE_TSG = 0,	/* TSG controls only (the default) */
	MPS_CHOICE_MPS,		/* clients started by sched exec join an MPS server */
	MPS_CHOICE_AUTO,	/* MPS where its program and a daemon of ours can serve, else TSG, said why */
	MPS_CHOICE_NR,
};
extern const char *const mps_choice_names[MPS_CHOICE_NR];

/* lc-be's words for the mechanism (words.c parses them into this). */
struct mps_opts {
	enum mps_choice choice;
	const char *dir;	/* mps-dir DIR: adopt the daemon there; NULL: gpuctl's own */
	__u32 be_threads;	/* be-threads PCT: BE clients' active thread %, 0: as is */
	__u32 lc_threads;	/* lc-threads PCT */
	__u64 be_mem;		/* be-mem BYTES: BE clients' pinned device memory, 0: as is */
};

/* ------------------------------------------------------------ words.c */

/* The words below, NULL-terminated: the policy's row lists the same. */
extern const char *const mps_words[];
/* One of mps_words and its value into o: 0, EXIT_USAGE after usage_err, -1 not such a word. */
int mps_opts_word(struct mps_opts *o, const char *word, const char *arg);
/* After every word: 0, or EXIT_USAGE (tuning words without mechanism mps|auto). */
int mps_opts_check(const struct mps_opts *o);


/* ---------------------------------------------------------- session.c */

/*
 * At run start (under the sched lock): the mechanism chosen (auto looks at
 * rules and the TSGs s knows), the daemon started or adopted, the state
 * written with run = getpid().  0, or -1 after p_err (nothing started).
 * Prints the choice with p_info.
 */
int mps_session_start(const struct mps_opts *o, struct mps_state *st, struct sched *s,
		      const struct policy *rules);
/* The row (mech.h) a run with st goes through: MPS's under mechanism mps, else RM's. */
const struct sched_mech *mps_session_mech(const struct mps_state *st);
/* The run's pid (after --detach) into the state file. */
void mps_session_served(struct mps_state *st, pid_t run);
/*
 * At run end: a daemon gpuctl started is quit once no server has a
 * client (else left, said so, and the state kept for the next command);
 * the state file removed.
 */
void mps_session_stop(struct mps_state *st);
/*
 * A state a killed run left (its run gone): quit its daemon if gpuctl
 * started it and no client remains; 1 done, 0 nothing left, -1 left running (said why).
 */
int mps_session_sweep(bool quiet);


/* ------------------------------------------------------------- auto.c */

/*
 * Whether rules name a process MPS cannot serve: another user's (uid:),
 * one by its pid, or one that runs already (a TSG s knows that a rule
 * other than the catch-all matches).  1 with why (the rule, the process,
 * the reason), else 0.
 */
int mps_auto_rules(struct sched *s, const struct policy *rules, char *why, size_t len);

/* --------------------------------------------------------- mech_mps.c */

extern const struct sched_mech sched_mech_mps;
/* The environment of a client of class cls under st: "NAME=VALUE" strings in env. */
int mps_client_env(const struct mps_state *st, __u32 cls, char env[][PATH_MAX + 40], int max);
/* t is a TSG MPS runs its clients' work on: a server's. */
bool mps_tsg_is_server(const struct tsg *t);
/*
 * t is left to MPS: one of a client of a live MPS daemon, whoever's (idle:
 * the server runs its work), or, under mechanism mps, a server's.
 */
bool mps_tsg_is_mps(const struct mps_state *st, const struct tsg *t);

/* ----------------------------------------------------------- client.c */

/* A client as its process says: its name, and its environment's MPS words. */
struct mps_client {
	char comm[64];
	char cls[16];		/* GPUCTL_SCHED_CLASS: "" when sched exec did not start it */
	char dir[PATH_MAX];	/* CUDA_MPS_PIPE_DIRECTORY, "" when none */
	int priority;		/* CUDA_MPS_CLIENT_PRIORITY, 0 when unset */
	int threads;		/* CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, -1 when unset */
};
/* 0, or -1 when its environment cannot be read (c->comm may still be set). */
int mps_client_read(pid_t pid, struct mps_client *c);

/* ------------------------------------------------------------- snap.c */

/*
 * The run, once a second: its daemon's servers and clients into
 * RUN_MPS_SNAP (tsgw/mpsfile.h).  Returns how many of the clients were not
 * started in class lc (BE, or a class not known; 0 under tsg), -1 when the
 * daemon could not say.
 */
int mps_snap_write(const struct mps_state *st);

/* ------------------------------------------------------------- show.c */

/* sched status's MPS part for the run runner (text or JSON, whichever is on). */
void mps_show_status(pid_t runner);

#endif
