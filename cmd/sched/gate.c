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
#include <signal.h>
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
#define GATE_GUARD_NS		5000000ULL	/* a stall's end is planned this early (calls take ~1 ms) */
#define GATE_SHARE_NS		1000000000ULL	/* the share file is written every second */
#define GATE_BUSY_MAX		65536		/* more LC requests in flight: garbage */

const char *const gate_off_names[GATE_OFF_NR] = {
	[GATE_OFF_SCHEDULE] = "schedule",
	[GATE_OFF_CHANNELS] = "channels",
};

#define GATE_TSG_CHANNELS	32

struct gate_tsg {
	struct tsg t;
	int fd;			/* the owner's RM file, borrowed for the gate alone */
	bool lc;		/* an LC TSG: never touched, says its GPU has an LC */
	bool off;		/* what RM was last told */
	bool want;		/* what it should be now */
	bool dead;		/* RM no longer knows it: skipped, dropped by prune */
	__u32 gpu;		/* the GPU it runs on (tsg_gpu) */
	/* be-off channels: its client's subdevice and its channels (0: not yet seen) */
	__u32 subdev;
	int nch, looks;		/* looks: times its channels were looked for */
	__u32 ch[GATE_TSG_CHANNELS];
};

/* A BE process on one GPU: what the floor is kept for (its TSGs go on and off together). */
struct gate_proc {
	__u32 gpu, pid;
	char comm[TSG_COMM_LEN];
	bool on, gone;
	__u64 joined_ns, last_ns, on_ns;
	__u64 off_since;	/* when it last went off (valid while !on) */
	__u64 longest_off_ns;
};

/* Each GPU decides alone: an LC on one never holds BE off another. */
struct gate_gpu {
	__u32 gpu;
	int nlc, nbe;		/* LC processes, BE processes on it now */
	__u32 rot_pid;		/* be-rotate: the BE process whose turn it is */
	__u64 rot_next_ns;	/* when the next one's turn comes */
	__s64 credit_ns;	/* how much longer the hint may keep BE off */
	bool hint_off;		/* BE off for the hint now */
	bool recovering;	/* the hint was cut short: BE on until the credit is full */
	__u64 last_ns;
};
#define GATE_GPUS	16

struct gate {
	struct gate_opts o;
	bool engaged;		/* hint or be-rotate: the gate may take BE off */
	struct gpuctl_hint_page *page;
	int hint_fd;		/* kept open: a truncated file is put right */
	pthread_t thr;
	bool thr_running;
	pthread_mutex_t mu;	/* v, n, procs, gpus, stats */
	struct gate_tsg *v;
	int n, cap;
	struct gate_proc *procs;
	int nprocs, procs_cap;
	struct gate_gpu gpus[GATE_GPUS];
	int ngpus;
	int stop;		/* atomic */
	__u32 wake;		/* futex word to wait on without a hint page */
	__u64 share_next_ns;
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
	g->page->version = GPUCTL_HINT_VERSION;
	g->page->owner = getpid();
	__atomic_store_n(&g->page->magic, GPUCTL_HINT_MAGIC, __ATOMIC_RELEASE);
}

/*
 * Before each look at the page: a file cut short (or a page the handler
 * replaced) is made whole and mapped again; a header overwritten is written
 * again.  Returns the busy count to believe: garbage (negative, huge) is 0.
 */
static __u32 hint_read(struct gate *g)
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

static __u32 *wait_word(struct gate *g)
{
	return g->page && !hint_damaged ? &g->page->busy : &g->wake;
}

static void hint_wake(struct gate *g)
{
	syscall(SYS_futex, wait_word(g), FUTEX_WAKE, 1, NULL, NULL, 0);
}

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
	return !e->dead && !e->lc && e->want == off && e->off != off &&
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

/*
 * Brings every entry to its want, offs first (two BE processes are never on
 * together by rotation); returns how many calls it took.
 */
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

