/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - the events gpuctl trace sees, whatever the backend, and the
 * versioned binary file `gpuctl trace record` writes and `report` reads.
 *
 * File layout (all integers little-endian):
 *   struct gt_file_header (header_len bytes; newer versions may append
 *   fields, a reader skips what it does not know)
 *   events, each event_size bytes (struct gt_event; a reader takes the
 *   fields it knows and zero-fills the rest)
 * A stream ends at end of file; a partial trailing event is an error.
 * Nothing needs seeking: `record -o -` and `report -i -` work on pipes.
 */
#ifndef GPUCTL_RECORD_H
#define GPUCTL_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define GT_MAGIC "GPUCTLTR"
#define GT_VERSION 1

enum gt_type {
	GT_EV_NONE = 0,
	GT_EV_GPU_FAULT = 1,	/* one replayable GPU fault (duplicates flagged) */
	GT_EV_CPU_FAULT = 2,
	GT_EV_MIGRATION = 3,	/* bytes moved; cause says why */
	GT_EV_EVICTION = 4,	/* GPU memory taken back (bytes) */
	GT_EV_REPLAY = 5,	/* fault replay issued */
	GT_EV_BATCH = 6,	/* a fault batch serviced: count, latency */
	GT_EV_THRASHING = 7,
	GT_EV_TSG = 8,		/* TSG created (rm backend; fields below) */
	GT_EV_LOST = 9,		/* count events dropped by the backend */
	/* Added after version 1's first release: a reader without them refuses
	 * a record that has them (as a corrupt event type), nothing else. */
	GT_EV_TSG_FREE = 10,	/* TSG freed, itself or with its client */
	GT_EV_TSG_SET = 11,	/* its process set a scheduling control itself */
	GT_EV_MAX
};

/*
 * TSG events (rm backend: the RM escapes a process issues on NVIDIA's device):
 *   pid     the process (tgid) that allocated the TSG
 *   ts_ns   CLOCK_BOOTTIME: TSG: when RM allocated it; TSG_FREE, TSG_SET:
 *           when gpuctl read the event (microseconds after the ioctl)
 *   addr    hTsg, the TSG's RM handle
 *   batch   hClient, the RM client it belongs to
 *   count   the TSG's number in this trace (1, 2, ...; not sched's ID)
 *   cause   TSG_SET: the control (enum gt_tsg_ctl)
 *   bytes   TSG_SET: the value (timeslice in us, interleave level 0..2)
 *   flags   TSG_FREE: GT_F_WITH_CLIENT when its whole client was freed,
 *           GT_F_AT_EXIT when its process exited holding it
 *   gpu     GT_GPU_NONE
 */
enum gt_tsg_ctl {
	GT_TSG_CTL_NONE = 0,
	GT_TSG_CTL_TIMESLICE = 1,	/* NVA06C_CTRL_CMD_SET_TIMESLICE */
	GT_TSG_CTL_INTERLEAVE = 2,	/* NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL */
	GT_TSG_CTL_PREEMPT = 3,		/* NVA06C_CTRL_CMD_PREEMPT (value 0) */
	GT_TSG_CTL_MAX
};

#define GT_TSG_TYPES ((1u << GT_EV_TSG) | (1u << GT_EV_TSG_FREE) | (1u << GT_EV_TSG_SET))

/* Migration causes: the tools API's UvmEventMigrationCause values. */
enum gt_cause {
	GT_CAUSE_NONE = 0,
	GT_CAUSE_USER = 1,
	GT_CAUSE_FAULT = 2,	/* "coherence": demand paging */
	GT_CAUSE_PREFETCH = 3,
	GT_CAUSE_EVICTION = 4,
	GT_CAUSE_ACCESS_COUNTER = 5,
	GT_CAUSE_MAX
};

