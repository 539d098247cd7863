/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ut.h - gpuctl's side of NVIDIA's UVM tools API (the ABI: cmd/drv/uvm_tools.h):
 * the event queue consumer and entry decoder (ut_queue.c), and a session
 * on one process's /dev/nvidia-uvm file, borrowed with pidfd_getfd()
 * (ut_session.c).  Per process, stock driver, root (or CAP_SYS_PTRACE over
 * the target).  The uvm-tools trace back-end (cmd/trace/uvmtools.c) is built on it,
 * and so are the per-process prefetch engine (cmd/pfengine/loop.c), the
 * queue unit test and bench/uvm_tools_cost.
 */
#ifndef GPUCTL_DRV_UT_H
#define GPUCTL_DRV_UT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace_uvm.h"	/* struct gt_event */
#include "uvm_tools.h"

/* --- the queue (ut_queue.c) ------------------------------------------- */

/*
 * The consumer side of one event queue.  The producer (the driver, or a
 * test) writes entries at put_behind and advances put_ahead/put_behind;
 * the queue is full when one free slot is left, then it counts a drop in
 * dropped[type].  The consumer reads [get, put) and then publishes the new
 * get in get_ahead and get_behind.
 */
struct ut_queue {
	struct ut_ctrl *ctrl;
	const uint8_t *entries;
	const volatile uint64_t *dropped;	/* [UT_EV_NUM_ALL] in the control page */
	uint32_t count;		/* power of 2 */
	enum ut_abi abi;
	uint64_t dropped_seen[UT_EV_NUM_ALL];
};

/* Points q at a control page and entries laid out as abi says. */
void ut_queue_init(struct ut_queue *q, void *ctrl, const void *entries,
		   uint32_t count, enum ut_abi abi);

/* Called per entry (UT_ENTRY_SIZE bytes, already copied out). */
typedef void (*ut_entry_fn)(const uint8_t *entry, void *arg);

/* How many entries wait; never more than count - 1. */
uint32_t ut_queue_pending(const struct ut_queue *q);
/* Consumes up to max entries (0: all waiting).  Returns how many. */
uint32_t ut_queue_consume(struct ut_queue *q, uint32_t max, ut_entry_fn fn, void *arg);
/* Drops since the last call, summed over types. */
uint64_t ut_queue_new_drops(struct ut_queue *q);

/* Decodes one entry of the abi's layout.  False for types gpuctl ignores. */
bool ut_decode(const uint8_t *entry, enum ut_abi abi, struct gt_event *e);

/* --- the session (ut_session.c) --------------------------------------- */

struct ut_session {
	pid_t pid;
	int uvm_fd;		/* borrowed */
	int queue_fd, counter_fd;	/* /dev/nvidia-uvm-tools */
	void *queue_mem, *ctrl_mem, *counter_mem;
	size_t queue_bytes;
	struct ut_queue q;
	volatile uint64_t *counters;	/* UT_CTR_TOTAL */
};

/* /dev/nvidia-uvm's device number as the kernel holds it (major << 20 | minor): 0 or -errno. */
int ut_uvm_rdev(uint32_t *rdev);
/* An empty session (no fds): what ut_close leaves, safe to close again. */
void ut_session_init(struct ut_session *s);
/*
 * Finds pid's /dev/nvidia-uvm file and borrows it.  -ESRCH no such process,
 * -ENOENT no /dev/nvidia-uvm open (no GPU context), -EPERM not allowed
 * (CAP_SYS_PTRACE), -EAGAIN the file is there but not initialized yet.
 * err gets a one-line explanation.
 */
int ut_attach(struct ut_session *s, pid_t pid, char *err, size_t len);
/*
 * Event queue: entries (power of 2), events = mask of 1 << UT_EV_*.  Tries
 * the 565+ V2 tracker, then the 550 versioned one; s->q.abi says which.
 */
int ut_open_queue(struct ut_session *s, uint32_t entries, uint64_t events,
		  uint32_t threshold, char *err, size_t len);
/*
 * The process counter tracker (all GPUs), opened by ut_attach as its probe;
 * counters count once enabled (mask of 1 << UT_CTR_*), read s->counters.
 * Each enabled counter hooks the driver's fault or migration path.
 */
int ut_open_counters(struct ut_session *s, char *err, size_t len);
int ut_enable_counters(struct ut_session *s, uint64_t mask, char *err, size_t len);
/*
 * A counter tracker for one processor (GPU uuid) of the session's process,
 * its counters (mask) enabled: 0 with *fd and *mem (a page of UT_CTR_TOTAL
 * counters: munmap 4096 and close to free), or -errno with err.
 */
int ut_open_gpu_counters(struct ut_session *s, const uint8_t uuid[16], uint64_t mask,
			 int *fd, void **mem, char *err, size_t len);
#define UT_CTR_STAT_MASK ((1u << UT_CTR_BYTES_HTOD) | (1u << UT_CTR_BYTES_DTOH) | \
			  (1u << UT_CTR_CPU_FAULTS) | (1u << UT_CTR_GPU_FAULTS))
/* Turns the queue's events (mask of 1 << UT_EV_*) on or off: 0 or -errno. */
int ut_set_events(struct ut_session *s, uint64_t events, bool on);
/* Waits up to timeout_ms for the notification threshold; 1 ready, 0 timeout. */
int ut_wait(struct ut_session *s, int timeout_ms);
/* Asks the driver to push the events it buffers per CPU (FLUSH_EVENTS). */
void ut_flush(struct ut_session *s);
void ut_close(struct ut_session *s);

/* Whether /dev/nvidia-uvm-tools exists. */
bool ut_available(void);

#endif
