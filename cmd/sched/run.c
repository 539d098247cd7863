// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - gpuctl sched run: the daemon that applies a policy's decisions.
 *
 * The watcher decides (BPF, at TSG creation); this process applies each
 * decision through the owner's borrowed RM file, applies it again when the
 * application sets its own value back, and on SIGINT/SIGTERM/SIGHUP puts
 * the original values back.  What a policy does besides its rules it does
 * in its hooks (policy.h), which this file calls: it knows no policy, no
 * class.
 *
 * The originals live in the TSG's own entry of the pinned table (orig_*,
 * tsg_watch.h), written before the first change: a run killed with SIGKILL
 * leaves them there, and the next run, stop or unload restores them
 * (run_restore_left; run_stop.c stops a run).  Starting and stopping hold
 * the sched directory's lock, and the pid file says who runs: one policy at
 * a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "sched.h"
#include "sched_gpu.h"
#include "liveproc.h"
#include "tsg_ctl.h"	/* how the watcher recorded an application's control */

#define PRUNE_NS	1000000000ULL
#define MATCH_NS	200000000ULL	/* how often rules whose cgroup may come (pod:) look */

/* What run reports about a TSG, one line (or JSON object) each. */
enum run_ev { EV_APPLIED, EV_REAPPLIED, EV_FAILED, EV_RESTORED, EV_NR };

static const char *const run_ev_names[EV_NR] = {
	[EV_APPLIED] = "applied",
	[EV_REAPPLIED] = "reapplied",
	[EV_FAILED] = "failed",
	[EV_RESTORED] = "restored",
};

struct run {
	struct sched s;
	const struct run_opts *o;
	pid_t me;		/* the policy process: orig_by of what it changed */
	bool draining;		/* events from before this run: not ours */
	const struct sched_policy *p;	/* the policy: its hooks are called with o->self */
	const struct sched_mech *m;	/* how its wishes reach the GPU (mech.h) */
	struct policy rules;	/* o->rules, as rules whose cgroup came or went have it */
	unsigned long applied, reapplied, failed;
};

static void run_event(enum run_ev ev, const struct tsg *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void run_event(enum run_ev ev, const struct tsg *t, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "event", run_ev_names[ev]);
		jsonw_uint_field(json_wtr, "id", t->info.id);
		jsonw_uint_field(json_wtr, "pid", t->info.pid);
		jsonw_string_field(json_wtr, "comm", t->info.comm);
		jsonw_string_field(json_wtr, "class", policy_class_json(t->info.want_class));
		jsonw_string_field(json_wtr, "detail", msg);
		jsonw_end_object(json_wtr);
		jsonw_flush(json_wtr);
	} else {
		printf("%-9s TSG %u (pid %u %s, %s): %s\n", run_ev_names[ev], t->info.id,
		       t->info.pid, t->info.comm, policy_class_name(t->info.want_class), msg);
		fflush(stdout);
	}
}

void run_set_active(struct watcher *w, const struct policy *pol, bool on)
{
	struct policy p = { 0 };
	__u32 zero = 0;

	if (pol)
		p = *pol;
	else
		bpf_map_lookup_elem(w->policy, &zero, &p);
	p.active = on;
	bpf_map_update_elem(w->policy, &zero, &p, BPF_ANY);
}

/* ------------------------------------------------------------- restoring */

struct restore_ctx {
	struct run *r;		/* a run restoring its own TSGs (events), or NULL */
	struct sched *s;
	pid_t by;		/* what this pid changed; 0: what any (killed) run left */
	int restored, failed;
};

/*
 * Puts t's originals back through the mechanism that changed it (the
 * policy's, kept in its entry: a killed run's too); 0, or -1 with err.
 * *ts, *lv: what RM reads back.
 */
static int put_back(struct sched *s, const struct tsg *t, __u64 *ts, __u32 *lv, char *err,
		    size_t len)
{
	const struct sched_mech *m = sched_mech_at(t->info.orig_mech);

	if (m->tsg_restore(s, t, err, len))
		return -1;
	return m->tsg_read(s, t, ts, lv, err, len);
}

