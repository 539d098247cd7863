// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gpuctl_hint.c - libgpuctl-hint.so: gpuctl_hint_begin()/gpuctl_hint_end()
 * for latency-critical processes (see gpuctl_hint.h).  The file named by
 * $GPUCTL_HINT is mapped on the first call; a process that never calls
 * pays nothing.  Usable from C/C++ (link or dlopen) and from Python
 * (ctypes.CDLL("libgpuctl-hint.so").gpuctl_hint_begin()).
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl_hint.h"

static struct gpuctl_hint_page *page;
static struct gpuctl_hint_lat *lat;	/* NULL when gpuctl keeps no latencies */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread uint64_t t_begin_ns;	/* this thread's outermost request */
static __thread uint32_t t_depth;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hint_map(void)
{
	const char *path = getenv(GPUCTL_HINT_ENV);
	void *p;
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	p = mmap(NULL, GPUCTL_HINT_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	page = p;
	if (__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) != GPUCTL_HINT_MAGIC ||
	    page->version != GPUCTL_HINT_VERSION) {
		munmap(p, GPUCTL_HINT_FILE_SIZE);
		page = NULL;
		return;
	}
	lat = (struct gpuctl_hint_lat *)((char *)p + GPUCTL_HINT_LAT_OFFSET);
	if (__atomic_load_n(&lat->magic, __ATOMIC_ACQUIRE) != GPUCTL_HINT_LAT_MAGIC ||
	    lat->nbuckets != GPUCTL_HINT_LAT_BUCKETS)
		lat = NULL;
}

static void wake(void)
{
	/* gpuctl waits on the word; the wake is needed only on 0 <-> 1 */
	syscall(SYS_futex, &page->busy, FUTEX_WAKE, 1, NULL, NULL, 0);
}

int gpuctl_hint_begin(void)
{
	pthread_once(&once, hint_map);
	if (!page)
		return -1;
	if (!t_depth++)
		t_begin_ns = mono_ns();
	__atomic_add_fetch(&page->begins, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&page->busy, 1, __ATOMIC_SEQ_CST) == 0)
		wake();
	return 0;
}

int gpuctl_hint_end(void)
{
	pthread_once(&once, hint_map);
	if (!page)
		return -1;
	__atomic_add_fetch(&page->ends, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_sub(&page->busy, 1, __ATOMIC_SEQ_CST) == 1)
		wake();
	if (t_depth && !--t_depth && lat) {
		uint64_t us = (mono_ns() - t_begin_ns) / 1000;

		__atomic_add_fetch(&lat->bucket[gpuctl_hint_lat_bucket(us)], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&lat->sum_us, us, __ATOMIC_RELAXED);
		__atomic_add_fetch(&lat->count, 1, __ATOMIC_RELEASE);
	}
	return 0;
}
