// SPDX-License-Identifier: GPL-2.0
/*
 * decide - the cost of an engine decision: each built-in policy (and any
 * object given with -f PATH) loaded and run by the engine's runner
 * (cmd/pfengine/bpfrun.c) exactly as the engine runs it, over batches of
 * 0, 1, 16, 64 and 256 crafted fault events (a sequential sweep and random
 * blocks).  Per batch size: the median of ROUNDS timings of one
 * pfe_run_batch (the BPF_PROG_TEST_RUN syscall included); then a line fit:
 * the cost of a batch (intercept) and of an event (slope).  Goal: <= 1 us a
 * batch + <= 20 ns an event.  Needs root (BPF); no GPU.
 *
 *   decide [-r ROUNDS] [-j] [-f OBJECT]...
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "pfengine/pfengine.h"

static const int sizes[] = { 0, 1, 16, 64, 256 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static uint64_t ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t blk;	/* the sweep's position, across runs */

static void fill(struct pfe_run *r, int n, int pattern, uint64_t *rng)
{
	for (int i = 0; i < n; i++) {
		struct pfe_event *e = pfe_run_slot(r);
		uint64_t b;

		if (pattern == 0) {
			b = blk++ / 8;		/* 8 faults a block, in sequence */
		} else {
			*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
			b = (*rng >> 33) % 65536;
		}
		e->kind = PFE_EV_FAULT;
		e->addr = (1ull << 40) + (b << PFE_BLOCK_SHIFT) + (i % 512) * 4096;
		e->ts_ns = ns();
		e->flags = PFE_F_MANAGED;
		e->ext_start = 1ull << 40;
		e->ext_end = (1ull << 40) + (65536ull << PFE_BLOCK_SHIFT);
		e->access = PFE_ACC_READ;
	}
}

static int bench(const struct pfe_policy *pol, int rounds, bool json, bool *first)
{
	static const char *const pat[] = { "seq", "random" };
	struct pfe_run r;
	uint64_t *t = calloc(rounds, sizeof(*t)), rng = 42;

	if (!t || pfe_run_init(&r, pol, 0, NULL) || pfe_run_load(&r))
		return -1;
	for (int p = 0; p < 2; p++) {
		double med[NSIZES], sx = 0, sy = 0, sxx = 0, sxy = 0, slope, icpt;

		for (int s = 0; s < NSIZES; s++) {
			for (int k = 0; k < rounds; k++) {
				uint64_t t0;

				fill(&r, sizes[s], p, &rng);
				t0 = ns();
				pfe_run_batch(&r);
				t[k] = ns() - t0;
			}
			qsort(t, rounds, sizeof(*t), cmp);
			med[s] = (double)t[rounds / 2];
			sx += sizes[s];
			sy += med[s];
			sxx += (double)sizes[s] * sizes[s];
			sxy += sizes[s] * med[s];
		}
		slope = (NSIZES * sxy - sx * sy) / (NSIZES * sxx - sx * sx);
		icpt = (sy - slope * sx) / NSIZES;
		if (json) {
			printf("%s{\"policy\":\"%s\",\"pattern\":\"%s\",\"rounds\":%d,\"median_ns\":{", *first ? "" : ",",
			       pol->name, pat[p], rounds);
			for (int s = 0; s < NSIZES; s++)
				printf("%s\"%d\":%.0f", s ? "," : "", sizes[s], med[s]);
			printf("},\"batch_ns\":%.0f,\"event_ns\":%.2f}", icpt, slope);
			*first = false;
		} else {
			printf("%-16s %-7s", pol->name, pat[p]);
			for (int s = 0; s < NSIZES; s++)
				printf(" %6.0f", med[s]);
			printf("   %7.0f  %7.2f  %s\n", icpt, slope,
			       icpt <= 1000 && slope <= 20 ? "ok" : "OVER");
		}
	}
	pfe_run_free(&r);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	static struct pfe_policy user[8];
	const char *files[8];
	int rounds = 2001, nf = 0, c, ret = 0;
	bool json = false, first = true;

	while ((c = getopt(argc, argv, "r:jf:")) != -1) {
		if (c == 'r')
			rounds = atoi(argv[optind - 1]) | 1;
		else if (c == 'j')
			json = true;
		else if (c == 'f' && nf < 8)
			files[nf++] = optarg;
		else
			return fprintf(stderr, "usage: decide [-r ROUNDS] [-j] [-f OBJECT]...\n"), 2;
	}
	if (json)
		printf("[");
	else
		printf("%-16s %-7s %6s %6s %6s %6s %6s   %7s  %7s  (median ns of one run; fit)\n", "policy",
		       "pattern", "0", "1", "16", "64", "256", "batch", "event");
	for (int i = 0; pfe_builtin(i); i++)
		if (bench(pfe_builtin(i), rounds, json, &first))
			ret = 1;
	for (int i = 0; i < nf; i++)
		if (pfe_policy_file(files[i], false, &user[i], NULL) || bench(&user[i], rounds, json, &first))
			ret = 1;
	if (json)
		printf("]\n");
	return ret;
}
