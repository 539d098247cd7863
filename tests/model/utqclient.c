// SPDX-License-Identifier: GPL-2.0
/*
 * utqclient - a UVM tools event queue on another process, read by gpuctl's
 * own consumer (cmd/drv/ut_queue.c, ut_session.c), for the model's tests
 * of the queue's semantics: put/get, the notification threshold and poll,
 * drops when full.
 *
 *   utqclient PID ENTRIES THRESHOLD WAIT_MS
 *
 * Attaches to PID (borrows its /dev/nvidia-uvm fd), opens an ENTRIES-entry
 * queue of GPU fault events with THRESHOLD, waits up to WAIT_MS for the
 * threshold (poll), then waits for PID to exit and reads the queue once.
 * Prints: "woken 0|1", "pending N" (at wake-up), "read N", "dropped N",
 * "counter N" (the GPU fault counter).  Exit 1 with the error on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ut.h"

static void count_entry(const uint8_t *entry, void *arg)
{
	(void)entry;
	(*(uint64_t *)arg)++;
}

int main(int argc, char **argv)
{
	struct ut_session s;
	char err[256];
	uint64_t n = 0;
	int pid, woken;

	if (argc != 5) {
		fprintf(stderr, "usage: utqclient PID ENTRIES THRESHOLD WAIT_MS\n");
		return 2;
	}
	pid = atoi(argv[1]);
	if (ut_attach(&s, pid, err, sizeof(err)) ||
	    ut_enable_counters(&s, 1u << UT_CTR_GPU_FAULTS, err, sizeof(err)) ||
	    ut_open_queue(&s, (uint32_t)atoi(argv[2]), 1u << UT_EV_GPU_FAULT,
			  (uint32_t)atoi(argv[3]), err, sizeof(err))) {
		printf("error %s\n", err);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	woken = ut_wait(&s, atoi(argv[4]));
	printf("woken %d\npending %u\n", woken, ut_queue_pending(&s.q));
	while (kill(pid, 0) == 0)
		usleep(10000);
	ut_queue_consume(&s.q, 0, count_entry, &n);
	printf("read %llu\ndropped %llu\ncounter %llu\n", (unsigned long long)n,
	       (unsigned long long)ut_queue_new_drops(&s.q),
	       (unsigned long long)s.counters[UT_CTR_GPU_FAULTS]);
	ut_close(&s);
	return 0;
}
