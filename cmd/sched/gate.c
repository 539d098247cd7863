// SPDX-License-Identifier: GPL-2.0
/*
 * gate.c - the LC hint gate of `sched run lc-be ... hint FILE`: the
 * best-effort (BE) TSGs go off the runlist while a latency-critical (LC)
 * process has a request in flight, and back on when none has.
 *
 * Why: with several BE TSGs on the runlist, an LC request waits for each of
 * them to be switched in and out (≈ 0.2 ms each on an H100) whatever their
 * timeslices; a TSG that is off the runlist costs nothing.  The LC processes
 * say when they have work through the hint page (hint/gpuctl_hint.h) that
 * this file creates; one thread here waits on its futex word and issues
 * GPFIFO_SCHEDULE on each BE TSG through the BE process's own RM file,
 * borrowed as for every other control (RM's ownership rule kept).
 *
 * be-rotate MS (with or without a hint): only one BE process's TSGs are on
 * the runlist at a time, the next one's after MS; an LC request then waits
 * for one BE TSG switch instead of one per BE process.
 *
 * Safety: every TSG the gate may take off carries ORIG_SCHEDULE in its
 * table entry from before the first change, so whoever restores a killed
 * run's changes puts it back on (run.c); hold_ms bounds how long one
 * request may keep BE off (an LC process that dies mid-request, or never
 * ends, cannot starve BE); on stop every TSG goes back on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "sched.h"

#define GATE_IDLE_WAIT_NS	100000000L	/* re-check without a wake: 100 ms */
#define GATE_LAT_SAMPLES	4096		/* call times kept for the summary */
#define GATE_PAGE_SIZE		4096

const char *const gate_off_names[GATE_OFF_NR] = {
	[GATE_OFF_SCHEDULE] = "schedule",
	[GATE_OFF_CHANNELS] = "channels",
};

#define GATE_TSG_CHANNELS	32

struct gate_tsg {
	struct tsg t;
	int fd;			/* the owner's RM file, borrowed for the gate alone */
	bool off;		/* what RM was last told */
	bool want;		/* what it should be now */
	bool dead;		/* RM no longer knows it: skipped, dropped by prune */
	/* be-off channels: its client's subdevice and its channels (0: not yet seen) */
	__u32 subdev;
	int nch, looks;		/* looks: times its channels were looked for */
	__u32 ch[GATE_TSG_CHANNELS];
};

