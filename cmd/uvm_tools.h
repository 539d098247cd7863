/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uvm_tools.h - the uvm-tools trace backend: NVIDIA's UVM tools API
 * (/dev/nvidia-uvm-tools) on a target process's /dev/nvidia-uvm file,
 * borrowed with pidfd_getfd().  Per process, stock driver, root (or
 * CAP_SYS_PTRACE over the target).
 *
 * The ABI below is the driver's (uvm_ioctl.h, uvm_types.h), written out for
 * the few fields gpuctl reads; the sizes are checked at compile time.
 */
#ifndef GPUCTL_UVM_TOOLS_H
#define GPUCTL_UVM_TOOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"

/*
 * ioctl request numbers on Linux are the bare UVM_IOCTL_BASE(i) values.
 * Two generations of the event-queue interface exist:
 *   550..555: INIT_EVENT_TRACKER (56) takes requestedVersion and answers
 *             grantedVersion; the V2 control page has a version word.
 *   565 and later: INIT_EVENT_TRACKER makes a V1 queue (64-byte entries);
 *             INIT_EVENT_TRACKER_V2 (76) makes a V2 queue.  No version words.
 * The V2 entry is 72 bytes in both; the GPU fault entry moved its gpuIndex
 * and accessType fields in 555.  (560 changed the 56 parameters once more
 * and is not supported.)
 */
#define UT_IOC_INIT_EVENT_TRACKER	56
#define UT_IOC_SET_NOTIFICATION_THRESHOLD 57
#define UT_IOC_ENABLE_EVENTS		58
#define UT_IOC_DISABLE_EVENTS		59
#define UT_IOC_ENABLE_COUNTERS		60
#define UT_IOC_FLUSH_EVENTS		67
#define UT_IOC_INIT_EVENT_TRACKER_V2	76

/* UvmEventType */
enum {
	UT_EV_CPU_FAULT = 1,
	UT_EV_MIGRATION = 2,
	UT_EV_GPU_FAULT = 3,
	UT_EV_GPU_FAULT_REPLAY = 4,
	UT_EV_FAULT_BUFFER_OVERFLOW = 5,
	UT_EV_FATAL_FAULT = 6,
	UT_EV_THRASHING = 10,
	UT_EV_THROTTLING_START = 11,
	UT_EV_EVICTION = 14,
	UT_EV_NUM_ALL = 64,
};

/* UvmCounterName: indexes into the counter array. */
enum {
	UT_CTR_BYTES_HTOD = 0,
	UT_CTR_BYTES_DTOH = 1,
	UT_CTR_CPU_FAULTS = 2,
	UT_CTR_PREFETCH_HTOD = 7,
	UT_CTR_PREFETCH_DTOH = 8,
	UT_CTR_GPU_FAULTS = 9,
	UT_CTR_TOTAL = 10,
};

/* Which V2 layout a queue carries. */
enum ut_abi {
	UT_ABI_550 = 1,		/* ioctl 56 + requestedVersion 2 */
	UT_ABI_565 = 2,		/* ioctl 76 */
};

#define UT_ENTRY_SIZE 72	/* sizeof(UvmEventEntry_V2), 550 through 595 */
#define UT_QUEUE_VERSION 2

struct ut_init_params {		/* UVM_TOOLS_INIT_EVENT_TRACKER(_V2)_PARAMS */
	uint64_t queue_buffer;
	uint64_t queue_buffer_size;	/* entries, a power of 2; 0: counters */
	uint64_t control_buffer;
	uint8_t processor[16];
	uint32_t all_processors;
	uint32_t uvm_fd;
	uint32_t rm_status;
	uint32_t requested_version;	/* 550..555 only; later drivers ignore both */
	uint32_t granted_version;
	uint32_t pad;
};

struct ut_ctrl {		/* UvmToolsEventControlData: the indexes */
	volatile uint32_t get_ahead;
	volatile uint32_t get_behind;
	volatile uint32_t put_ahead;
	volatile uint32_t put_behind;
	/* 550: uint32_t version, pad; then (both) uint64_t dropped[UT_EV_NUM_ALL] */
};

/* Where dropped[] starts in the control page. */
#define UT_CTRL_DROPPED_550 24
#define UT_CTRL_DROPPED_565 16
#define UT_CTRL_BYTES (UT_CTRL_DROPPED_550 + 8 * UT_EV_NUM_ALL)

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

/* --- the backend ------------------------------------------------------ */

struct ut_session {
	pid_t pid;
	int uvm_fd;		/* borrowed */
	int queue_fd, counter_fd;	/* /dev/nvidia-uvm-tools */
	void *queue_mem, *ctrl_mem, *counter_mem;
	size_t queue_bytes;
	struct ut_queue q;
	volatile uint64_t *counters;	/* UT_CTR_TOTAL */
};

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
#define UT_CTR_STAT_MASK ((1u << UT_CTR_BYTES_HTOD) | (1u << UT_CTR_BYTES_DTOH) | \
			  (1u << UT_CTR_CPU_FAULTS) | (1u << UT_CTR_GPU_FAULTS))
/* Waits up to timeout_ms for the notification threshold; 1 ready, 0 timeout. */
int ut_wait(struct ut_session *s, int timeout_ms);
/* Asks the driver to push the events it buffers per CPU (FLUSH_EVENTS). */
void ut_flush(struct ut_session *s);
void ut_close(struct ut_session *s);

/* Whether /dev/nvidia-uvm-tools exists (probe). */
bool ut_available(void);

#endif
