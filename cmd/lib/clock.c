// SPDX-License-Identifier: GPL-2.0
/* clock.c - the two clocks gpuctl reads: boot time (BPF's) and monotonic seconds. */
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
