/* SPDX-License-Identifier: GPL-2.0 */
/*
 * heat.h - what the heat map draws (heat.c builds it, svg.c draws it):
 * events counted in cells of address (rows) by time (columns), one grid per
 * GPU and kind of event.  The address axis is a list of segments: the
 * allocations the record names (version 2) or, for addresses outside them,
 * ranges inferred from the 2 MiB blocks touched (nearer than 64 MiB: one
 * range); the gaps between segments are not drawn, nor, in a GPU's group,
 * the segments none of its events fall in.  More than HM_SEGS
 * segments are merged at the smallest gaps, more than HM_GPUS GPUs are drawn
 * as one group, TSGs past HM_TSGS are counted and left out: the map says so.
 */
#ifndef GPUCTL_TRACE_HEAT_H
#define GPUCTL_TRACE_HEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "recload.h"

#define HM_COLS 200		/* time columns */
#define HM_SEGS 16		/* address segments drawn */
#define HM_ROWS 64		/* rows shared out by length ... */
#define HM_MIN_ROWS 10		/* ... at least this many a segment */
#define HM_GPUS 8		/* GPU groups drawn; the rest together */
#define HM_TSGS 32

enum hm_kind {
	HK_FAULT_R, HK_FAULT_W, HK_MIG_FAULT, HK_MIG_PREFETCH, HK_MIG_OTHER, HK_EVICT, HK_CPU_FAULT,
	HK_NR
};
enum hm_strip { HS_REPLAY, HS_THRASH, HS_EVICT, HS_NR };	/* events drawn on time alone */

struct hm_seg {
	uint64_t s, last;	/* [s, last]: the last byte, so that 2^64 - 1 fits */
	uint32_t pid;		/* its process; 0: several or unknown */
	bool inferred;		/* not an allocation the record names */
	uint32_t merged;	/* allocations / ranges in it (1: one) */
	int row0, rows;		/* its first row and how many */
};

struct hm_grid {
	uint32_t *cell;		/* [rows][HM_COLS], NULL when the kind never came */
	uint32_t peak;
	uint64_t events, dups, bytes;
};

struct hm_group {
	bool used;
	int gpu_lo, gpu_hi;	/* GPUs in it (GT_GPU_NONE: no GPU: CPU faults) */
	struct hm_grid g[HK_NR];
	bool seg_used[HM_SEGS];	/* segments with an event of this group: the ones drawn */
	uint32_t strip[HS_NR][HM_COLS];
	uint64_t strip_n[HS_NR];
};

struct hm_tsg {
	uint32_t pid, client;
	uint64_t handle, t_new, t_free;	/* t_free UINT64_MAX: not freed */
	bool seen_new;
	uint32_t sets;
	uint64_t set_t[8];	/* the first settings' times */
};

struct heat {
	uint64_t tmin, span;	/* time axis: [tmin, tmin + span], span >= 1 */
	bool have_time;
	struct hm_seg seg[HM_SEGS];
	int nseg, rows;
	uint32_t allocs_merged;	/* segments past HM_SEGS merged in */
	struct hm_group grp[HM_GPUS + 2];	/* GPUs; the rest together; no GPU */
	uint32_t lost_strip[HM_COLS];
	struct hm_tsg tsg[HM_TSGS];
	int ntsg;
	uint64_t tsgs_left_out, batches, allocs, untouched_allocs;
};

/* Builds h from l: 0, or -ENOMEM. */
int heat_build(struct heat *h, const struct rl *l);
void heat_free(struct heat *h);
/* The column of time t (ns after l's t0). */
int heat_col(const struct heat *h, uint64_t t);
/* Names of the kinds and strips, for titles. */
extern const char *const hm_kind_name[HK_NR];
extern const char *const hm_strip_name[HS_NR];

#endif