static enum tsg_walk restore_entry(const struct tsg_key *key, const struct tsg_info *info,
				   void *arg)
{
	struct restore_ctx *c = arg;
	struct tsg t = { .key = *key, .info = *info };
	struct tsg_info clean;
	const struct tsg_info *i = &t.info;
	char err[320], label[128];
	__u64 ts = 0;
	__u32 lv = 0;
	int rc;

	if (!i->orig_by && (c->by || !i->want_class))
		return TSG_KEEP;
	if (i->orig_by && c->by && i->orig_by != (__u32)c->by)
		return TSG_KEEP;	/* not ours */
	if (tsg_proc_gone(key->pid))
		return TSG_DELETE;
	rc = i->orig_by ? put_back(c->s, &t, &ts, &lv, err, sizeof(err)) : 1;
	/* Whatever happened, the entry no longer says a policy holds it. */
	if (!bpf_map_lookup_elem(c->s->w.tsgs, key, &clean)) {
		clean.want_class = 0;
		clean.want_timeslice = 0;
		clean.want_interleave = 0;
		if (i->orig_flags & ORIG_INTERLEAVE)
			clean.set_interleave = i->orig_interleave + 1;
		clean.orig_timeslice = 0;
		clean.orig_interleave = 0;
		clean.orig_flags = 0;
		clean.orig_by = 0;
		clean.orig_mech = 0;
		bpf_map_update_elem(c->s->w.tsgs, key, &clean, BPF_EXIST);
	}
	if (rc > 0)
		return TSG_KEEP;	/* decided, never changed: nothing to put back */
	if (rc)
		c->failed++;
	else
		c->restored++;
	if (c->r) {
		if (rc) {
			c->r->failed++;
			run_event(EV_FAILED, &t, "restoring: %s", err);
		} else {
			run_event(EV_RESTORED, &t, "timeslice %llu us, interleave %s%s",
				  (unsigned long long)ts, rm_level_name(i->orig_interleave),
				  lv != LEVEL_UNKNOWN ? "" : i->orig_flags & ORIG_LEVEL_KNOWN ?
				  " (not readable back)" :
				  " (assumed: RM cannot report the original)");
		}
		return TSG_KEEP;
	}
	tsg_label(&t, label, sizeof(label));
	if (rc)
		p_info("%s: left changed by policy process %u, which is gone; restoring "
		       "failed: %s", label, i->orig_by, err);
	else
		p_info("%s: left changed by policy process %u, which is gone; restored "
		       "timeslice %llu us, interleave %s", label, i->orig_by,
		       (unsigned long long)ts, rm_level_name(i->orig_interleave));
	return TSG_KEEP;
}

/*
 * What a policy process that is gone left changed: put back, and every
 * decision it left marked cleared.  The caller holds the lock and knows no
 * policy process runs.
 */
int run_restore_left(struct sched *s, int *restored, int *failed)
{
	struct restore_ctx c = { .s = s };
	int err = tsg_table_walk(s->w.tsgs, restore_entry, &c);

	*restored += c.restored;
	*failed += c.failed;
	return err;
}

/* -------------------------------------------------------------- applying */

/*
 * Before the first change to t: its current values into its table entry,
 * where whoever restores finds them even if this process is killed.
 */
static int save_orig(struct run *r, struct tsg *t, __u32 more, char *err, size_t len)
{
	struct tsg_info cur;
	__u64 ts;
	__u32 lv;

	if (r->m->tsg_read(&r->s, t, &ts, &lv, err, len))
		return -1;
	if (bpf_map_lookup_elem(r->s.w.tsgs, &t->key, &cur)) {
		snprintf(err, len, "the TSG was freed meanwhile");
		return -1;
	}
	cur.orig_timeslice = ts;
	cur.orig_interleave = level_fallback(lv, &cur);
	cur.orig_flags = (t->info.want_timeslice ? ORIG_TIMESLICE : 0) |
			 (t->info.want_interleave ? ORIG_INTERLEAVE : 0) |
			 (lv != LEVEL_UNKNOWN ? ORIG_LEVEL_KNOWN : 0) | more;
	cur.orig_by = r->me;
	cur.orig_mech = sched_mech_index(r->m);
	if (bpf_map_update_elem(r->s.w.tsgs, &t->key, &cur, BPF_EXIST)) {
		snprintf(err, len, "saving its original values in the TSG table: %s",
			 strerror(errno));
		return -1;
	}
	t->info.orig_timeslice = cur.orig_timeslice;
	t->info.orig_interleave = cur.orig_interleave;
	t->info.orig_flags = cur.orig_flags;
	t->info.orig_by = cur.orig_by;
	t->info.orig_mech = cur.orig_mech;
	return 0;
}