static struct gate_gpu *gpu_state(struct gate *g, __u32 gpu)
{
	for (int i = 0; i < g->ngpus; i++)
		if (g->gpus[i].gpu == gpu)
			return &g->gpus[i];
	if (g->ngpus == GATE_GPUS)
		return &g->gpus[GATE_GPUS - 1];	/* more GPUs than that: the last ones share */
	memset(&g->gpus[g->ngpus], 0, sizeof(g->gpus[0]));
	g->gpus[g->ngpus].gpu = gpu;
	g->gpus[g->ngpus].credit_ns = (__s64)g->o.stall_ms * 1000000LL;
	g->gpus[g->ngpus].last_ns = now_ns();
	return &g->gpus[g->ngpus++];
}

static struct gate_proc *proc_of(struct gate *g, __u32 gpu, __u32 pid)
{
	for (int i = 0; i < g->nprocs; i++)
		if (g->procs[i].gpu == gpu && g->procs[i].pid == pid && !g->procs[i].gone)
			return &g->procs[i];
	return NULL;
}

/*
 * The ledger: each BE process's time on (its TSGs on their runlist) and its
 * longest time off, from what RM was told.  Caller holds mu.
 */
static void gate_account(struct gate *g, __u64 now)
{
	for (int k = 0; k < g->nprocs; k++) {
		struct gate_proc *p = &g->procs[k];
		bool on = false, any = false;

		if (p->gone)
			continue;
		for (int i = 0; i < g->n; i++) {
			struct gate_tsg *e = &g->v[i];

			if (e->lc || e->dead || e->gpu != p->gpu || e->t.key.pid != p->pid)
				continue;
			any = true;
			on |= !e->off;
		}
		if (!any) {
			p->gone = true;
			continue;
		}
		if (p->on)
			p->on_ns += now - p->last_ns;
		if (!p->on && now - p->off_since > p->longest_off_ns)
			p->longest_off_ns = now - p->off_since;
		if (p->on && !on)
			p->off_since = now;
		p->on = on;
		p->last_ns = now;
	}
	for (int k = 0; k < g->ngpus; k++)
		g->gpus[k].nlc = g->gpus[k].nbe = 0;
	for (int k = 0; k < g->nprocs; k++)
		if (!g->procs[k].gone)
			gpu_state(g, g->procs[k].gpu)->nbe++;
	/* LC processes per GPU (TSGs of one process counted once) */
	for (int i = 0; i < g->n; i++) {
		bool first = true;

		if (!g->v[i].lc || g->v[i].dead)
			continue;
		for (int j = 0; j < i && first; j++)
			first = !(g->v[j].lc && !g->v[j].dead && g->v[j].gpu == g->v[i].gpu &&
				  g->v[j].t.key.pid == g->v[i].t.key.pid);
		if (first)
			gpu_state(g, g->v[i].gpu)->nlc++;
	}
}

/* The longest any one stretch off may last. */
static __u64 gate_bound_ns(const struct gate *g)
{
	__u64 b = (__u64)g->o.stall_ms * 1000000ULL;

	if (g->o.hold_ms && (__u64)g->o.hold_ms * 1000000ULL < b)
		b = (__u64)g->o.hold_ms * 1000000ULL;
	return b;
}

/* A BE process of gs that must go on now, or soon: its stall's end is near. */
static bool proc_due(const struct gate *g, const struct gate_proc *p, __u64 now)
{
	__u64 b = gate_bound_ns(g);

	return !p->on && now + GATE_GUARD_NS >= p->off_since + (b > GATE_GUARD_NS ? b : 0);
}

/*
 * One GPU's BE processes to their state.  Off for the hint only while the
 * GPU has an LC process and the credit lasts (the hint keeps BE off at most
 * GATE_HINT_DUTY of the time, at most the bound at once); be-rotate: one BE
 * process on at a time, the turn to the one off longest, turns short
 * enough that each comes within the bound; a process whose stall reaches
 * the bound goes on whatever else holds.  Caller holds mu.
 */