struct gate {
	struct gate_opts o;
	struct gpuctl_hint_page *page;
	pthread_t thr;
	bool thr_running;
	pthread_mutex_t mu;	/* v, n, stats */
	struct gate_tsg *v;
	int n, cap;
	int stop;		/* atomic */
	__u32 wake;		/* futex word to wait on without a hint page */
	__u32 rot_pid;		/* be-rotate: the BE process on the runlist */
	__u64 rot_next_ns;	/* when the next one's turn comes */
	struct gate_stats st;
	double lat[GATE_LAT_SAMPLES];	/* µs of each "all BE off" */
	unsigned int nlat;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static __u32 *wait_word(struct gate *g)
{
	return g->page ? &g->page->busy : &g->wake;
}

static void hint_wake(struct gate *g)
{
	syscall(SYS_futex, wait_word(g), FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* One GPFIFO_SCHEDULE on e; a TSG RM no longer knows is marked dead. */
/*
 * be-off channels: the TSG's channels.  A TSG is reported when allocated,
 * before its channels are: prune looks again every second until it has some.
 */
static void gate_find_channels(struct gate_tsg *e)
{
	int n;

	e->looks++;
	n = rm_tsg_channels(e->fd, e->t.info.hClient, e->t.info.hTsg, &e->subdev, e->ch,
				GATE_TSG_CHANNELS);

	e->nch = n > 0 && e->subdev ? n : 0;
}

/* e is to be brought to off; be-off channels: once its channels are known. */
static bool gate_pending(const struct gate *g, const struct gate_tsg *e, bool off)
{
	return !e->dead && e->want == off && e->off != off &&
	       (g->o.be_off == GATE_OFF_SCHEDULE || e->nch);
}

/* What RM answered for the entries of one call. */
static void gate_result(struct gate *g, struct gate_tsg **es, int n, bool off, int ret,
			__u32 status, const char *what)
{
	for (int i = 0; i < n; i++) {
		if (!ret && !status) {
			es[i]->off = off;
			continue;
		}
		if (ret || status == NV_ERR_INVALID_OBJECT_HANDLE ||
		    status == NV_ERR_INVALID_CLIENT || status == NV_ERR_OBJECT_NOT_FOUND)
			es[i]->dead = true;
	}
	if (!ret && !status)
		return;
	g->st.errors++;
	if (g->st.errors <= 3 && !ret)
		p_info("TSG %u (pid %u): %s %s: RM status 0x%x %s", es[0]->t.info.id,
		       es[0]->t.info.pid, what, off ? "off" : "on", status, rm_status_name(status));
}

/*
 * One call for entry i, brought to off.  be-off channels: every entry of
 * the same client wanting the same goes into the same DISABLE_CHANNELS
 * (a call costs ~0.15 ms through GSP; one per process, not per TSG).
 */
static void gate_set(struct gate *g, int i, bool off)
{
	struct gate_tsg *e = &g->v[i], *es[RM_DISABLE_CHANNELS_MAX];
	__u32 ch[RM_DISABLE_CHANNELS_MAX], status = 0;
	int n = 0, nes = 0, ret;

	if (g->o.be_off == GATE_OFF_SCHEDULE) {
		struct a06c_schedule p = { .bEnable = !off };

		ret = rm_control(e->fd, e->t.info.hClient, e->t.info.hTsg,
				 NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &p, sizeof(p), &status);
		gate_result(g, &e, 1, off, ret, status, "GPFIFO_SCHEDULE");
		return;
	}
	for (int j = i; j < g->n; j++) {
		struct gate_tsg *f = &g->v[j];

		if (f->t.key.pid != e->t.key.pid || f->t.key.hClient != e->t.key.hClient ||
		    !gate_pending(g, f, off) || !f->nch || n + f->nch > RM_DISABLE_CHANNELS_MAX)
			continue;
		memcpy(ch + n, f->ch, f->nch * sizeof(ch[0]));
		n += f->nch;
		es[nes++] = f;
	}
	ret = rm_channels_set(e->fd, e->t.info.hClient, e->subdev, ch, n, off, &status);
	gate_result(g, es, nes, off, ret, status, "DISABLE_CHANNELS");
}

/* Brings every entry to its want, offs first; returns how many calls it took. */
static int gate_commit(struct gate *g)
{
	int calls = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < g->n; i++) {
			if (!gate_pending(g, &g->v[i], !pass))
				continue;
			gate_set(g, i, !pass);
			calls++;
		}
	return calls;
}

/* Every TSG to off; returns how many calls it took. */
static int gate_all(struct gate *g, bool off)
{
	for (int i = 0; i < g->n; i++)
		g->v[i].want = off;
	return gate_commit(g);
}

static bool rot_has(struct gate *g, __u32 pid)
{
	for (int i = 0; i < g->n; i++)
		if (!g->v[i].dead && g->v[i].t.key.pid == pid)
			return true;
	return false;
}

/*
 * be-rotate: the live BE process after rot_pid (by pid, wrapping), 0 when
 * none.  Caller holds mu.
 */
static __u32 rot_after(struct gate *g, __u32 pid)
{
	__u32 next = 0, first = 0;

	for (int i = 0; i < g->n; i++) {
		__u32 p = g->v[i].t.key.pid;

		if (g->v[i].dead)
			continue;
		if (!first || p < first)
			first = p;
		if (p > pid && (!next || p < next))
			next = p;
	}
	return next ? next : first;
}

/*
 * Every TSG to its state: off while LC is busy (lc_off), else on when it
 * is the turn of its process (or no rotation).  Offs go first, so two BE
 * processes are never on together.  Caller holds mu.
 */
static int gate_sync(struct gate *g, bool lc_off, __u64 now)
{
	int calls = 0;

	if (!g->o.rotate_ms)
		return gate_all(g, lc_off);
	/* the turn passes on when it is over, or when its process is gone */
	if (!lc_off && (now >= g->rot_next_ns || !rot_has(g, g->rot_pid))) {
		__u32 next = rot_after(g, g->rot_pid);

		if (next != g->rot_pid && g->rot_pid)
			g->st.rotations++;
		g->rot_pid = next;
		g->rot_next_ns = now + (__u64)g->o.rotate_ms * 1000000ULL;
	}
	for (int i = 0; i < g->n; i++)
		g->v[i].want = lc_off || g->v[i].t.key.pid != g->rot_pid;
	calls = gate_commit(g);
	return calls;
}

static void *gate_thread(void *arg)
{
	struct gate *g = arg;
	__u64 off_since = 0;
	bool forced = false, is_off = false;

	while (!__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE)) {
		__u32 word = __atomic_load_n(wait_word(g), __ATOMIC_ACQUIRE);
		__u32 busy = g->page ? word : 0;	/* be-rotate alone: never busy */
		/* a count gone negative (an end without a begin) is no request */
		bool want = (__s32)busy > 0;
		long wait_ns = GATE_IDLE_WAIT_NS;
		struct timespec to;
		__u64 t0 = now_ns();
		int calls;

		if (!want)
			forced = false;
		if (want && is_off && g->o.hold_ms &&
		    t0 - off_since >= (__u64)g->o.hold_ms * 1000000ULL) {
			forced = true;	/* held too long: BE back on until LC is idle */
			pthread_mutex_lock(&g->mu);
			g->st.forced++;
			pthread_mutex_unlock(&g->mu);
		}
		want = want && !forced;
		pthread_mutex_lock(&g->mu);
		calls = gate_sync(g, want, t0);
		if (calls && want) {
			double us = (now_ns() - t0) / 1e3;

			g->lat[g->nlat++ % GATE_LAT_SAMPLES] = us;
			if (!is_off)
				g->st.offs++;
		}
		g->st.calls += calls;
		pthread_mutex_unlock(&g->mu);
		if (want && !is_off)
			off_since = t0;
		is_off = want;
		if (is_off && g->o.hold_ms) {
			__u64 left = off_since + (__u64)g->o.hold_ms * 1000000ULL - now_ns();

			wait_ns = (__s64)left > 0 ? (long)left : 0;
		}
		if (g->o.rotate_ms && !is_off) {
			__u64 left = g->rot_next_ns - now_ns();

			left = (__s64)left > 0 ? left : 0;
			if ((long)left < wait_ns)
				wait_ns = left;
		}
		to.tv_sec = wait_ns / 1000000000L;
		to.tv_nsec = wait_ns % 1000000000L;
		if (wait_ns)
			syscall(SYS_futex, wait_word(g), FUTEX_WAIT, word, &to, NULL, 0);
	}
	return NULL;
}

/* The hint page at path: created (or a stale one of ours reused), mapped. */
static int hint_page(struct gate *g)
{
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
	/* LC processes of any user write it: who may write it may starve BE (for hold_ms) */
	if (ftruncate(fd, GATE_PAGE_SIZE) || fchmod(fd, g->o.mode)) {
		p_err("hint file %s: %s", g->o.hint, strerror(errno));
		close(fd);
		return -1;
	}
	p = mmap(NULL, GATE_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		p_err("hint file %s: mmap: %s", g->o.hint, strerror(errno));
		return -1;
	}
	g->page = p;
	memset(p, 0, sizeof(*g->page));
	g->page->version = GPUCTL_HINT_VERSION;
	g->page->owner = getpid();
	__atomic_store_n(&g->page->magic, GPUCTL_HINT_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

int gate_start(struct gate **out, const struct gate_opts *o)
{
	struct gate *g = calloc(1, sizeof(*g));

	*out = NULL;
	if (!g) {
		p_err("out of memory");
		return -1;
	}
	g->o = *o;
	pthread_mutex_init(&g->mu, NULL);
	if (o->hint && hint_page(g)) {
		free(g);
		return -1;
	}
	*out = g;
	return 0;
}

/* After the fork of run --detach: the thread belongs to the process that serves. */
int gate_run(struct gate *g)
{
	int err;

	if (g->page)
		g->page->owner = getpid();
	err = pthread_create(&g->thr, NULL, gate_thread, g);
	if (err) {
		p_err("starting the hint gate: %s", strerror(err));
		return -1;
	}
	g->thr_running = true;
	return 0;
}

void gate_add(struct gate *g, const struct tsg *t)
{
	struct gate_tsg *e;
	int fd;

	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < g->n; i++)
		if (!memcmp(&g->v[i].t.key, &t->key, sizeof(t->key)) && !g->v[i].dead)
			goto out;
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 16;
		struct gate_tsg *v = realloc(g->v, cap * sizeof(*v));

		if (!v)
			goto out;
		g->v = v;
		g->cap = cap;
	}
	fd = borrow_fd(t->info.pid, t->info.fd);
	if (fd < 0)
		goto out;
	e = &g->v[g->n++];
	memset(e, 0, sizeof(*e));
	e->t = *t;
	e->fd = fd;
	if (g->o.be_off == GATE_OFF_CHANNELS)
		gate_find_channels(e);
out:
	pthread_mutex_unlock(&g->mu);
	/* a request in flight, or another process's turn, takes it off at once */
	__atomic_add_fetch(&g->wake, 1, __ATOMIC_RELEASE);
	hint_wake(g);
}

/*
 * Entries of processes gone, and of TSGs RM no longer knows, go: their
 * borrowed files would keep a killed process's RM client (and its GPU
 * memory) alive.
 */
void gate_prune(struct gate *g)
{
	int k = 0;

	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < g->n; i++) {
		if (g->v[i].dead || tsg_proc_gone(g->v[i].t.key.pid)) {
			close(g->v[i].fd);
			continue;
		}
		if (g->o.be_off == GATE_OFF_CHANNELS && !g->v[i].nch && g->v[i].looks < 30)
			gate_find_channels(&g->v[i]);
		g->v[k++] = g->v[i];
	}
	g->n = k;
	pthread_mutex_unlock(&g->mu);
}