/* Records t's class and decision in the table (for list). */
static void tsg_mark(struct run *r, const struct tsg *t)
{
	struct tsg_info info;

	if (bpf_map_lookup_elem(r->s.w.tsgs, &t->key, &info))
		return;
	info.want_class = t->info.want_class;
	info.want_timeslice = t->info.want_timeslice;
	info.want_interleave = t->info.want_interleave;
	if (t->info.want_interleave)
		info.set_interleave = t->info.want_interleave;
	bpf_map_update_elem(r->s.w.tsgs, &t->key, &info, BPF_EXIST);
}

static void apply_failed(struct run *r, const struct tsg *t, const char *what, const char *err)
{
	r->failed++;
	run_event(EV_FAILED, t, "%s%s", what, err);
}

/*
 * The GPU t runs on, by index (RM through its process's file, remembered):
 * a policy may decide per GPU.  One RM cannot name counts as GPU 0.
 */
static __u32 gpu_index(const struct gpu_info *g)
{
	return g ? (__u32)g->index : 0;
}

static __u32 run_tsg_gpu(struct run *r, const struct tsg *t)
{
	return gpu_index(tsg_gpu(&r->s, t));
}

static void run_apply(struct run *r, struct tsg *t, bool again);

/* The policy's adjust hook on t (for GPU gpu): the ORIG_* flags it may change besides. */
static __u32 run_adjust(struct run *r, struct tsg *t, __u32 gpu)
{
	return SCHED_HOOK(r->p, adjust) ? r->p->hooks->adjust(r->o->self, t, gpu) : 0;
}

/*
 * The policy says its wanted values changed (a hook returned true): the TSGs
 * this run set on GPU gpu (gpu < 0: on every GPU) whose adjusted values
 * differ from those applied get them.
 */
static void readjust(struct run *r, int gpu)
{
	struct tsg *v = NULL;
	int n = 0;

	if (!SCHED_HOOK(r->p, adjust) || tsg_read(&r->s, &v, &n))
		return;
	for (int i = 0; i < n; i++) {
		struct tsg t = v[i];
		__u32 g;

		if (v[i].info.orig_by != (__u32)r->me || !v[i].info.want_class)
			continue;
		g = run_tsg_gpu(r, &v[i]);
		if (gpu >= 0 && g != (__u32)gpu)
			continue;
		run_adjust(r, &t, g);
		if (t.info.want_timeslice != v[i].info.want_timeslice ||
		    t.info.want_interleave != v[i].info.want_interleave)
			run_apply(r, &v[i], true);
	}
	free(v);
}

/* Applies t's decision; the first time, saves the original values first. */
static void run_apply(struct run *r, struct tsg *t, bool again)
{
	struct tsg_info cur;
	__u64 rts = 0;
	const struct gpu_info *gi;
	__u32 rlv = 0, gpu, more;
	char err[320], ts[32] = "unchanged";

	if (!t->info.want_class || bpf_map_lookup_elem(r->s.w.tsgs, &t->key, &cur))
		return;	/* no decision, or freed since */
	gi = tsg_gpu(&r->s, t);
	if (r->o->gpu && gi != r->o->gpu)
		return;	/* run --gpu: a policy for one GPU, the others' TSGs left as they are */
	gpu = gpu_index(gi);
	more = run_adjust(r, t, gpu);
	if (!t->info.want_class)
		return;	/* the policy leaves it alone (another mechanism orders it) */
	if (cur.orig_by == (__u32)r->me) {
		t->info.orig_timeslice = cur.orig_timeslice;
		t->info.orig_interleave = cur.orig_interleave;
		t->info.orig_flags = cur.orig_flags;
		t->info.orig_by = cur.orig_by;
		t->info.orig_mech = cur.orig_mech;
	} else if (save_orig(r, t, more, err, sizeof(err))) {
		apply_failed(r, t, "", err);
		return;
	}
	if (r->m->tsg_apply(&r->s, t, err, sizeof(err)))
		return apply_failed(r, t, "", err);
	if (r->m->tsg_read(&r->s, t, &rts, &rlv, err, sizeof(err)))
		return apply_failed(r, t, "read back: ", err);
	tsg_mark(r, t);
	if (again)
		r->reapplied++;
	else
		r->applied++;
	if (t->info.want_timeslice)
		snprintf(ts, sizeof(ts), "%llu us", (unsigned long long)t->info.want_timeslice);
	run_event(again ? EV_REAPPLIED : EV_APPLIED, t,
		  "timeslice %llu -> %s, interleave %s -> %s (RM reads back %llu us, %s)",
		  (unsigned long long)t->info.orig_timeslice, ts,
		  t->info.orig_flags & ORIG_LEVEL_KNOWN ?
		  rm_level_name(t->info.orig_interleave) : "n/a",
		  t->info.want_interleave ? rm_level_name(t->info.want_interleave - 1) :
		  "unchanged",
		  (unsigned long long)rts, rlv == LEVEL_UNKNOWN ? "level not readable" :
		  rm_level_name(rlv));
	if (SCHED_HOOK(r->p, applied) && r->p->hooks->applied(r->o->self, t, gpu, again))
		readjust(r, (int)gpu);
}

