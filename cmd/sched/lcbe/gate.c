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
 * this file creates; one thread here waits on its futex word and takes each
 * BE TSG off its runlist (be-off: the TSG, or its channels) through the
 * run's mechanism (mech.h's tsg_runlist; RM's row issues GPFIFO_SCHEDULE or
 * DISABLE_CHANNELS) on the BE process's own RM file, borrowed as for every
 * other control (RM's ownership rule kept).
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
#include "gate_state.h"

const char *const gate_off_names[GATE_OFF_NR] = {
	[GATE_OFF_SCHEDULE] = "schedule",
	[GATE_OFF_CHANNELS] = "channels",
};

/*
 * be-off channels: the TSG's channels.  A TSG is reported when allocated,
 * before its channels are: prune looks again every second until it has some.
 */
static void gate_find_channels(const struct gate *g, struct gate_tsg *e)
{
	int n;

	e->looks++;
	n = g->o.mech->tsg_channels(e->fd, &e->t, &e->subdev, e->ch, GATE_TSG_CHANNELS);

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
	struct mech_runlist rl = { .how = ORIG_SCHEDULE };
	int n = 0, nes = 0, ret;

	if (g->o.be_off == GATE_OFF_SCHEDULE) {
		ret = g->o.mech->tsg_runlist(e->fd, &e->t, !off, &rl, &status);
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
	rl = (struct mech_runlist){ .how = ORIG_CHANNELS, .subdev = e->subdev, .ch = ch, .nch = n };
	ret = g->o.mech->tsg_runlist(e->fd, &e->t, !off, &rl, &status);
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
	if (g->ngpus == GATE_GPUS) {
		/* more GPUs than that: the last ones share one decision, said once */
		if (!g->gpus_cut)
			p_info("GPU %u: past gpuctl's %d GPUs: lc-be decides for it together with "
			       "GPU %u", gpu, GATE_GPUS, g->gpus[GATE_GPUS - 1].gpu);
		g->gpus_cut = true;
		return &g->gpus[GATE_GPUS - 1];
	}
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
 * its duty of the time: GATE_HINT_DUTY, or less as lc-p99 moves it; at most
 * the bound at once); be-rotate: one BE
 * process on at a time, the turn to the one off longest, turns short
 * enough that each comes within the bound; a process whose stall reaches
 * the bound goes on whatever else holds.  Caller holds mu.
 */
static void gpu_decide(struct gate *g, struct gate_gpu *gs, bool busy, __u64 now)
{
	__s64 cap = (__s64)g->o.stall_ms * 1000000LL;
	__u64 dt, turn, min_off = (__u64)g->o.min_off_ms * 1000000ULL;
	double duty = __atomic_load_n(&g->duty_pm, __ATOMIC_RELAXED) / 1000.0;
	bool lc_off, hold, due = false;

	/*
	 * Never a time before the GPU's last (an unsigned wrap here made the
	 * credit hugely negative: the hint never took BE off again).
	 */
	if (now < gs->last_ns)
		now = gs->last_ns;
	dt = now - gs->last_ns;
	gs->last_ns = now;
	if (gs->hint_off)
		gs->credit_ns -= dt;
	else if (duty > 0)	/* lc-p99 may lower the duty (target.c) */
		gs->credit_ns += (__s64)(dt * ((1 - duty) / duty));
	if (gs->credit_ns > cap)
		gs->credit_ns = cap;
	if (gs->recovering && (gs->credit_ns >= cap || !busy))
		gs->recovering = false;
	for (int k = 0; k < g->nprocs; k++)
		if (!g->procs[k].gone && g->procs[k].gpu == gs->gpu && proc_due(g, &g->procs[k], now))
			due = true;	/* its stall ends now: the hint yields, the turn is its */
	/*
	 * Off at once when the LC turns busy; back on no sooner than
	 * hint-min-off, so a flapping writer switches BE at most once per
	 * min_off.  A stretch off begins only with the credit for all of it
	 * (else the credit's end would switch BE as often as the writer).
	 */
	hold = gs->hint_off && now - gs->off_ns < min_off;
	lc_off = (busy || hold) && gs->nlc > 0 && !gs->recovering && !due && duty > 0 &&
		 gs->credit_ns > (__s64)(GATE_GUARD_NS + (gs->hint_off ? 0 : min_off));
	if (gs->hint_off && !lc_off && busy) {
		g->st.forced++;		/* the bound cut the hint short */
		gs->recovering = true;
	}
	if (lc_off && !busy && gs->was_busy)
		g->st.suppressed++;	/* the LC is done, BE stays off: a switch saved */
	gs->was_busy = busy;
	if (lc_off && !gs->hint_off) {
		g->st.offs++;
		gs->off_ns = now;
	}
	if (lc_off != gs->hint_off)
		g->st.switches++;
	gs->hint_off = lc_off;
	if (g->o.rotate_ms && !lc_off) {
		struct gate_proc *cur = proc_of(g, gs->gpu, gs->rot_pid), *next = NULL;

		turn = (__u64)g->o.rotate_ms * 1000000ULL;
		if (gs->nbe > 1 && gate_bound_ns(g) > 2 * GATE_GUARD_NS &&
		    (gate_bound_ns(g) - 2 * GATE_GUARD_NS) / (gs->nbe - 1) < turn)
			turn = (gate_bound_ns(g) - 2 * GATE_GUARD_NS) / (gs->nbe - 1);
		/* a BE process that joined since shortens the turn under way */
		if (gs->rot_next_ns > now + turn)
			gs->rot_next_ns = now + turn;
		if (!cur || now >= gs->rot_next_ns || due) {
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
	__u64 min_off = (__u64)g->o.min_off_ms * 1000000ULL;
	__s64 w = GATE_IDLE_WAIT_NS;

	for (int k = 0; k < g->ngpus; k++) {
		struct gate_gpu *gs = &g->gpus[k];

		if (gs->hint_off && gs->credit_ns - (__s64)GATE_GUARD_NS < w)
			w = gs->credit_ns - (__s64)GATE_GUARD_NS;
		/* hint-min-off ends: BE back on if the LC is done by then */
		if (gs->hint_off && (__s64)(gs->off_ns + min_off - now) > 0 &&
		    (__s64)(gs->off_ns + min_off - now) < w)
			w = gs->off_ns + min_off - now;
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


static void *gate_thread(void *arg)
{
	struct gate *g = arg;

	while (!__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE)) {
		__u32 word = __atomic_load_n(wait_word(g), __ATOMIC_ACQUIRE);
		__u32 busy;
		bool was_off = false, now_off = false;
		struct timespec to;
		__u64 t0;
		long wait_ns;
		int calls;

		pthread_mutex_lock(&g->mu);
		t0 = now_ns();	/* under mu: no TSG, process or GPU joined after it */
		busy = hint_read(g);	/* be-rotate alone: never busy */
		if (busy && !g->busy)
			g->st.busy_turns++;
		g->busy = busy > 0;
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

int gate_start(struct gate **out, const struct gate_opts *o)
{
	struct gate *g = calloc(1, sizeof(*g));

	*out = NULL;
	if (!g) {
		p_err("out of memory");
		return -1;
	}
	g->o = *o;
	__atomic_store_n(&g->duty_pm, (__u32)(GATE_HINT_DUTY * 1000), __ATOMIC_RELAXED);
	if (o->target_us)
		target_init(g);
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

void gate_target_get(struct gate *g, struct gate_target *t)
{
	memset(t, 0, sizeof(*t));
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	*t = g->tgt;
	pthread_mutex_unlock(&g->mu);
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
		gate_find_channels(g, e);
out:
	pthread_mutex_unlock(&g->mu);
	/* a request in flight, or another process's turn, takes it off at once */
	__atomic_add_fetch(&g->wake, 1, __ATOMIC_RELEASE);
	hint_wake(g);
}

int gate_lc_procs(struct gate *g, __u32 gpu, __u32 pid)
{
	bool seen = false;
	int n = 0;

	if (!g)
		return pid ? 1 : 0;
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < g->n; i++) {
		const struct gate_tsg *e = &g->v[i];
		bool first = true;

		if (!e->lc || e->dead || e->gpu != gpu)
			continue;
		for (int j = 0; j < i && first; j++)
			first = !(g->v[j].lc && !g->v[j].dead && g->v[j].gpu == gpu &&
				  g->v[j].t.key.pid == e->t.key.pid);
		if (first) {
			n++;
			seen |= e->t.key.pid == pid;
		}
	}
	pthread_mutex_unlock(&g->mu);
	return n + (pid && !seen);
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
			gate_find_channels(g, &g->v[i]);
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
	*st = g->st;
	st->reported = g->page ? g->page->begins : 0;
	for (int k = 0; k < g->nprocs; k++)
		if (!g->procs[k].gone && g->procs[k].longest_off_ns / 1000000 > st->longest_off_ms)
			st->longest_off_ms = g->procs[k].longest_off_ns / 1000000;
	for (int i = 0; i < g->n; i++)
		if (g->v[i].fd >= 0)
			close(g->v[i].fd);
	if (g->nlat) {
		unsigned int n = g->nlat < GATE_LAT_SAMPLES ? g->nlat : GATE_LAT_SAMPLES;

		qsort(g->lat, n, sizeof(g->lat[0]), cmp_double);
		st->off_p50_us = g->lat[n / 2];
		st->off_p99_us = g->lat[(unsigned int)(n * 0.99)];
		st->off_max_us = g->lat[n - 1];
	}
	pthread_mutex_unlock(&g->mu);
	hint_release(g, true);
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
	hint_release(g, false);
	free(g->v);
	free(g->procs);
	free(g);
}