static void gpu_decide(struct gate *g, struct gate_gpu *gs, bool busy, __u64 now)
{
	__s64 cap = (__s64)g->o.stall_ms * 1000000LL;
	__u64 dt = now - gs->last_ns, turn;
	bool lc_off, due = false;

	gs->last_ns = now;
	if (gs->hint_off)
		gs->credit_ns -= dt;
	else
		gs->credit_ns += (__s64)(dt * ((1 - GATE_HINT_DUTY) / GATE_HINT_DUTY));
	if (gs->credit_ns > cap)
		gs->credit_ns = cap;
	if (gs->recovering && (gs->credit_ns >= cap || !busy))
		gs->recovering = false;
	for (int k = 0; k < g->nprocs; k++)
		if (!g->procs[k].gone && g->procs[k].gpu == gs->gpu && proc_due(g, &g->procs[k], now) &&
		    (!g->o.rotate_ms || gs->nbe < 2 || gs->hint_off))
			due = true;
	lc_off = busy && gs->nlc > 0 && !gs->recovering && !due &&
		 gs->credit_ns > (__s64)GATE_GUARD_NS;
	if (gs->hint_off && !lc_off && busy) {
		g->st.forced++;		/* the bound cut the hint short */
		gs->recovering = true;
	}
	if (lc_off && !gs->hint_off)
		g->st.offs++;
	gs->hint_off = lc_off;
	if (g->o.rotate_ms && !lc_off) {
		struct gate_proc *cur = proc_of(g, gs->gpu, gs->rot_pid), *next = NULL;

		turn = (__u64)g->o.rotate_ms * 1000000ULL;
		if (gs->nbe > 1 && gate_bound_ns(g) > 2 * GATE_GUARD_NS &&
		    (gate_bound_ns(g) - 2 * GATE_GUARD_NS) / (gs->nbe - 1) < turn)
			turn = (gate_bound_ns(g) - 2 * GATE_GUARD_NS) / (gs->nbe - 1);
		if (!cur || now >= gs->rot_next_ns) {
			for (int k = 0; k < g->nprocs; k++) {
				struct gate_proc *p = &g->procs[k];

				if (p->gone || p->gpu != gs->gpu || (p == cur && gs->nbe > 1))
					continue;
				if (!next || (!p->on && (next->on || p->off_since < next->off_since)))
					next = p;
			}
			if (next && cur && next != cur)
				g->st.rotations++;
			gs->rot_pid = next ? next->pid : 0;
			gs->rot_next_ns = now + turn;
		}
	}
	for (int i = 0; i < g->n; i++) {
		struct gate_tsg *e = &g->v[i];
		struct gate_proc *p;

		if (e->lc || e->gpu != gs->gpu)
			continue;
		p = proc_of(g, e->gpu, e->t.key.pid);
		e->want = lc_off || (g->o.rotate_ms && e->t.key.pid != gs->rot_pid);
		if (p && proc_due(g, p, now))
			e->want = false;
	}
}

/* When the gate must look again at the latest: a stall's end, a turn, the credit. */
static long gate_next_ns(struct gate *g, __u64 now)
{
	__s64 w = GATE_IDLE_WAIT_NS;

	for (int k = 0; k < g->ngpus; k++) {
		struct gate_gpu *gs = &g->gpus[k];

		if (gs->hint_off && gs->credit_ns - (__s64)GATE_GUARD_NS < w)
			w = gs->credit_ns - (__s64)GATE_GUARD_NS;
		if (g->o.rotate_ms && !gs->hint_off && (__s64)(gs->rot_next_ns - now) < w)
			w = gs->rot_next_ns - now;
	}
	for (int k = 0; k < g->nprocs; k++) {
		struct gate_proc *p = &g->procs[k];
		__s64 left = (__s64)(p->off_since + gate_bound_ns(g) - GATE_GUARD_NS - now);

		if (!p->gone && !p->on && left < w)
			w = left;
	}
	if ((__s64)(g->share_next_ns - now) < w)
		w = g->share_next_ns - now;
	return w > 0 ? (long)w : 0;
}

static void gate_share(struct gate *g, __u64 now);