/* The application set a value itself: put the decision back if it differs. */
static void on_app_set(struct run *r, const struct tsg_event *e, struct tsg *t)
{
	const struct tsg_info *i = &t->info;
	unsigned int watch = tsg_ctl_watch(e->cmd);

	if (bpf_map_lookup_elem(r->s.w.tsgs, &t->key, &t->info) || i->orig_by != (__u32)r->me)
		return;	/* not a TSG this run changed */
	if ((watch == RM_WATCH_TIMESLICE && i->want_timeslice && e->value != i->want_timeslice) ||
	    (watch == RM_WATCH_LEVEL && i->want_interleave && e->value != i->want_interleave - 1))
		run_apply(r, t, true);
}

struct client_ctx {
	__u32 pid, hClient, me;
};

/*
 * A freed client took its TSGs along: this run's entries of it go.  A newer
 * TSG under the same handles replaced its entry (orig_by 0), so it stays.
 */
static enum tsg_walk client_gone(const struct tsg_key *key, const struct tsg_info *info,
				 void *arg)
{
	const struct client_ctx *c = arg;

	return key->pid == c->pid && key->hClient == c->hClient && info->orig_by == c->me ?
	       TSG_DELETE : TSG_KEEP;
}

/*
 * A new TSG, as the watcher decided it at allocation.  The event can be older
 * than a decision this run made since: a pod's cgroup seen between the
 * allocation and this event (rules_refresh) redecided the TSG from the table
 * and applied it.  Then the table's entry is this run's, and the event's
 * decision, by the rules before, is not applied over it.
 */
static void run_new(struct run *r, struct tsg *t)
{
	struct tsg_info cur;

	if (!bpf_map_lookup_elem(r->s.w.tsgs, &t->key, &cur) && cur.orig_by == (__u32)r->me)
		return;
	run_apply(r, t, false);
}

static int run_on_event(void *ctx, void *data, size_t size)
{
	struct run *r = ctx;
	const struct tsg_event *e = data;
	struct tsg t;

	if (size < sizeof(*e) || r->draining)
		return 0;
	t.key.pid = e->info.pid;
	t.key.hClient = e->info.hClient;
	t.key.hTsg = e->info.hTsg;
	t.info = e->info;
	switch (e->type) {
	case TSG_EV_NEW:
		run_new(r, &t);
		break;
	case TSG_EV_APP_SET:
		if (tsg_ctl_watch(e->cmd) != RM_WATCH_COUNT)	/* a preempt sets nothing */
			on_app_set(r, e, &t);
		break;
	case TSG_EV_CLIENT_FREE: {
		struct client_ctx c = { e->info.pid, e->info.hClient, r->me };

		tsg_table_walk(r->s.w.tsgs, client_gone, &c);
		if (SCHED_HOOK(r->p, gone) &&
		    r->p->hooks->gone(r->o->self, e->info.pid, e->info.hClient))
			readjust(r, -1);
		break;
	}
	}
	return 0;
}

/* ------------------------------------------------------------------ life */

