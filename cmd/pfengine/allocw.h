/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allocw.h - a process's mappings as it makes them (allocw.c, over the one
 * host-wide program of bpf/alloc_watch.bpf.c), and the engine's table of
 * its managed allocations built from them (allocs.c).
 */
#ifndef GPUCTL_PFENGINE_ALLOCW_H
#define GPUCTL_PFENGINE_ALLOCW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "alloc_watch_abi.h"

struct ring_buffer;

struct allocw {
	pid_t tgid;
	int targets_fd, rings_fd, ring_fd;
	struct ring_buffer *rb;
	uint64_t lost_seen;
	void (*fn)(const struct aw_event *e, void *arg);
	void *arg;
};

/*
 * Starts reporting tgid's mappings to fn (from allocw_poll): the shared
 * watcher is loaded and pinned by the first engine, joined by the next.
 * rdev: the device whose mappings are flagged AW_F_UVM (major << 20 | minor).
 * 0, or -errno with a line in err (the engine then reads the maps on demand).
 */
/*
 * Whether the watcher's pin directory may be used (made now when missing):
 * 0, or -1 after one p_err line (not root's, writable by others, a link).
 */
int allocw_check(void);
int allocw_start(struct allocw *w, pid_t tgid, uint32_t rdev,
		 void (*fn)(const struct aw_event *e, void *arg), void *arg, char *err, size_t len);
/* Hands what is waiting to fn: the number of events, or -errno. */
int allocw_poll(struct allocw *w);
/* Events lost since the last call (the ring buffer was full). */
uint64_t allocw_new_lost(struct allocw *w);
/* A file descriptor that is readable when events wait (epoll), or -1. */
int allocw_fd(const struct allocw *w);
/*
 * Drops the entries of engines that are not running (kill -9) and, when
 * none is left, the watcher itself: what `prefetch` commands sweep.
 */
void allocw_sweep(void);
/* Stops; the last engine out removes the watcher from the host. */
void allocw_stop(struct allocw *w);
bool allocw_on(const struct allocw *w);

#endif