static void *gate_thread(void *arg)
{
	struct gate *g = arg;

	while (!__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE)) {
		__u32 word = __atomic_load_n(wait_word(g), __ATOMIC_ACQUIRE);
		__u32 busy;
		bool was_off = false, now_off = false;
		struct timespec to;
		__u64 t0 = now_ns();
		long wait_ns;
		int calls;

		pthread_mutex_lock(&g->mu);
		busy = hint_read(g);	/* be-rotate alone: never busy */
		gate_account(g, t0);
		for (int k = 0; k < g->ngpus; k++) {
			was_off |= g->gpus[k].hint_off;
			gpu_decide(g, &g->gpus[k], busy > 0, t0);
			now_off |= g->gpus[k].hint_off;
		}
		calls = gate_commit(g);
		if (calls && now_off && !was_off)
			g->lat[g->nlat++ % GATE_LAT_SAMPLES] = (now_ns() - t0) / 1e3;
		g->st.calls += calls;
		gate_account(g, now_ns());
		if (now_ns() >= g->share_next_ns) {
			gate_share(g, now_ns());
			g->share_next_ns = now_ns() + GATE_SHARE_NS;
		}
		wait_ns = gate_next_ns(g, now_ns());
		pthread_mutex_unlock(&g->mu);
		to.tv_sec = wait_ns / 1000000000L;
		to.tv_nsec = wait_ns % 1000000000L;
		if (wait_ns)
			syscall(SYS_futex, wait_word(g), FUTEX_WAIT, word, &to, NULL, 0);
	}
	return NULL;
}

/* ------------------------------------------------------------- the ledger */

/*
 * A BE process's share while an LC is busy, reckoned by construction: the
 * time its TSGs were on (measured) times what RM gives a BE TSG between
 * two LC timeslices, divided among the BE processes on at once.
 */
static void proc_share(const struct gate *g, const struct gate_proc *p, __u64 now,
		       struct gate_share_row *r)
{
	const struct gate_gpu *gs = NULL;
	double life = (now - p->joined_ns) / 1e9, rm = 1.0;
	int k;

	for (int i = 0; i < g->ngpus; i++)
		if (g->gpus[i].gpu == p->gpu)
			gs = &g->gpus[i];
	k = gs && gs->nbe ? gs->nbe : 1;
	if (g->o.rotate_ms)
		k = 1;
	if (gs && gs->nlc)
		rm = (double)g->o.be_ts / (g->o.be_ts + (double)gs->nlc * g->o.lc_ts);
	memset(r, 0, sizeof(*r));
	r->gpu = p->gpu;
	r->pid = p->pid;
	snprintf(r->comm, sizeof(r->comm), "%s", p->comm);
	r->on_pct = life > 0 ? 100.0 * (p->on_ns / 1e9) / life : 100.0;
	if (r->on_pct > 100)
		r->on_pct = 100;
	r->share_pct = r->on_pct * rm / k;
	r->floor_pct = gs && gs->nbe ? (double)g->o.floor_pct / gs->nbe : g->o.floor_pct;
	r->longest_off_ms = (p->on ? p->longest_off_ns :
			     (now - p->off_since > p->longest_off_ns ? now - p->off_since :
			      p->longest_off_ns)) / 1e6;
	/* on, it still waits for the LC's timeslices and the other BE's on at once */
	r->rm_wait_ms = gs ? ((double)gs->nlc * g->o.lc_ts + (k - 1) * (double)g->o.be_ts) / 1e3 : 0;
	r->stall_ms = r->longest_off_ms + r->rm_wait_ms;
	r->age_s = life;
	/* 2 % for rounding */
	r->kept = r->share_pct >= r->floor_pct * 0.98;
	r->stall_kept = r->longest_off_ms <= g->o.stall_ms + 2 * GATE_GUARD_NS / 1e6;
}

/* The share file sched status and the exporter read. Caller holds mu. */
static void gate_share(struct gate *g, __u64 now)
{
	struct gate_share_row rows[64];
	int n = 0;

	for (int k = 0; k < g->nprocs && n < 64; k++)
		if (!g->procs[k].gone)
			proc_share(g, &g->procs[k], now, &rows[n++]);
	share_write(&g->o, rows, n);
}

/* The hint page at path: created (or a stale one of ours reused), mapped. */
static int hint_page(struct gate *g)
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
	memset(p, 0, sizeof(*g->page));
	hint_header(g);
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
	g->hint_fd = -1;
	g->engaged = o->hint || o->rotate_ms;
	pthread_mutex_init(&g->mu, NULL);
	if (o->hint && hint_page(g)) {
		free(g);
		return -1;
	}
	*out = g;
	return 0;
}

