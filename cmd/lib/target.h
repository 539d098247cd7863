/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - what a command acts on: a running process (-p PID) or a
 * command it starts (-- CMD ...); a GPU (--gpu).  The option rows (opts.h)
 * read them; the PID through target_parse_pid, the one PID parser, and the
 * pair checked here (target.c), as perf's util/target.c does.
 */
#ifndef GPUCTL_LIB_TARGET_H
#define GPUCTL_LIB_TARGET_H

#include <sys/types.h>

/*
 * The largest PID: the kernel's PID_MAX_LIMIT on 64-bit (4 * 1024 * 1024),
 * the ceiling of /proc/sys/kernel/pid_max.  Every PID gpuctl parses is
 * 1..TARGET_PID_MAX.
 */
#define TARGET_PID_MAX 4194304

struct target {
	pid_t pid;		/* -p PID; 0: none */
	char **cmd;		/* -- CMD ...: NULL-terminated; NULL: none */
	const char *gpu;	/* --gpu GPU as given (gpus.h's gpu_option() names it); NULL: none */
};

enum target_err {
	TARGET_OK = 0,
	TARGET_ERR_PID_MISSING,	/* -p without a value */
	TARGET_ERR_PID,		/* a value that is not a PID (1..TARGET_PID_MAX) */
	TARGET_ERR_NO_CMD,	/* "--" with nothing after it */
	TARGET_ERR_BOTH,	/* -p PID and -- CMD */
	TARGET_ERR_NONE,	/* neither, where the command needs one */
	TARGET_ERR_GPU_MISSING,	/* --gpu without a value */
	TARGET_ERR_GPU_TWICE,	/* --gpu given twice */
};

/* The error line for err (what usage_err prints). */
const char *target_strerror(enum target_err err);

/* A PID argument: 0, or EXIT_USAGE after p_err ("invalid pid ..."). */
int target_parse_pid(const char *arg, pid_t *pid);

/* Both given is an error; need: neither is one too.  0, or EXIT_USAGE after p_err. */
int target_check(const struct target *t, int need);

#endif
