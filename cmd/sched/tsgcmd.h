/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsgcmd.h - sched's TSG commands behind their rows (cmd/sched/tsgcmd.c):
 * each checks its capabilities, acts, prints, and returns the exit code.
 */
#ifndef GPUCTL_SCHED_TSGCMD_H
#define GPUCTL_SCHED_TSGCMD_H

#include <stdbool.h>
#include <linux/types.h>

#include "sched.h"
#include "gpus.h"

enum set_kind { SET_TS, SET_LEVEL };

/* sched list [--pid PID] [--gpu GPU]: only_pid 0, only_gpu NULL: all. */
int sched_list(const struct gpu_info *only_gpu, __u32 only_pid);
/* set-timeslice (val in us) or set-interleave (val a level) on tg's TSGs (NULL: all) on gpu. */
int sched_set(enum set_kind kind, const struct tsg_target *tg, const struct gpu_info *gpu,
	      __u64 val);
/* preempt tg's TSGs (NULL: all) on gpu; wait: until done, at most timeout us (0: RM's). */
int sched_preempt(const struct tsg_target *tg, const struct gpu_info *gpu, bool wait,
		  __u64 timeout);

/* sched status: the watcher, its counters, the running policy's own report. */
int sched_status(void);

#endif