bool gate_engaged(const struct gate *g)
{
	return g && g->engaged;
}

/* After the fork of run --detach: the thread belongs to the process that serves. */
int gate_run(struct gate *g)
{
	int err;

	if (g->page)
		g->page->owner = getpid();
	g->share_next_ns = now_ns() + GATE_SHARE_NS;
	err = pthread_create(&g->thr, NULL, gate_thread, g);
	if (err) {
		p_err("starting the hint gate: %s", strerror(err));
		return -1;
	}
	g->thr_running = true;
	return 0;
}

void gate_add(struct gate *g, const struct tsg *t, __u32 gpu)
{
	bool lc = t->info.want_class == POLICY_CLASS_LC;
	struct gate_tsg *e;
	int fd = -1;

	if (!g || (!lc && t->info.want_class != POLICY_CLASS_BE))
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
	if (!lc && !proc_of(g, gpu, t->info.pid)) {
		struct gate_proc *p;

		if (g->nprocs == g->procs_cap) {
			int cap = g->procs_cap ? 2 * g->procs_cap : 16;
			struct gate_proc *v = realloc(g->procs, cap * sizeof(*v));

			if (!v)
				goto out;
			g->procs = v;
			g->procs_cap = cap;
		}
		p = &g->procs[g->nprocs++];
		memset(p, 0, sizeof(*p));
		p->gpu = gpu;
		p->pid = t->info.pid;
		snprintf(p->comm, sizeof(p->comm), "%s", t->info.comm);
		p->on = true;
		p->joined_ns = p->last_ns = now_ns();
	}
	if (!lc && g->engaged) {
		fd = borrow_fd(t->info.pid, t->info.fd);
		if (fd < 0)
			goto out;
	}
	e = &g->v[g->n++];
	memset(e, 0, sizeof(*e));
	e->t = *t;
	e->fd = fd;
	e->lc = lc;
	e->gpu = gpu;
	gpu_state(g, e->gpu);
	if (!lc && g->engaged && g->o.be_off == GATE_OFF_CHANNELS)
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
			if (g->v[i].fd >= 0)
				close(g->v[i].fd);
			continue;
		}
		if (g->engaged && !g->v[i].lc && g->o.be_off == GATE_OFF_CHANNELS &&
		    !g->v[i].nch && g->v[i].looks < 30)
			gate_find_channels(&g->v[i]);
		g->v[k++] = g->v[i];
	}
	g->n = k;
	gate_account(g, now_ns());
	k = 0;
	for (int i = 0; i < g->nprocs; i++)
		if (!g->procs[i].gone)
			g->procs[k++] = g->procs[i];
	g->nprocs = k;
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
	hint_read(g);		/* a page cut short is made whole before the last writes */
	gate_all(g, false);	/* every BE TSG back on */
	gate_account(g, now_ns());
	for (int k = 0; k < g->nprocs; k++)
		if (!g->procs[k].gone && g->procs[k].longest_off_ns / 1000000 > st->longest_off_ms)
			st->longest_off_ms = g->procs[k].longest_off_ns / 1000000;
	for (int i = 0; i < g->n; i++)
		if (g->v[i].fd >= 0)
			close(g->v[i].fd);
	st->requests = g->page ? g->page->begins : 0;
	st->offs = g->st.offs;
	st->calls = g->st.calls;
	st->forced = g->st.forced;
	st->errors = g->st.errors;
	st->rotations = g->st.rotations;
	st->hint_repairs = g->st.hint_repairs;
	st->hint_garbage = g->st.hint_garbage;
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
		hint_addr = NULL;
		munmap(g->page, GATE_PAGE_SIZE);
		close(g->hint_fd);
		unlink(g->o.hint);
	}
	if (g->thr_running)
		share_remove();
	free(g->v);
	free(g->procs);
	free(g);
}

/* In the parent of run --detach: the child serves; nothing to undo here. */
void gate_forget(struct gate *g)
{
	if (!g)
		return;
	if (g->page) {
		hint_addr = NULL;
		munmap(g->page, GATE_PAGE_SIZE);
		close(g->hint_fd);
	}
	free(g->v);
	free(g->procs);
	free(g);
}
