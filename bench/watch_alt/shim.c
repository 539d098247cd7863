// SPDX-License-Identifier: GPL-2.0
/*
 * libwatchalt-shim.so - issue 40's "preloaded shim" alternative to the
 * engine's allocation watcher: LD_PRELOAD it into `-- CMD` and it counts and
 * records every cuMemAllocManaged (and cuMemFree) the process makes.
 *
 * Three ways reach the driver, and all three are wrapped:
 *   link   the program calls cuMemAllocManaged through its PLT (linked to
 *          libcuda): the preloaded definition below wins the lookup;
 *   dlsym  dlsym(handle of libcuda, "cuMemAllocManaged"): a handle lookup
 *          never reaches a preloaded object, so dlsym itself is wrapped;
 *   proc   cuGetProcAddress(_v2)("cuMemAllocManaged"): what the CUDA runtime
 *          does.  It dlopen()s libcuda.so.1 and takes cuGetProcAddress_v2
 *          with dlsym(handle, ...) (caught by the dlsym wrap), then asks it
 *          for each function; the wrapped cuGetProcAddress hands back the
 *          shim's wrapper and keeps the driver's pointer.  Without this path
 *          the shim sees none of a PyTorch process's allocations
 *          (build with -DWATCH_ALT_SHIM_NO_GPA to see it blind).
 * Each call: CLOCK_MONOTONIC before and after, the size, the returned address,
 * the path; the first WA_RECS calls are kept, all are counted.
 *
 * At exit (a destructor: exit() or a return from main, not _exit or a
 * signal) one JSON line goes to the file named by WATCH_ALT_SHIM_OUT,
 * appended with one write() (O_APPEND, O_NOFOLLOW: a link is refused), mode
 * 0600; unset: nothing is written, nor by a process that never reached the
 * driver (no call, no lookup).  Fields: pid, allocs, alloc_bytes,
 * alloc_failed, frees, via {link, dlsym, proc}, proc_queries (times
 * cuGetProcAddress was asked for cuMemAllocManaged), lookups (dlsym of a
 * cu* name and cuGetProcAddress calls the shim saw: > 0 with allocs 0 is a
 * process that reached the driver by a way the shim does not count), first_ns,
 * last_ns, recorded, calls [[size, addr, entry_ns, took_ns, path], ...]
 * (the first WA_REPORT).
 * Known limits: dlsym(RTLD_NEXT, ...) made by the program resolves after the
 * shim, not after its caller; dlvsym is not wrapped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_min.h"

#define WA_EXPORT __attribute__((visibility("default")))
#define WA_RECS 16384		/* calls kept in memory */
#define WA_REPORT 64		/* of those, written at exit */

enum wa_path { P_LINK, P_DLSYM, P_PROC, P_N };
static const char *const path_name[P_N] = { "link", "dlsym", "proc" };

struct wa_rec {
	uint64_t t_ns, took_ns, size, addr;
	uint32_t path, rc;
};

static struct wa_rec recs[WA_RECS];
static atomic_ulong n_alloc, n_bytes, n_failed, n_free, n_via[P_N], n_queries, n_lookups;
static atomic_ulong t_first, t_last;

/* The driver's functions, as each path found them. */
static _Atomic(wa_alloc_fn) real_alloc[P_N];
static _Atomic(wa_free_fn) real_free[P_N];
static _Atomic(wa_gpa1_fn) real_gpa1[2];	/* [0] link, [1] via dlsym or cuGetProcAddress */
static _Atomic(wa_gpa2_fn) real_gpa2[2];

typedef void *(*dlsym_fn)(void *, const char *);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* glibc's own dlsym (2.34 moved it into libc; older ones version it 2.2.5). */
static dlsym_fn real_dlsym(void)
{
	static _Atomic(dlsym_fn) fn;
	dlsym_fn f = atomic_load(&fn);

	if (!f) {
		f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!f)
			f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
		atomic_store(&fn, f);
	}
	return f;
}

/* The next definition of NAME after the shim (the link path's driver). */
static void *next_sym(const char *name)
{
	dlsym_fn d = real_dlsym();

	return d ? d(RTLD_NEXT, name) : NULL;
}

static CUresult record_alloc(enum wa_path p, wa_alloc_fn real, CUdeviceptr *dptr, size_t size,
			     unsigned int flags)
{
	uint64_t t0, t1;
	unsigned long i;
	CUresult rc;

	if (!real)
		return WA_CUDA_ERROR_INVALID_VALUE;
	t0 = now_ns();
	rc = real(dptr, size, flags);
	t1 = now_ns();
	i = atomic_fetch_add(&n_alloc, 1);
	atomic_fetch_add(&n_via[p], 1);
	if (rc == WA_CUDA_SUCCESS)
		atomic_fetch_add(&n_bytes, size);
	else
		atomic_fetch_add(&n_failed, 1);
	if (i == 0)
		atomic_store(&t_first, t0);
	atomic_store(&t_last, t0);
	if (i < WA_RECS)
		recs[i] = (struct wa_rec){ t0, t1 - t0, size, dptr && rc == WA_CUDA_SUCCESS ? *dptr : 0, p,
					   (uint32_t)rc };
	return rc;
}