/* TSGs already in the table get the same decision now. */
static void apply_existing(struct run *r)
{
	struct tsg *v = NULL;
	int n = 0;

	if (tsg_read(&r->s, &v, &n))
		return;
	for (int i = 0; i < n; i++) {
		/* a decision left by a killed run's policy is not this one's */
		v[i].info.want_class = 0;
		v[i].info.want_timeslice = 0;
		v[i].info.want_interleave = 0;
		policy_decide(&r->rules, &v[i].info);
		run_apply(r, &v[i], false);
	}
	free(v);
}

/*
 * A rule's cgroup came or went (pod:, match.h): the watcher decides by the
 * new rules from now on, and the TSGs already known whose decision changes
 * (a process that allocated before the pod's cgroup was seen) get the new one.
 */
static void rules_refresh(struct run *r)
{
	struct policy now;
	struct tsg *v = NULL;
	char dir[PATH_MAX];
	__u32 zero = 0;
	int n = 0, lock;

	if (!sched_match_refresh(&r->rules))
		return;
	/* the watcher's rules may have more (sched exec's, first): changed there in place */
	lock = sched_lock(false, dir, sizeof(dir), NULL);
	if (bpf_map_lookup_elem(r->s.w.policy, &zero, &now))
		now = r->rules;
	sched_match_copy(&now, &r->rules);
	bpf_map_update_elem(r->s.w.policy, &zero, &now, BPF_ANY);
	if (lock >= 0)
		close(lock);
	if (tsg_read(&r->s, &v, &n))
		return;
	for (int i = 0; i < n; i++)
		if (policy_redecide(&now, &v[i].info))
			run_apply(r, &v[i], false);
	free(v);
}

static void prune_files(struct run *r)
{
	for (int i = 0; i < r->s.nfiles; i++)
		if (r->s.files[i].dup >= 0 && tsg_proc_gone(r->s.files[i].pid))
			sched_files_close(&r->s, r->s.files[i].pid);
	if (SCHED_HOOK(r->p, tick) && r->p->hooks->tick(r->o->self))
		readjust(r, -1);
}

/*
 * A policy may take TSGs off their runlist many times a second (its
 * engaged hook says so): a SIGKILL of this process must not leave them off
 * until the next run, stop or unload.  A watchdog process waits for this one to end and then restores
 * what it left changed (nothing, after a clean stop).  It ignores the
 * signals that stop a run (Ctrl-C reaches the whole process group) and holds
 * no borrowed file.  Only SIGKILL of both leaves BE off: then the next
 * 'sched run', 'stop' or 'unload' puts it back, as for timeslices.
 */
static void watchdog_start(const char *dir, pid_t parent)
{
	struct restore_ctx c = { .by = parent };
	struct pollfd p = { .events = POLLIN };
	struct sched s = SCHED_INIT;
	char d[PATH_MAX];
	pid_t pid;
	int lock;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		p_info("no watchdog (fork: %s): a SIGKILL of this process leaves BE TSGs off "
		       "until the next 'sched stop'", strerror(errno));
	if (pid)
		return;
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "gpuctl-watchdog");
	p.fd = pidfd_of(parent);
	/* no map, lock or borrowed file of the parent's: a BE's client dies with it */
	if (p.fd < 0) {
		close_range(3, ~0U, 0);
	} else {
		if (p.fd > 3)
			close_range(3, p.fd - 1, 0);
		close_range(p.fd + 1, ~0U, 0);
	}
	if (p.fd >= 0 && getppid() == parent)
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
	json_output = false;
	lock = sched_lock(false, d, sizeof(d), NULL);
	if (lock >= 0 && !strcmp(d, dir) && !watcher_open(d, &s.w)) {
		snprintf(s.dir, sizeof(s.dir), "%s", d);
		s.rdev = watcher_meta(&s.w, META_RDEV);
		s.any_minor = watcher_meta(&s.w, META_ANY_MINOR);
		c.s = &s;
		tsg_table_walk(s.w.tsgs, restore_entry, &c);
		/*
		 * The parent has ended, but until its parent reaps it, it is a
		 * zombie that its pid file still names as live.
		 */
		pid_t rp = run_pid();

		if (rp == 0 || rp == parent)
			run_set_active(&s.w, NULL, false);	/* no policy process: none decides */
		sched_close(&s);
	}
	_exit(0);
}

