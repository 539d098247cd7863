// SPDX-License-Identifier: GPL-2.0
/*
 * watch-alt-resolve - where a driver function lives in its library's file,
 * for the uprobe counter (watch-alt-uprobe --lib PATH --offset OFF):
 *
 *   watch-alt-resolve [--cuda-version N] LIB SYMBOL
 *
 * dlopen()s LIB (e.g. libcuda.so.1) as the CUDA runtime does and prints one
 * line, three fields separated by tabs:
 *   PATH     the file the library was mapped from (what a uprobe attaches to)
 *   EXPORT   the file offset of SYMBOL as the library exports it (dlsym)
 *   PROC     the file offset of what cuGetProcAddress_v2 (else
 *            cuGetProcAddress) hands back for SYMBOL at CUDA version N
 *            (default 12000), or "-" when it gives nothing in PATH's file.
 * A driver may hand the runtime an internal function, not the export: a
 * probe on EXPORT alone would then miss the runtime's calls (PROC != EXPORT).
 * Nothing here initializes CUDA (cuGetProcAddress needs no cuInit).
 * Exit: 0 printed; 1 LIB does not load or has no SYMBOL; 2 usage.
 * Built dynamically (it must dlopen the machine's driver): on the GPU
 * machine watch_alt_gpu.sh builds it there with cc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_min.h"

/* The mapping of /proc/self/maps that holds ADDR: its path, and ADDR's file offset. */
static int file_offset(const void *addr, char *path, size_t cap, unsigned long long *off)
{
	uintptr_t a = (uintptr_t)addr;
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, pgoff;
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &pgoff, &n) < 3 || n == 0)
			continue;
		if (a < lo || a >= hi || line[n] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(path, cap, "%s", line + n);
		*off = a - lo + pgoff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

static void *by_proc(void *h, const char *sym, int version)
{
	wa_gpa2_fn g2 = (wa_gpa2_fn)dlsym(h, "cuGetProcAddress_v2");
	wa_gpa1_fn g1 = (wa_gpa1_fn)dlsym(h, "cuGetProcAddress");
	CUdriverProcAddressQueryResult st = WA_CU_GET_PROC_ADDRESS_SUCCESS;
	void *p = NULL;

	if (g2 && g2(sym, &p, version, 0, &st) == WA_CUDA_SUCCESS && st == WA_CU_GET_PROC_ADDRESS_SUCCESS)
		return p;
	p = NULL;
	if (g1 && g1(sym, &p, version, 0) == WA_CUDA_SUCCESS)
		return p;
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096], ppath[4096];
	unsigned long long eoff, poff;
	int version = 12000, i = 1;
	void *h, *e, *p;
	char *end;

	if (argc == 5 && strcmp(argv[1], "--cuda-version") == 0) {
		long v = strtol(argv[2], &end, 10);

		if (*argv[2] == 0 || *end || v < 1000 || v > 99990) {
			fprintf(stderr, "Error: --cuda-version takes 1000..99990 (12040 is CUDA 12.4), not '%s'\n",
				argv[2]);
			return 2;
		}
		version = (int)v;
		i = 3;
	}
	if (argc - i != 2 || !*argv[i] || !*argv[i + 1]) {
		fprintf(stderr, "Error: usage: watch-alt-resolve [--cuda-version N] LIB SYMBOL\n");
		return 2;
	}
	h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();

		fprintf(stderr, "Error: cannot load %s: %s\n", argv[i], why ? why : "dlopen failed");
		return 1;
	}
	e = dlsym(h, argv[i + 1]);
	if (!e || file_offset(e, path, sizeof(path), &eoff) < 0) {
		fprintf(stderr, "Error: %s exports no %s\n", argv[i], argv[i + 1]);
		return 1;
	}
	p = by_proc(h, argv[i + 1], version);
	if (p && file_offset(p, ppath, sizeof(ppath), &poff) == 0 && strcmp(ppath, path) == 0)
		printf("%s\t%#llx\t%#llx\n", path, eoff, poff);
	else
		printf("%s\t%#llx\t-\n", path, eoff);
	return fflush(stdout) == 0 ? 0 : 1;
}
