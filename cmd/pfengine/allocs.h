/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allocs.h - the engine's table of a process's managed allocations
 * (allocs.c): built from its mappings as it makes them (allocw.h) or, with
 * no watcher, from /proc/PID/maps read on demand; what becomes the
 * policy's ALLOC and FREE events; and the age of each decision: from an
 * allocation's creation (or its first GPU fault, when the engine saw that
 * first) to the start of the UVM_MIGRATE that served it.
 */
#ifndef GPUCTL_PFENGINE_ALLOCS_H
#define GPUCTL_PFENGINE_ALLOCS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "alloc_watch_abi.h"

struct alloc {
	uint64_t s, e;		/* [s, e) */
	uint64_t first_ns;	/* creation or first GPU fault, whichever came first (0: neither) */
	uint64_t made_ns;	/* when the table learnt of it (a mapping call, or a maps read) */
	bool acc;		/* accessible: managed memory (else CUDA's reservation) */
	bool faulted;		/* a GPU fault in it was seen */
	bool served;		/* a UVM_MIGRATE into it ended well */
	bool pull;		/* moved to a GPU, no CPU fault in it since (PULL) ... */
	uint64_t pull_until;	/* ... watched until then: PULL_WINDOW_NS after the move */
	bool from_maps;		/* learnt from a maps read (its mapping call may still be reported) */
	uint32_t gen;		/* the fault sample it last had a fault handed on in */
};

#define AGE_BUCKETS (64 + 40 * 32)

struct allocs {
	pid_t pid;
	struct alloc *v;
	int n, cap;
	int awaiting;		/* accessible, never faulted, never served */
	uint64_t made, freed, reads, served, missed;
	uint32_t age[AGE_BUCKETS];	/* ages in µs, log-linear */
	uint64_t neg[16];	/* on-demand mode: 2 MiB blocks just found outside */
	double neg_at;
	/* kind PFE_EV_ALLOC or PFE_EV_FREE for [s, e), at ts (CLOCK_MONOTONIC_RAW) */
	void (*emit)(int kind, uint64_t s, uint64_t e, uint64_t ts, void *arg);
	void *arg;
};

void allocs_init(struct allocs *a, pid_t pid,
		 void (*emit)(int kind, uint64_t s, uint64_t e, uint64_t ts, void *arg), void *arg);
void allocs_free(struct allocs *a);
/* A watcher event, its time on CLOCK_MONOTONIC_RAW. */
void allocs_event(struct allocs *a, const struct aw_event *ev, uint64_t ts);
/* Reads /proc/PID/maps and makes the table agree (events for each change): 0 or -errno. */
int allocs_resync(struct allocs *a, uint64_t ts);
/* The accessible allocation holding addr, or NULL. */
struct alloc *allocs_find(struct allocs *a, uint64_t addr);
/*
 * No watcher: the allocation holding addr, reading the maps when it is
 * outside every one known (not again for a block found outside lately).
 */
struct alloc *allocs_find_read(struct allocs *a, uint64_t addr, uint64_t ts);
/* A GPU fault in x at ts: true when it is x's first. */
bool allocs_fault(struct allocs *a, struct alloc *x, uint64_t ts);
/*
 * [addr, addr + len) moved to a GPU by a call that started at start and
 * ended at end: the allocations in it are served, their age taken at the
 * move's start (what the process waited for before its move began, not the
 * move's own length), their PULL watch from its end.
 */
void allocs_served(struct allocs *a, uint64_t addr, uint64_t len, uint64_t start, uint64_t end);
/*
 * How long after a move to a GPU the CPU's first fault in the allocation
 * counts as pulling it back: a CPU that fills what was moved at its
 * creation starts at once; a long-lived GPU allocation is not watched (nor
 * every CPU fault of the process recorded) for the rest of its life.
 */
#define PULL_WINDOW_NS 1000000000ull
/*
 * A CPU fault at addr at ts: the allocation it is in when that is the CPU's
 * first fault in it within PULL_WINDOW_NS of a move to a GPU (then no
 * longer watched), else NULL.
 */
struct alloc *allocs_pull(struct allocs *a, uint64_t addr, uint64_t ts);
/* [addr, addr + len): its allocations watched for a PULL from ts on (PFE_DST_WATCH). */
void allocs_watch(struct allocs *a, uint64_t addr, uint64_t len, uint64_t ts);
/* Allocations moved to a GPU that no CPU fault has touched since, watched at now. */
int allocs_pull_waiting(const struct allocs *a, uint64_t now);
/* The engine ends: allocations faulted but never served count as missed. */
void allocs_finish(struct allocs *a);
/* The age (µs) below which pct % of the served allocations were served; 0: none. */
uint64_t allocs_age_us(const struct allocs *a, double pct);
/* The least age, µs, that bucket i of struct allocs' age[] holds. */
uint64_t allocs_age_bucket_us(int i);

#endif