/* The policy process's life after start: apply, poll, restore. */
static int run_loop(struct run *r, struct ring_buffer *rb, int ready_fd)
{
	struct restore_ctx own = { .r = r, .s = &r->s, .by = r->me };
	__u64 last_prune = boottime_ns(), last_match = last_prune;
	pid_t pf;
	int ret;
	char buf[512];

	if (SCHED_HOOK(r->p, engaged) && r->p->hooks->engaged(r->o->self))
		watchdog_start(r->s.dir, r->me);
	if (SCHED_HOOK(r->p, serve) && r->p->hooks->serve(r->o->self))
		return EXIT_FAIL;
	if (json_output)
		jsonw_start_array(json_wtr);
	else
		p_info("policy %s active (%u rules%s); Ctrl-C restores the original values",
		       sched_policy_name(r->p), r->rules.nrules, SCHED_HOOK(r->p, describe) ?
		       r->p->hooks->describe(r->o->self, buf, sizeof(buf)) : "");
	if (SCHED_HOOK(r->p, warning) && r->p->hooks->warning(r->o->self, buf, sizeof(buf)))
		p_info("warning: %s", buf);
	apply_existing(r);
	if (ready_fd >= 0) {
		/* run --detach returns now: the TSGs known are done */
		if (write(ready_fd, "r", 1) < 0)
			p_info("telling the parent: %s", strerror(errno));
		close(ready_fd);
	}
	while (!stop_requested()) {
		int err = ring_buffer__poll(rb, 200);

		if (err < 0 && err != -EINTR) {
			p_err("polling the watcher's ring buffer: %s", strerror(-err));
			break;
		}
		if (boottime_ns() - last_prune > PRUNE_NS) {
			last_prune = boottime_ns();
			prune_files(r);
		}
		if (boottime_ns() - last_match > MATCH_NS) {
			last_match = boottime_ns();
			rules_refresh(r);
		}
	}
	run_set_active(&r->s.w, &r->rules, false);
	ring_buffer__consume(rb);
	if (SCHED_HOOK(r->p, stop))
		r->p->hooks->stop(r->o->self);
	tsg_table_walk(r->s.w.tsgs, restore_entry, &own);
	if (!json_output)
		printf("policy %s stopped: %lu applied, %lu re-applied, %lu failed\n",
		       sched_policy_name(r->p), r->applied, r->reapplied, r->failed);
	ret = SCHED_HOOK(r->p, report) ? r->p->hooks->report(r->o->self) : EXIT_OK;
	if (json_output)
		jsonw_end_array(json_wtr);
	pf = run_pid();
	if (pf == r->me)
		unlink(RUN_PIDFILE);
	return ret;
}

/*
 * Under the lock: the pid file, the watcher (started when none runs), what
 * a killed run left changed put back, the policy written and activated.
 * 0, or -1 after p_err with all of it undone.
 */
