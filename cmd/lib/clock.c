// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - the clocks gpuctl reads: boot time (BPF's), monotonic seconds,
 * and the raw monotonic clock (the UVM tools events' timestamps).
 */
#include <stdint.h>
#include <time.h>

#include "gpuctl.h"

uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t monoraw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
