/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gpuctl_hint.h - the latency-critical (LC) hint: an opt-in way for an LC
 * process to tell `gpuctl sched run lc-be ... hint FILE` when it has GPU work
 * in flight, so that gpuctl takes the best-effort (BE) TSGs off the runlist
 * for exactly that time.
 *
 * The ABI is one small shared file (FILE, created by gpuctl): a futex word
 * counting the LC requests in flight.  The LC process maps it (through
 * libgpuctl-hint.so, or by itself: the layout below is all there is) and
 * brackets every request:
 *
 *	gpuctl_hint_begin();	before its first launch of the request
 *	... launches, synchronize ...
 *	gpuctl_hint_end();	after the result is back on the CPU
 *
 * Each call is one atomic add, plus one futex wake when the count leaves or
 * reaches 0: about a microsecond; gpuctl_hint_end() also adds the request's
 * time to the latency histogram below (sched status shows P50/P99).  The library finds FILE in $GPUCTL_HINT;
 * without it (or when the file is missing) both calls do nothing.
 *
 * Plain fixed-width types, included by gpuctl (cmd/sched/) and the library.
 */
#ifndef GPUCTL_HINT_H
#define GPUCTL_HINT_H

#include <stdint.h>

#define GPUCTL_HINT_MAGIC	0x746e6968u	/* "hint" */
#define GPUCTL_HINT_VERSION	1u
#define GPUCTL_HINT_ENV		"GPUCTL_HINT"

struct gpuctl_hint_page {
	uint32_t magic;		/* GPUCTL_HINT_MAGIC, written last by gpuctl */
	uint32_t version;	/* GPUCTL_HINT_VERSION */
	uint32_t busy;		/* the futex word: LC requests in flight */
	uint32_t owner;		/* pid of the gpuctl process serving it */
	uint64_t begins;	/* requests begun, all LC processes together */
	uint64_t ends;		/* requests ended */
};

/*
 * The LC's latencies, at GPUCTL_HINT_LAT_OFFSET of the same file (its size
 * is GPUCTL_HINT_FILE_SIZE): gpuctl writes magic and nbuckets; the library
 * then adds each request's time, gpuctl_hint_begin() to gpuctl_hint_end()
 * of the same thread, to count, sum_us and its bucket (atomic adds).  A
 * library older than this part writes nothing here.  Bucket b holds
 * [gpuctl_hint_lat_lo(b), gpuctl_hint_lat_lo(b + 1)) microseconds: one
 * microsecond each below 16, then 8 to an octave (12.5 % wide); the last
 * one holds everything above.
 */
#define GPUCTL_HINT_FILE_SIZE		4096u
#define GPUCTL_HINT_LAT_OFFSET		64u
#define GPUCTL_HINT_LAT_MAGIC		0x3174616cu	/* "lat1" */
#define GPUCTL_HINT_LAT_BUCKETS		256u

struct gpuctl_hint_lat {
	uint32_t magic;		/* GPUCTL_HINT_LAT_MAGIC, written by gpuctl */
	uint32_t nbuckets;	/* GPUCTL_HINT_LAT_BUCKETS */
	uint64_t count;		/* requests timed */
	uint64_t sum_us;
	uint64_t bucket[GPUCTL_HINT_LAT_BUCKETS];
};

static inline uint32_t gpuctl_hint_lat_bucket(uint64_t us)
{
	uint32_t msb, b;

	if (us < 16)
		return (uint32_t)us;
	msb = 63 - (uint32_t)__builtin_clzll(us);	/* >= 4 */
	b = 16 + (msb - 4) * 8 + (uint32_t)((us >> (msb - 3)) & 7);
	return b < GPUCTL_HINT_LAT_BUCKETS ? b : GPUCTL_HINT_LAT_BUCKETS - 1;
}

/* The lower bound of bucket b, microseconds. */
static inline uint64_t gpuctl_hint_lat_lo(uint32_t b)
{
	uint32_t msb;

	if (b < 16)
		return b;
	msb = 4 + (b - 16) / 8;
	return (uint64_t)(8 + (b - 16) % 8) << (msb - 3);
}

#ifdef __cplusplus
static_assert(sizeof(struct gpuctl_hint_page) == 32, "the hint page is 32 bytes");
extern "C" {
#else
_Static_assert(sizeof(struct gpuctl_hint_page) == 32, "the hint page is 32 bytes");
_Static_assert(GPUCTL_HINT_LAT_OFFSET + sizeof(struct gpuctl_hint_lat) <= GPUCTL_HINT_FILE_SIZE,
	       "the latencies fit the hint file");
#endif

#ifndef GPUCTL_HINT_NO_API
/* Both return 0, or -1 when no hint file is mapped (nothing done). */
int gpuctl_hint_begin(void);
int gpuctl_hint_end(void);
#endif

#ifdef __cplusplus
}
#endif

#endif
