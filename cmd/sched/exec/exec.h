/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exec.h - gpuctl sched exec (exec.c): a program started in a class of the
 * running policy, through the run's mechanism (MPS client or TSG rule).
 * gpuctl run --sched CLASS starts its CMD through the same steps:
 *
 *   sched_join_begin()  a policy runs (else one Error line); CMD's environment
 *   workload_spawn_env(..., j.ptrs, ...)   CMD forked, held
 *   sched_join_pid()    tsg: the rule "pid:CMD's pid gets CLASS" in
 *   workload_release()  CMD runs ... and ends
 *   sched_join_end()    the rule out again
 */
#ifndef GPUCTL_SCHED_EXEC_H
#define GPUCTL_SCHED_EXEC_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sched/sched.h"

#define SCHED_JOIN_ENV_LEN (PATH_MAX + 40)

/* The class words, as --class and run --sched take them: "lc", "be". */
extern const char *const sched_join_classes[];

struct sched_join {
	__u32 cls;
	bool tsg;		/* the TSG rule's way (else an MPS client's environment) */
	bool opened;
	struct sched s;
	pid_t pid;		/* the rule's process, 0: none */
	char env[10][SCHED_JOIN_ENV_LEN];
	char *ptrs[11];		/* CMD's added environment, NULL-terminated */
};

/*
 * cls_word (an index in sched_join_classes), gpu (--gpu, or NULL): EXIT_OK
 * with j->ptrs CMD's environment, or an exit code after one Error line (no
 * policy runs, the run's MPS daemon gone or another user's, a bad GPU).
 */
int sched_join_begin(struct sched_join *j, int cls_word, const char *gpu);
/* CMD, forked and held as pid, into its class before it runs: 0, or -1 after p_err. */
int sched_join_pid(struct sched_join *j, pid_t pid);
/* CMD ended: what sched_join_pid set is taken out. */
void sched_join_end(struct sched_join *j);

/* argv after "exec": CMD's exit status, 126/127 when it cannot run, or EXIT_*. */
int sched_exec_main(int argc, char **argv);

#endif
