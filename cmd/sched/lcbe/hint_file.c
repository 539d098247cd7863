// SPDX-License-Identifier: GPL-2.0
/*
 * hint_file.c - lc-be's hint page (hint/gpuctl_hint.h) on the gate's side:
 * created, mapped, and read so that its writers cannot hurt the policy: the
 * file cut short is made whole (a SIGBUS on the mapping is caught), a header
 * overwritten is written again, a count that cannot be is no request.  What
 * a writer can still do (keep BE off) is bounded by the gate (gate.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gpuctl.h"
#include "gate_state.h"

/*
 * The hint file is writable by others (hint-mode): one who truncates it
 * would make every access to the mapping a SIGBUS.  The handler puts an
 * anonymous page in its place (the access is retried, reads 0: no request)
 * and flags it; the gate thread then restores the file's size and maps it
 * again.  Only the hint page is handled: any other SIGBUS is the default's.
 */
static void *volatile hint_addr;
static volatile sig_atomic_t hint_damaged;

static void hint_sigbus(int sig, siginfo_t *si, void *uc)
{
	char *a = hint_addr;

	(void)uc;
	if (a && (char *)si->si_addr >= a && (char *)si->si_addr < a + GATE_PAGE_SIZE &&
	    mmap(a, GATE_PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
		hint_damaged = 1;
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void hint_header(struct gate *g)
{
	struct gpuctl_hint_lat *lat = hint_lat(g);

	lat->nbuckets = GPUCTL_HINT_LAT_BUCKETS;
	__atomic_store_n(&lat->magic, GPUCTL_HINT_LAT_MAGIC, __ATOMIC_RELEASE);
	g->page->version = GPUCTL_HINT_VERSION;
	g->page->owner = getpid();
	__atomic_store_n(&g->page->magic, GPUCTL_HINT_MAGIC, __ATOMIC_RELEASE);
}

/*
 * Before each look at the page: a file cut short (or a page the handler
 * replaced) is made whole and mapped again; a header overwritten is written
 * again.  Returns the busy count to believe: garbage (negative, huge) is 0.
 */
__u32 hint_read(struct gate *g)
{
	struct stat st;
	__u32 busy;

	if (!g->page)
		return 0;
	if (hint_damaged || fstat(g->hint_fd, &st) || st.st_size < GATE_PAGE_SIZE) {
		g->st.hint_repairs++;
		if (ftruncate(g->hint_fd, GATE_PAGE_SIZE) ||
		    mmap(g->page, GATE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 g->hint_fd, 0) == MAP_FAILED) {
			/* cannot: the anonymous page stays, no LC request is seen */
			if (!hint_damaged)
				return 0;
		} else {
			hint_damaged = 0;
			hint_header(g);
		}
	}
	if (__atomic_load_n(&g->page->magic, __ATOMIC_ACQUIRE) != GPUCTL_HINT_MAGIC ||
	    g->page->version != GPUCTL_HINT_VERSION || g->page->owner != (__u32)getpid()) {
		g->st.hint_garbage++;
		hint_header(g);
	}
	busy = __atomic_load_n(&g->page->busy, __ATOMIC_ACQUIRE);
	if ((__s32)busy < 0 || busy > GATE_BUSY_MAX) {
		g->st.hint_garbage++;
		return 0;
	}
	return busy;
}

__u32 *wait_word(struct gate *g)
{
	return g->page && !hint_damaged ? &g->page->busy : &g->wake;
}

void hint_wake(struct gate *g)
{
	syscall(SYS_futex, wait_word(g), FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* The hint page at path: created (or a stale one of ours reused), mapped. */
int hint_page(struct gate *g)
{
	struct sigaction sa = { .sa_sigaction = hint_sigbus, .sa_flags = SA_SIGINFO };
	struct stat st;
	void *p;
	int fd;

	fd = open(g->o.hint, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		p_err("hint file %s: %s", g->o.hint, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		p_err("hint file %s: not a regular file of this user with one link; "
		      "remove it or name another", g->o.hint);
		close(fd);
		return -1;
	}
	/*
	 * Who may write it may keep BE off, within be-floor and be-stall, and
	 * may truncate or scribble on it: hint_read puts that right.
	 */
	if (ftruncate(fd, GATE_PAGE_SIZE) || fchmod(fd, g->o.mode)) {
		p_err("hint file %s: %s", g->o.hint, strerror(errno));
		close(fd);
		return -1;
	}
	p = mmap(NULL, GATE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		p_err("hint file %s: mmap: %s", g->o.hint, strerror(errno));
		close(fd);
		return -1;
	}
	g->hint_fd = fd;
	g->page = p;
	hint_addr = p;
	hint_damaged = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	memset(p, 0, GATE_PAGE_SIZE);	/* a stale file's latencies too */
	hint_header(g);
	return 0;
}

void hint_release(struct gate *g, bool unlink_it)
{
	if (!g->page)
		return;
	if (unlink_it)
		__atomic_store_n(&g->page->magic, 0, __ATOMIC_RELEASE);
	hint_addr = NULL;
	munmap(g->page, GATE_PAGE_SIZE);
	close(g->hint_fd);
	if (unlink_it)
		unlink(g->o.hint);
	g->page = NULL;
}
