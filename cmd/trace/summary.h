/* SPDX-License-Identifier: GPL-2.0 */
/*
 * summary.h - what `gpuctl trace` prints at the end and `trace report`
 * reproduces from a record: counts, a log2 histogram, the hottest ranges;
 * for TSG events, what each process created, freed and set.  Events may
 * come from a file: every sum saturates instead of wrapping around.
 */
#ifndef GPUCTL_TRACE_SUMMARY_H
#define GPUCTL_TRACE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuctl.h"
#include "trace_uvm.h"

#define TS_HIST_SLOTS 64	/* log2 of any 64-bit value */
#define TS_RANGE_SHIFT 21	/* hot ranges are 2 MiB VA blocks */

struct ts_range {
	uint64_t block;		/* addr >> TS_RANGE_SHIFT, +1 (0: empty slot) */
	uint64_t faults;
	uint64_t bytes;		/* migrated into it */
};

struct ts_proc {		/* TSG events of one process */
	uint32_t pid;
	char comm[16];		/* "" when not known (a record has none) */
	uint64_t created, freed, settings;
};

struct trace_summary {
	uint64_t count[GT_EV_MAX];
	uint64_t duplicates;
	uint64_t mig_bytes[GT_CAUSE_MAX];
	uint64_t bytes_to_gpu, bytes_to_cpu;
	uint64_t evict_bytes;
	uint64_t lost;
	uint64_t batch_faults;	/* sum of BATCH counts */
	uint64_t first_ts, last_ts;
	uint64_t last_fault_ts;
	/* latency histogram of batches, and of fault gaps */
	uint64_t lat_hist[TS_HIST_SLOTS], lat_n, lat_sum, lat_max;
	uint64_t gap_hist[TS_HIST_SLOTS], gap_n, gap_sum, gap_max;
	/* hot 2 MiB ranges: open addressing */
	struct ts_range *ranges;
	size_t nranges, cap;
	/* TSG events per process, in order of appearance, and an index by pid */
	bool tsg_only;		/* a TSG trace: its summary is only that */
	struct ts_proc *procs;
	size_t nprocs, procs_cap;
	uint32_t *proc_idx;	/* open addressing: index into procs + 1, 0 empty */
	size_t proc_idx_cap;
	bool saturated;		/* some sum reached UINT64_MAX and stopped there */
	/* per GPU (the event's GPU index, as trace faults prints it) */
	uint64_t gpu_faults[GPUCTL_MAX_GPUS], gpu_bytes_in[GPUCTL_MAX_GPUS];
	uint64_t gpu_bytes_out[GPUCTL_MAX_GPUS];
	bool gpu_seen[GPUCTL_MAX_GPUS], gpus_seen;
	/* GPUs past the table: counted together, and said */
	uint64_t beyond_faults, beyond_bytes_in, beyond_bytes_out;
	uint32_t beyond_gpus_max;	/* the highest such GPU index + 1 (0: none) */
	/* the records' headers, for -j's "records" (report; NULL for a live trace) */
	const struct gt_file_header *hdrs;
	int nhdrs;
};

void ts_init(struct trace_summary *s);
void ts_add(struct trace_summary *s, const struct gt_event *e);
/* Names the process pid in the per-process TSG table (comm need not end in NUL). */
void ts_comm(struct trace_summary *s, uint32_t pid, const char *comm);
void ts_free(struct trace_summary *s);
/* sort: "faults" (default) or "bytes" or "address"; top: how many ranges. */
void ts_print(const struct trace_summary *s, const char *sort, unsigned int top, FILE *out);

#endif
