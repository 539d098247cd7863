/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_rm.h - the rm trace backend: TSG events decoded from the RM escapes
 * processes issue on NVIDIA's device.  It runs its own, unpinned instance of
 * gpuctl sched's TSG watcher (bpf/tsg_watch.bpf.c): no bpffs needed, and a
 * pinned sched watcher is left alone.
 */
#ifndef GPUCTL_TRACE_RM_H
#define GPUCTL_TRACE_RM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_uvm.h"

struct rm_trace;

/* One event (struct gt_event, TSG types); comm: the process name the watcher saw. */
typedef void (*rm_event_fn)(const struct gt_event *e, const char *comm, void *arg);

/*
 * Checks the device and the capabilities, loads and attaches the watcher.
 * tgid: only that process's events (0: every process).  NULL after p_err.
 */
struct rm_trace *rm_trace_start(const char *dev, uint32_t tgid, rm_event_fn fn, void *arg);
/* Delivers events for up to timeout_ms. */
void rm_trace_poll(struct rm_trace *r, int timeout_ms);
/* Reads what is left; TSGs of processes gone since are reported freed at exit. */
void rm_trace_drain(struct rm_trace *r);
/* Events the watcher dropped (ring buffer or TSG table full) since the last call. */
uint64_t rm_trace_new_drops(struct rm_trace *r);
void rm_trace_free(struct rm_trace *r);
/* CLOCK_BOOTTIME: the clock of the watcher's timestamps. */
uint64_t rm_trace_now_ns(void);
/* For gpuctl probe: the watcher loads and attaches here; reason says why not. */
bool rm_trace_usable(char *reason, size_t len);

#endif