static CUresult record_free(wa_free_fn real, CUdeviceptr d)
{
	if (!real)
		return WA_CUDA_ERROR_INVALID_VALUE;
	atomic_fetch_add(&n_free, 1);
	return real(d);
}

/* --- the link path: the shim's own definitions of the driver's names --- */
static wa_alloc_fn link_alloc(void)
{
	wa_alloc_fn f = atomic_load(&real_alloc[P_LINK]);

	if (!f) {
		f = (wa_alloc_fn)next_sym("cuMemAllocManaged");
		atomic_store(&real_alloc[P_LINK], f);
	}
	return f;
}

WA_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
	return record_alloc(P_LINK, link_alloc(), dptr, size, flags);
}

WA_EXPORT CUresult cuMemFree_v2(CUdeviceptr d)
{
	wa_free_fn f = atomic_load(&real_free[P_LINK]);

	if (!f) {
		f = (wa_free_fn)next_sym("cuMemFree_v2");
		atomic_store(&real_free[P_LINK], f);
	}
	return record_free(f, d);
}

/* --- the wrappers handed out by dlsym and cuGetProcAddress --- */
static CUresult dlsym_alloc(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
	return record_alloc(P_DLSYM, atomic_load(&real_alloc[P_DLSYM]), dptr, size, flags);
}

static CUresult proc_alloc(CUdeviceptr *dptr, size_t size, unsigned int flags)
{
	return record_alloc(P_PROC, atomic_load(&real_alloc[P_PROC]), dptr, size, flags);
}

static CUresult dlsym_free(CUdeviceptr d)
{
	return record_free(atomic_load(&real_free[P_DLSYM]), d);
}

static CUresult proc_free(CUdeviceptr d)
{
	return record_free(atomic_load(&real_free[P_PROC]), d);
}

static CUresult wrapped_gpa2(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
static CUresult wrapped_gpa1(const char *, void **, int, cuuint64_t);

static int is_shim_fn(void *p)
{
	return p == (void *)cuMemAllocManaged || p == (void *)cuMemFree_v2 ||
	       p == (void *)cuGetProcAddress || p == (void *)cuGetProcAddress_v2 ||
	       p == (void *)dlsym_alloc || p == (void *)proc_alloc || p == (void *)dlsym_free ||
	       p == (void *)proc_free || p == (void *)wrapped_gpa1 || p == (void *)wrapped_gpa2;
}

/* After the driver's cuGetProcAddress answered SYM with *pfn: swap in ours. */
static void swap_proc(const char *sym, void **pfn, int version)
{
	atomic_fetch_add(&n_lookups, 1);
	if (!sym || !pfn || !*pfn || is_shim_fn(*pfn))
		return;
#ifndef WATCH_ALT_SHIM_NO_GPA
	if (strcmp(sym, "cuMemAllocManaged") == 0) {
		atomic_fetch_add(&n_queries, 1);
		atomic_store(&real_alloc[P_PROC], (wa_alloc_fn)*pfn);
		*pfn = (void *)proc_alloc;
	} else if (strcmp(sym, "cuMemFree") == 0) {
		atomic_store(&real_free[P_PROC], (wa_free_fn)*pfn);
		*pfn = (void *)proc_free;
	} else if (strcmp(sym, "cuGetProcAddress") == 0 && version >= WA_GPA_V2_VERSION) {
		atomic_store(&real_gpa2[1], (wa_gpa2_fn)*pfn);
		*pfn = (void *)wrapped_gpa2;
	} else if (strcmp(sym, "cuGetProcAddress") == 0) {
		atomic_store(&real_gpa1[1], (wa_gpa1_fn)*pfn);
		*pfn = (void *)wrapped_gpa1;
	}
#else
	(void)version;
#endif
}

static CUresult gpa2_with(wa_gpa2_fn real, const char *sym, void **pfn, int version, cuuint64_t flags,
			  CUdriverProcAddressQueryResult *status)
{
	CUresult rc;

	if (!real)
		return WA_CUDA_ERROR_INVALID_VALUE;
	rc = real(sym, pfn, version, flags, status);
	if (rc == WA_CUDA_SUCCESS)
		swap_proc(sym, pfn, version);
	return rc;
}

static CUresult gpa1_with(wa_gpa1_fn real, const char *sym, void **pfn, int version, cuuint64_t flags)
{
	CUresult rc;

	if (!real)
		return WA_CUDA_ERROR_INVALID_VALUE;
	rc = real(sym, pfn, version, flags);
	if (rc == WA_CUDA_SUCCESS)
		swap_proc(sym, pfn, version);
	return rc;
}

static CUresult wrapped_gpa2(const char *sym, void **pfn, int version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	return gpa2_with(atomic_load(&real_gpa2[1]), sym, pfn, version, flags, status);
}

static CUresult wrapped_gpa1(const char *sym, void **pfn, int version, cuuint64_t flags)
{
	return gpa1_with(atomic_load(&real_gpa1[1]), sym, pfn, version, flags);
}

WA_EXPORT CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, cuuint64_t flags,
				       CUdriverProcAddressQueryResult *status)
{
	wa_gpa2_fn f = atomic_load(&real_gpa2[0]);

	if (!f) {
		f = (wa_gpa2_fn)next_sym("cuGetProcAddress_v2");
		atomic_store(&real_gpa2[0], f);
	}
	return gpa2_with(f, sym, pfn, version, flags, status);
}

