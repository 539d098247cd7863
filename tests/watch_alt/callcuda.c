// SPDX-License-Identifier: GPL-2.0
/*
 * callcuda.c - a driver API caller for bench/watch_alt's tests: each
 * argument is one step, done in order, and each allocation prints
 * "alloc PATH SIZE ADDR RC" on standard output.
 *   link:SIZE   cuMemAllocManaged(SIZE) through the PLT (linked to libcuda)
 *   gpa:SIZE    cuGetProcAddress_v2("cuMemAllocManaged") through the PLT, then it
 *   dl:SIZE     as the CUDA runtime does: dlopen("libcuda.so.1"),
 *               dlsym(handle, "cuGetProcAddress_v2"), ask it, call what it gave
 *   free        cuMemFree of the last address allocated (through the PLT)
 *   sleep:MS    wait MS milliseconds (a pid for the uprobe counter to attach to)
 * Exit: 0 every call returned CUDA_SUCCESS, 1 one did not, 2 a bad step.
 *   cc -Ibench/watch_alt -o callcuda callcuda.c libcuda.so.1 -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_min.h"	/* bench/watch_alt/ (-Ibench/watch_alt) */

static wa_alloc_fn by_proc(wa_gpa2_fn gpa)
{
	CUdriverProcAddressQueryResult st = -1;
	void *p = NULL;

	if (!gpa || gpa("cuMemAllocManaged", &p, 12000, 0, &st) != WA_CUDA_SUCCESS || st != 0)
		return NULL;
	return (wa_alloc_fn)p;
}

static wa_alloc_fn by_dlopen(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	return h ? by_proc((wa_gpa2_fn)dlsym(h, "cuGetProcAddress_v2")) : NULL;
}

int main(int argc, char **argv)
{
	CUdeviceptr last = 0;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		char *arg = argv[i], *colon = strchr(arg, ':'), *end = NULL;
		unsigned long long v = colon ? strtoull(colon + 1, &end, 10) : 0;
		wa_alloc_fn f = NULL;
		CUdeviceptr d = 0;
		CUresult rc;

		if (strcmp(arg, "free") == 0) {
			rc = cuMemFree_v2(last);
			printf("free %#llx %d\n", last, rc);
			bad |= rc != WA_CUDA_SUCCESS;
			continue;
		}
		if (!colon || !end || *end || end == colon + 1) {
			fprintf(stderr, "Error: callcuda: bad step '%s'\n", arg);
			return 2;
		}
		*colon = 0;
		if (strcmp(arg, "sleep") == 0) {
			struct timespec ts = { (time_t)(v / 1000), (long)(v % 1000) * 1000000L };

			fflush(stdout);
			nanosleep(&ts, NULL);
			continue;
		}
		if (strcmp(arg, "link") == 0)
			f = cuMemAllocManaged;
		else if (strcmp(arg, "gpa") == 0)
			f = by_proc(cuGetProcAddress_v2);
		else if (strcmp(arg, "dl") == 0)
			f = by_dlopen();
		else {
			fprintf(stderr, "Error: callcuda: bad step '%s'\n", arg);
			return 2;
		}
		if (!f) {
			fprintf(stderr, "Error: callcuda: no cuMemAllocManaged by %s\n", arg);
			return 1;
		}
		rc = f(&d, (size_t)v, WA_CU_MEM_ATTACH_GLOBAL);
		printf("alloc %s %llu %#llx %d\n", arg, v, d, rc);
		bad |= rc != WA_CUDA_SUCCESS;
		if (rc == WA_CUDA_SUCCESS)
			last = d;
	}
	return bad;
}
