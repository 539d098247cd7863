/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - the versioned binary file `gpuctl trace record` writes and
 * `report` reads, and the names of the event fields for output.  The
 * events themselves are the trace object's ABI (bpf/trace_uvm.h).
 *
 * File layout (all integers little-endian):
 *   struct gt_file_header (header_len bytes; newer versions may append
 *   fields, a reader skips what it does not know)
 *   events, each event_size bytes (struct gt_event, bpf/trace_uvm.h; a
 *   reader takes the fields it knows and zero-fills the rest)
 * Version 2 adds three event types (trace_uvm.h): ALLOC and FREE (a
 * process's managed allocation [addr, addr + bytes) appearing and going),
 * and META, a table entry whose count bytes of payload follow the event,
 * padded with zeros to a multiple of 8 bytes:
 *   cause GT_META_COMM  pid's process name (1..16 bytes, no NUL needed)
 *   cause GT_META_GPU   GPU index gpu: "GPU-<uuid>" NUL "<name>" (either may
 *                       be empty; at most GT_META_MAX bytes)
 * A version-1 record (none of these) still reads: the report shows "GPU N"
 * and allocations inferred from the addresses.
 * A stream ends at end of file; a partial trailing event is an error.
 * Nothing needs seeking: `record -o -` and `report -i -` work on pipes.
 */
#ifndef GPUCTL_RECORD_H
#define GPUCTL_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_uvm.h"	/* struct gt_event and its enums */

#define GT_MAGIC "GPUCTLTR"
#define GT_VERSION 2

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
};

/* Version 1's header: these never move. */
_Static_assert(sizeof(struct gt_file_header) == 168, "gt_file_header is part of the record format");
_Static_assert(__builtin_offsetof(struct gt_file_header, version) == 8, "header layout");
_Static_assert(__builtin_offsetof(struct gt_file_header, event_size) == 12, "header layout");
_Static_assert(__builtin_offsetof(struct gt_file_header, start_ts_ns) == 24, "header layout");
_Static_assert(__builtin_offsetof(struct gt_file_header, host) == 32, "header layout");
_Static_assert(__builtin_offsetof(struct gt_file_header, backend) == 128, "header layout");
_Static_assert(__builtin_offsetof(struct gt_file_header, target_pid) == 160, "header layout");

/*
 * Values no backend produces: the reader refuses an event that has them
 * (a corrupt or crafted record), so that nothing downstream computes with
 * them.  TSG events are exempt from the bytes limit (their value field is
 * a control's value).
 */
#define GT_MAX_EVENT_BYTES (1ull << 48)	/* 256 TiB moved by one event */
#define GT_MAX_LATENCY_NS (86400ull * 1000000000ull)	/* a day */
#define GT_MAX_TS_SKEW_NS (1ull << 57)	/* 4.5 years away from the start */

/* META kinds (the event's cause) and the largest payload. */
enum gt_meta { GT_META_COMM = 1, GT_META_GPU = 2, GT_META_KINDS };
#define GT_META_MAX 256

/* Fills a header: host from uname, driver from /proc/driver/nvidia. */
void gt_header_init(struct gt_file_header *h, const char *backend,
		    const char *what, uint32_t pid, uint64_t start_ts_ns);
/* Writes the header / one event; 0 or -errno. */
int gt_write_header(FILE *f, const struct gt_file_header *h);
int gt_write_event(FILE *f, const struct gt_event *e);
/* A META event (kind, about pid or GPU gpu) and its payload; 0 or -errno. */
int gt_write_meta(FILE *f, uint64_t ts, unsigned int kind, uint32_t pid, uint16_t gpu,
		  const void *payload, size_t len);

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
	char meta[GT_META_MAX + 1];	/* the last META's payload, NUL after it */
	uint32_t meta_len;
	char err[160];
};

/* 0, or -1 with r->err set (not a gpuctl record, bad version, ...). */
int gt_reader_open(struct gt_reader *r, FILE *f, const void *buf, size_t len);
/* 1 an event (a META's payload in r->meta), 0 end of stream, -1 error (r->err). */
int gt_reader_next(struct gt_reader *r, struct gt_event *e);

/* TSG events (rm backend) rather than UVM ones. */
static inline bool gt_is_tsg(unsigned int type)
{
	return type < 32 && ((1u << type) & GT_TSG_TYPES);
}

/* Names for output. */
const char *gt_type_name(unsigned int type);
const char *gt_cause_name(unsigned int cause);
const char *gt_access_name(unsigned int access);
const char *gt_tsg_ctl_name(unsigned int ctl);	/* "timeslice", ... */

#endif