void gate_drop_client(struct gate *g, __u32 pid, __u32 hClient)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < g->n; i++)
		if (g->v[i].t.key.pid == pid && g->v[i].t.key.hClient == hClient)
			g->v[i].dead = true;
	pthread_mutex_unlock(&g->mu);
	gate_prune(g);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void gate_stop(struct gate *g, struct gate_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!g)
		return;
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELEASE);
	if (g->thr_running) {
		hint_wake(g);
		pthread_join(g->thr, NULL);
	}
	pthread_mutex_lock(&g->mu);
	gate_all(g, false);	/* every BE TSG back on */
	for (int i = 0; i < g->n; i++)
		close(g->v[i].fd);
	*st = g->st;
	st->requests = g->page ? g->page->begins : 0;
	if (g->nlat) {
		unsigned int n = g->nlat < GATE_LAT_SAMPLES ? g->nlat : GATE_LAT_SAMPLES;

		qsort(g->lat, n, sizeof(g->lat[0]), cmp_double);
		st->off_p50_us = g->lat[n / 2];
		st->off_p99_us = g->lat[(unsigned int)(n * 0.99)];
		st->off_max_us = g->lat[n - 1];
	}
	pthread_mutex_unlock(&g->mu);
	if (g->page) {
		__atomic_store_n(&g->page->magic, 0, __ATOMIC_RELEASE);
		munmap(g->page, GATE_PAGE_SIZE);
		unlink(g->o.hint);
	}
	free(g->v);
	free(g);
}

/* In the parent of run --detach: the child serves; nothing to undo here. */
void gate_forget(struct gate *g)
{
	if (!g)
		return;
	if (g->page)
		munmap(g->page, GATE_PAGE_SIZE);
	free(g->v);
	free(g);
}
