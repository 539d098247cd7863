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
#include <unistd.h>

#include "gpuctl_hint.h"

static struct gpuctl_hint_page *page;
static pthread_once_t once = PTHREAD_ONCE_INIT;

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
	p = mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	page = p;
	if (__atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) != GPUCTL_HINT_MAGIC ||
	    page->version != GPUCTL_HINT_VERSION) {
		munmap(p, sizeof(*page));
		page = NULL;
	}
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
	return 0;
}
