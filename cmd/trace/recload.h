/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recload.h - one or more records read into memory for the pictures and
 * the open formats (svg.c, export.c): the events (56 bytes each), their
 * times made relative to the earliest record's real-time start (records
 * are merged on their real-time starts: `trace report -i A -i B`), the
 * process names, the GPUs' names and UUIDs, the allocations (version 2,
 * or inferred from the addresses for version 1), lost events counted.
 */
#ifndef GPUCTL_TRACE_RECLOAD_H
#define GPUCTL_TRACE_RECLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuctl.h"
#include "record.h"

#define RL_MAX_INPUTS 4

struct recl_proc {
	uint32_t pid;
	char comm[17];		/* "" unknown; raw bytes: escape before output */
	uint64_t events;
};

struct rl_gpu {
	bool seen, named;
	char uuid[48];		/* raw: escape before output */
	char name[GT_META_MAX];
	uint64_t events;
};

struct rl_alloc {
	uint32_t pid;
	uint64_t s, e;		/* [s, e) */
};

struct rl {
	struct gt_event *ev;	/* ts_ns: ns after t0 (below); no META events */
	size_t n, cap;
	struct gt_file_header hdr[RL_MAX_INPUTS];
	int nin;
	uint64_t t0_realtime;	/* the earliest record's start, wall clock ns */
	uint64_t rec_off[RL_MAX_INPUTS];	/* each record's start after t0 */
	struct recl_proc *procs;	/* sorted by pid after recl_finish */
	size_t nprocs, procs_cap;
	struct rl_gpu gpus[GPUCTL_MAX_GPUS];
	uint32_t gpus_beyond;	/* events on GPUs past the table */
	struct rl_alloc *allocs;
	size_t nallocs, allocs_cap;
	uint64_t lost;		/* events the back-ends dropped */
};

void recl_init(struct rl *l);
void recl_free(struct rl *l);
/*
 * A record into l, one event at a time as the caller reads it: recl_begin
 * once a record (0, or -1 after p_err "NAME: at most 4 records"), recl_add
 * each event the reader gave (a META's payload still in r): 0, or -ENOMEM.
 */
int recl_begin(struct rl *l, const struct gt_reader *r, const char *name);
int recl_add(struct rl *l, const struct gt_event *e, const struct gt_reader *r);
/* After the last record: events in time order (stable), processes sorted. */
void recl_finish(struct rl *l);
/* The process pid, or NULL. */
const struct recl_proc *recl_proc(const struct rl *l, uint32_t pid);

#endif