WA_EXPORT CUresult cuGetProcAddress(const char *sym, void **pfn, int version, cuuint64_t flags)
{
	wa_gpa1_fn f = atomic_load(&real_gpa1[0]);

	if (!f) {
		f = (wa_gpa1_fn)next_sym("cuGetProcAddress");
		atomic_store(&real_gpa1[0], f);
	}
	return gpa1_with(f, sym, pfn, version, flags);
}

/* --- the dlsym path --- */
WA_EXPORT void *dlsym(void *handle, const char *name)
{
	dlsym_fn d = real_dlsym();
	void *p = d ? d(handle, name) : NULL;

	if (!p || is_shim_fn(p) || name[0] != 'c' || name[1] != 'u')
		return p;
	atomic_fetch_add(&n_lookups, 1);
	if (strcmp(name, "cuMemAllocManaged") == 0) {
		atomic_store(&real_alloc[P_DLSYM], (wa_alloc_fn)p);
		return (void *)dlsym_alloc;
	}
	if (strcmp(name, "cuMemFree_v2") == 0) {
		atomic_store(&real_free[P_DLSYM], (wa_free_fn)p);
		return (void *)dlsym_free;
	}
#ifndef WATCH_ALT_SHIM_NO_GPA
	if (strcmp(name, "cuGetProcAddress_v2") == 0) {
		atomic_store(&real_gpa2[1], (wa_gpa2_fn)p);
		return (void *)wrapped_gpa2;
	}
	if (strcmp(name, "cuGetProcAddress") == 0) {
		atomic_store(&real_gpa1[1], (wa_gpa1_fn)p);
		return (void *)wrapped_gpa1;
	}
#endif
	return p;
}

/* --- the report at exit --- */
static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= cap)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, cap - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + (size_t)n;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("WATCH_ALT_SHIM_OUT");
	static char buf[16384];
	unsigned long n = atomic_load(&n_alloc), k;
	size_t at = 0;
	ssize_t w;
	int fd;

	if (!path || !*path || (!n && !atomic_load(&n_free) && !atomic_load(&n_lookups)))
		return;		/* a process that never reached the driver: no line */
	at = put(buf, sizeof(buf), at,
		 "{\"pid\": %d, \"allocs\": %lu, \"alloc_bytes\": %lu, \"alloc_failed\": %lu, \"frees\": %lu, "
		 "\"via\": {\"%s\": %lu, \"%s\": %lu, \"%s\": %lu}, \"proc_queries\": %lu, \"lookups\": %lu, "
		 "\"first_ns\": %lu, \"last_ns\": %lu, \"recorded\": %lu, \"calls\": [",
		 (int)getpid(), n, atomic_load(&n_bytes), atomic_load(&n_failed), atomic_load(&n_free),
		 path_name[P_LINK], atomic_load(&n_via[P_LINK]), path_name[P_DLSYM], atomic_load(&n_via[P_DLSYM]),
		 path_name[P_PROC], atomic_load(&n_via[P_PROC]), atomic_load(&n_queries), atomic_load(&n_lookups),
		 atomic_load(&t_first), atomic_load(&t_last), n < WA_RECS ? n : (unsigned long)WA_RECS);
	for (k = 0; k < n && k < WA_REPORT && k < WA_RECS; k++)
		at = put(buf, sizeof(buf), at, "%s[%lu, %lu, %lu, %lu, \"%s\"]", k ? ", " : "",
			 (unsigned long)recs[k].size, (unsigned long)recs[k].addr, (unsigned long)recs[k].t_ns,
			 (unsigned long)recs[k].took_ns, path_name[recs[k].path]);
	at = put(buf, sizeof(buf), at, "]}\n");
	if (at >= sizeof(buf))
		return;		/* cannot happen with WA_REPORT calls; never a cut line */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	w = write(fd, buf, at);	/* a failure cannot be told at exit: the bench sees no line */
	(void)w;
	close(fd);
}