static int run_start(struct run *r, const char *dir, int *pidfd, struct ring_buffer **rb)
{
	int restored = 0, failed = 0, err;
	bool started = false, made_run_dir;
	pid_t other = run_pid();

	if (other) {
		p_err("a scheduling policy is already running (pid %d); '%s sched stop' first",
		      (int)other, bin_name);
		return -1;
	}
	/* the pid file of one that is gone, or a zombie's: not a claim (we hold the lock) */
	unlink(RUN_PIDFILE);
	made_run_dir = !mkdir(RUN_DIR, 0755);
	*pidfd = pidfile_claim(RUN_PIDFILE, "a scheduling policy");
	if (*pidfd < 0)
		goto undo_dir;
	if (!watcher_pinned(dir)) {
		if (watcher_pin(dir, rm_device_path(r->o->device)))
			goto undo_pidfile;
		started = true;
	}
	err = watcher_open(dir, &r->s.w);
	if (err == -EPROTO)
		watcher_version_err(dir);
	else if (err == -ENOENT)
		p_err("the watcher's maps under %s cannot be opened", dir);
	if (err)
		goto undo_watcher;
	snprintf(r->s.dir, sizeof(r->s.dir), "%s", dir);
	r->s.rdev = watcher_meta(&r->s.w, META_RDEV);
	r->s.any_minor = watcher_meta(&r->s.w, META_ANY_MINOR);
	if (started)
		p_info("TSG watcher started; TSGs allocated before now are not seen");
	*rb = ring_buffer__new(r->s.w.events, run_on_event, r, NULL);
	if (!*rb) {
		p_err("cannot open the watcher's ring buffer: %s", strerror(errno));
		goto undo_watcher;
	}
	/* A killed run's policy decides no more; what it left changed goes back. */
	run_set_active(&r->s.w, NULL, false);
	r->draining = true;
	ring_buffer__consume(*rb);
	r->draining = false;
	run_restore_left(&r->s, &restored, &failed);
	if (SCHED_HOOK(r->p, start) && r->p->hooks->start(r->o->self, &r->s, &r->rules))
		goto undo_rb;
	if (SCHED_HOOK(r->p, mech))
		r->m = r->p->hooks->mech(r->o->self);	/* the one it chose at start */
	run_set_active(&r->s.w, &r->rules, true);
	return 0;

undo_rb:
	ring_buffer__free(*rb);
	*rb = NULL;

undo_watcher:
	watcher_close(&r->s.w);
	if (started)
		watcher_unpin(dir);
undo_pidfile:
	close(*pidfd);
	*pidfd = -1;
	unlink(RUN_PIDFILE);
undo_dir:
	if (made_run_dir)
		rmdir(RUN_DIR);
	return -1;
}

int run_main(const struct run_opts *o)
{
	struct run r = { .s = SCHED_INIT, .o = o, .p = o->policy,
			 .m = o->policy->mech ? o->policy->mech : sched_mech_default(),
			 .rules = o->rules };
	struct ring_buffer *rb = NULL;
	char dir[PATH_MAX];
	int lock, pidfd = -1, ready[2] = { -1, -1 }, ret = EXIT_FAIL;
	unsigned int made = 0;
	pid_t child = 0;

	if (watcher_dev_check(rm_device_path(o->device)))
		return EXIT_FAIL;
	/*
	 * From here a stop signal ends the run at any point: one that comes
	 * while it starts (its waits are bounded) stops it as soon as it is
	 * up, and one ignored by inheritance (a background job of a shell
	 * without job control) is not lost meanwhile.
	 */
	stop_signals_install();
	lock = sched_lock(true, dir, sizeof(dir), &made);
	if (lock < 0)
		return EXIT_FAIL;
	if (run_start(&r, dir, &pidfd, &rb)) {
		sched_unmake(dir, made);
		close(lock);
		return EXIT_FAIL;
	}
	signal(SIGPIPE, SIG_IGN);
	if (o->detach && pipe(ready)) {
		p_err("pipe: %s", strerror(errno));
		goto undo;
	}
	if (o->detach) {
		child = run_detach_fork();	/* its stderr kept for sched status */
		if (child < 0)
			goto undo;
	}
	if (child > 0) {
		/* The parent reports and leaves; the child owns the policy. */
		close(ready[1]);
		pidfile_write(pidfd, child);
		close(pidfd);
		close(lock);
		ring_buffer__free(rb);
		if (SCHED_HOOK(r.p, forget))
			r.p->hooks->forget(o->self);
		sched_close(&r.s);
		return run_detach_report(o, child, ready[0]);
	}
	close(ready[0]);
	r.me = getpid();
	if (!o->detach)
		pidfile_write(pidfd, r.me);
	close(pidfd);
	close(lock);
	ret = run_loop(&r, rb, ready[1]);
	ring_buffer__free(rb);
	sched_close(&r.s);
	return ret;

undo:
	if (ready[0] >= 0) {
		close(ready[0]);
		close(ready[1]);
	}
	run_set_active(&r.s.w, &r.rules, false);
	ring_buffer__free(rb);
	if (SCHED_HOOK(r.p, stop))
		r.p->hooks->stop(o->self);
	sched_close(&r.s);
	close(pidfd);
	unlink(RUN_PIDFILE);
	close(lock);
	return EXIT_FAIL;
}

/* ------------------------------------------------------------------ stop */

/*
 * SIGTERM to the policy process the pid file names (verified through a
 * pidfd: never a process that reused its pid), then wait for it to be
 * gone: 0, or -1 after p_err.
 */
