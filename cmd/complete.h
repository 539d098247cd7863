/* SPDX-License-Identifier: GPL-2.0 */
/*
 * complete.h - what complete.c (gpuctl __complete) shares with
 * complete_words.c (the words of commands whose words are not option rows:
 * policy names and their parameters, sched run's words, hints), both
 * offering through complete_offer.c.
 *
 * Markers stand for what the shell completes itself (bash-completion/gpuctl):
 *   __files__        a file name
 *   __files__ EXT    a file name ending in .EXT, or a directory
 *   __command__      a command (after --)
 *   __cgroups__      a cgroup directory under /sys/fs/cgroup
 */
#ifndef GPUCTL_COMPLETE_H
#define GPUCTL_COMPLETE_H

#include "gpuctl.h"

#define COMPLETE_NOT_MINE 1

/* complete_offer.c: the word being completed and where candidates go (each run of __complete). */
void complete_begin(const char *word, void (*fn)(const char *word, void *ctx), void *ctx);
/* word, when it starts with the word being completed. */
void complete_offer(const char *word);
/* A marker (above), as it is. */
void complete_mark(const char *marker);
/* The word being completed. */
const char *complete_cur(void);
/* The processes with /dev/nvidia-uvm open; the GPUs (index and UUID). */
void complete_uvm_pids(void);
void complete_gpus(void);

/* The TSG ids the pinned watcher holds (nothing, and nothing said, when it cannot be read). */
void complete_tsg_ids(void);

/*
 * The plain words of obj's command cmd (NULL: the object's own) before the
 * one being completed, options and their values left out: what may come
 * next.  0, or COMPLETE_NOT_MINE.
 */
int complete_positional(const struct object *obj, const char *cmd, char **words, int n);

#endif
