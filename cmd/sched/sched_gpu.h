/* SPDX-License-Identifier: GPL-2.0 */
/* sched_gpu.h - a TSG's GPU and --gpu for the sched commands (cmd/sched/gpu.c). */
#ifndef GPUCTL_SCHED_GPU_H
#define GPUCTL_SCHED_GPU_H

#include "gpus.h"
#include "sched.h"

/* The GPU TSG t runs on (asked through its process's RM file), NULL: unknown. */
const struct gpu_info *tsg_gpu(struct sched *s, const struct tsg *t);
/* Keeps the TSGs of v that run on g (in order): the new *n. */
int tsg_keep_gpu(struct sched *s, struct tsg *v, int *n, const struct gpu_info *g);
/*
 * tsg_select (tg) or every TSG (tg NULL), then only those on g (when g):
 * at least one, or -1 after p_err.
 */
int tsg_select_gpu(struct sched *s, const struct tsg_target *tg, const struct gpu_info *g,
		   struct tsg **out, int *n);
#endif
