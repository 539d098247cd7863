/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - what a scheduling policy is: one const row (struct
 * sched_policy) of the table in policies.c, as the struct_ops families are
 * rows of cmd/policy/kinds.c.  A row gives its words, its classes and their
 * defaults, which the generic parser turns into the watcher's rules
 * (struct policy, tsg_watch.h); a policy with run-time behaviour also gives
 * hooks (struct sched_hooks), which the run daemon (run.c) calls and
 * otherwise knows nothing of.
 *
 * Adding a policy: a directory cmd/sched/NAME/ with its row and hooks, the
 * row named in policies.c's table, its words in man/gpuctl-sched.8.rst, a
 * test.  `fixed` is a row without hooks; lc-be's is cmd/sched/lcbe/.
 */
#ifndef GPUCTL_SCHED_POLICY_H
#define GPUCTL_SCHED_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tsg_watch.h"
#include "tsgw/tsgw.h"	/* struct tsg */

struct sched_mech;	/* mech.h */
struct sched;		/* sched.h */

/* What a word of a policy's ARGS sets: generic ones, or the policy's own. */
enum sched_word_kind {
	SW_MATCH,	/* MATCH: a rule giving cls */
	SW_TIMESLICE,	/* cls's timeslice (us) */
	SW_INTERLEAVE,	/* cls's interleave level */
	SW_OWN,		/* the policy's own: hooks->word parses it */
};

/* One word of a policy's ARGS, with its value. */
struct sched_word {
	const char *word;
	enum sched_word_kind kind;
	__u32 cls;
	/* an SW_OWN word's values for completion: "a b c", "__files__" (a path), NULL: a number */
	const char *values;
};

/* What a class's TSGs are given (struct policy_rule's values). */
struct class_values {
	__u64 timeslice;	/* 0: leave as is */
	__u32 interleave;	/* level + 1, 0: leave as is */
};

/*
 * A policy's run-time behaviour.  self: what make() returned (its options,
 * then its state).  Every hook may be NULL; a row whose hooks is NULL is
 * rules alone (the watcher decides, run applies and restores).  Hooks
 * print only through p_err/p_info, except report (run's end, text).
 */
struct sched_hooks {
	/* parsing (sched run's ARGS): the options at their defaults, or NULL (out of memory) */
	void *(*make)(void);
	/* an SW_OWN word and its value: 0, or EXIT_USAGE after usage_err */
	int (*word)(void *self, const char *word, const char *arg);
	/* after every word: checks across words; may derive class values: 0 or EXIT_USAGE */
	int (*parsed)(void *self, struct class_values *val);
	/*
	 * run, under the sched lock, before --detach, with the TSG table s
	 * and the rules the run decides by: 0, or -1 after p_err
	 */
	int (*start)(void *self, struct sched *s, const struct policy *rules);
	/* after start: the mechanism its wishes go through (mech.h), chosen at start */
	const struct sched_mech *(*mech)(const void *self);
	/* it takes TSGs off between decisions: run starts a watchdog that restores them */
	bool (*engaged)(const void *self);
	/* in the process that serves (after --detach): 0, or -1 after p_err */
	int (*serve)(void *self);
	/* the "policy NAME active (...)" line's part, and a warning to give, or NULL */
	const char *(*describe)(const void *self, char *buf, size_t len);
	const char *(*warning)(const void *self, char *buf, size_t len);
	/*
	 * A TSG of GPU gpu is about to be applied: its wanted values adjusted
	 * in t (want_class POLICY_CLASS_NONE: left alone, nothing applied);
	 * returns the ORIG_* flags of what else the policy may change on it
	 * (put back by whoever restores).
	 */
	__u32 (*adjust)(void *self, struct tsg *t, __u32 gpu);
	/* applied (again: re-applied): true when the GPU's other TSGs are to be adjusted again */
	bool (*applied)(void *self, const struct tsg *t, __u32 gpu, bool again);
	/* a client was freed: true when every TSG is to be adjusted again */
	bool (*gone)(void *self, __u32 pid, __u32 hClient);
	/* once a second: processes gone dropped; true when every TSG is to be adjusted again */
	bool (*tick)(void *self);
	/* everything it changed between decisions put back; its threads stopped */
	void (*stop)(void *self);
	/* the parent of run --detach lets go of what the child serves */
	void (*forget)(void *self);
	/*
	 * run's end, all put back, after "policy NAME stopped: ...": its own
	 * lines (text only), and whether the run failed after all: EXIT_OK, or
	 * EXIT_FAIL after p_err (under -j an element of run's array)
	 */
	int (*report)(const void *self);
	/* sched status: what the running policy process runner wrote, if it is this policy */
	void (*status)(pid_t runner);
	/* sched stop/unload: what a run killed with SIGKILL left besides its TSGs, cleaned up */
	void (*sweep)(void);
};

struct sched_policy {
	const char *name;
	const struct sched_word *words;		/* ends with a NULL word */
	__u32 classes[2];			/* its classes, in rule order */
	struct class_values defaults[POLICY_CLASS_NR];
	__u32 catch_all;	/* the class of every TSG no MATCH names */
	int max_matches;	/* MATCH rules, leaving room for the catch-all rule */
	__u32 need_match;	/* a class that needs a MATCH (need_msg says so) */
	bool need_value;	/* a timeslice or a level must be given (need_msg) */
	const char *need_msg;
	const struct sched_hooks *hooks;	/* NULL: rules alone */
	const struct sched_mech *mech;		/* how its wishes reach the GPU; NULL: RM's */
};

/* The hook h of p, when p has it. */
#define SCHED_HOOK(p, h)	((p)->hooks && (p)->hooks->h)

/* The rows (their rooms define them); policies.c's table lists them. */
extern const struct sched_policy sched_policy_lcbe;	/* cmd/sched/lcbe/row.c */

#endif