enum gt_access {
	GT_ACC_NONE = 0,
	GT_ACC_READ = 1,
	GT_ACC_WRITE = 2,
	GT_ACC_ATOMIC = 3,
	GT_ACC_PREFETCH = 4,
	GT_ACC_MAX
};

#define GT_F_DUPLICATE 0x01	/* fault already in the batch */
#define GT_F_TO_GPU 0x02	/* migration host -> device */
#define GT_F_TO_CPU 0x04	/* migration device -> host */
#define GT_F_WITH_CLIENT 0x08	/* TSG_FREE: freed with its whole client */
#define GT_F_AT_EXIT 0x10	/* TSG_FREE: its process exited without freeing it */

#define GT_GPU_NONE 0xffff
#define GT_PROC_CPU 0xffff

struct gt_event {
	uint64_t ts_ns;		/* backend clock; report shows it relative */
	uint64_t addr;
	uint64_t bytes;
	uint64_t latency_ns;	/* 0: unknown */
	uint32_t pid;		/* 0: unknown */
	uint32_t batch;		/* batch id */
	uint32_t count;		/* BATCH: faults; LOST: events dropped; TSG: number */
	uint16_t gpu;		/* GPU index; GT_GPU_NONE */
	uint8_t type;		/* enum gt_type */
	uint8_t access;		/* enum gt_access */
	uint8_t cause;		/* enum gt_cause */
	uint8_t flags;		/* GT_F_* */
	uint16_t src;		/* processor index (GT_PROC_CPU) */
	uint16_t dst;
	uint8_t pad[2];
};				/* 56 bytes */

#define GT_HOST_LEN 64
#define GT_DRIVER_LEN 32
#define GT_NAME_LEN 16

struct gt_file_header {
	char magic[8];		/* GT_MAGIC, no NUL */
	uint16_t version;	/* GT_VERSION */
	uint16_t header_len;	/* sizeof this struct when written */
	uint16_t event_size;	/* sizeof(struct gt_event) when written */
	uint16_t flags;		/* 0 */
	uint64_t start_realtime_ns;	/* wall clock at the start */
	uint64_t start_ts_ns;	/* backend clock at the start */
	char host[GT_HOST_LEN];	/* NUL-terminated */
	char driver[GT_DRIVER_LEN];	/* NVIDIA driver version, or "" */
	char backend[GT_NAME_LEN];	/* "bpf", "uvm-tools", "rm" */
	char what[GT_NAME_LEN];	/* "faults", "migrations", ..., "all" */
	uint32_t target_pid;	/* 0: system-wide */
	uint32_t reserved;
};				/* 168 bytes */

/* Fills a header: host from uname, driver from /proc/driver/nvidia. */
void gt_header_init(struct gt_file_header *h, const char *backend,
		    const char *what, uint32_t pid, uint64_t start_ts_ns);
/* Writes the header / one event; 0 or -errno. */
int gt_write_header(FILE *f, const struct gt_file_header *h);
int gt_write_event(FILE *f, const struct gt_event *e);

/*
 * Reading, from a FILE or a memory buffer (the fuzzer).  Errors are
 * described in err (one line, no "Error:").
 */
struct gt_reader {
	FILE *f;		/* or NULL: read from buf */
	const uint8_t *buf;
	size_t len, pos;
	struct gt_file_header hdr;
	uint16_t event_size;
	uint64_t offset;	/* bytes consumed so far */
	char err[160];
};

/* 0, or -1 with r->err set (not a gpuctl record, bad version, ...). */
int gt_reader_open(struct gt_reader *r, FILE *f, const void *buf, size_t len);
/* 1 an event, 0 end of stream, -1 error (r->err). */
int gt_reader_next(struct gt_reader *r, struct gt_event *e);

/* Names for output. */
const char *gt_type_name(unsigned int type);
const char *gt_cause_name(unsigned int cause);
const char *gt_access_name(unsigned int access);
const char *gt_tsg_ctl_name(unsigned int ctl);	/* "timeslice", ... */

#endif
