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
 * reaches 0: about a microsecond.  The library finds FILE in $GPUCTL_HINT;
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

#ifdef __cplusplus
static_assert(sizeof(struct gpuctl_hint_page) == 32, "the hint page is 32 bytes");
extern "C" {
#else
_Static_assert(sizeof(struct gpuctl_hint_page) == 32, "the hint page is 32 bytes");
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
