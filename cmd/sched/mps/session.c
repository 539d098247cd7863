// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - a run's MPS daemon (mpss.h): the mechanism chosen (mps, tsg,
 * or auto with its reason), the daemon started on gpuctl's private pipe
 * directory or adopted from the one mps-dir names (never the default
 * directory, never another user's daemon), and its end: gpuctl quits only
 * a daemon it started, and only once no server has a client left.  A run
 * killed with SIGKILL leaves its state file: the next sched run, stop or
 * unload adopts the daemon or quits it (mps_session_sweep).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "mpss.h"

/* Clients of every server of m's daemon, -1 when it cannot be asked. */
static int count_clients(const struct mps *m, char *err, size_t len)
{
	pid_t srv[MPS_MAX_PIDS], cl[MPS_MAX_PIDS];
	int ns = mps_servers(m, srv, MPS_MAX_PIDS, err, len), total = 0;

	for (int i = 0; i < ns; i++) {
		int n = mps_clients(m, srv[i], cl, MPS_MAX_PIDS, err, len);

		total += n > 0 ? n : 0;	/* a server gone meanwhile has none */
	}
	return ns < 0 ? -1 : total;
}

/* Servers of another user on m's daemon: their count (the first's uid in *uid). */
static int foreign_servers(const struct mps *m, uid_t *uid)
{
	pid_t srv[MPS_MAX_PIDS];
	char err[256];
	int ns = mps_servers(m, srv, MPS_MAX_PIDS, err, sizeof(err)), n = 0;

	for (int i = 0; i < ns; i++) {
		uid_t u = mps_proc_uid(srv[i]);

		if (u != geteuid() && u != (uid_t)-1) {
			if (!n)
				*uid = u;
			n++;
		}
	}
	return n;
}

/* auto falls back to TSG with why; mps refuses with why.  0: fell back, -1: refused. */
static int cannot(const struct mps_opts *o, struct mps_state *st, const char *why)
{
	if (o->choice == MPS_CHOICE_MPS) {
		p_err("mechanism mps: %s", why);
		return -1;
	}
	snprintf(st->mech, sizeof(st->mech), "tsg");
	snprintf(st->why, sizeof(st->why), "auto: %s", why);
	return 0;
}

/*
 * The daemon on o's directory: adopted or started (st->dir, daemon,
 * started); *how says which for the run's first line.
 */
static int daemon_up(const struct mps_opts *o, struct mps_state *st, const struct mps_state *left,
		     const char **how)
{
	const char *dir = o->dir ? o->dir : MPS_GPUCTL_DIR;
	char err[512], why[640];
	struct mps m;
	uid_t uid = 0;
	pid_t pid;

	if (mps_dir_check(dir, !o->dir, err, sizeof(err)) || mps_init(&m, dir, err, sizeof(err)))
		return cannot(o, st, err);
	pid = mps_daemon_pid(&m, &uid);
	if (pid && uid != geteuid()) {
		snprintf(why, sizeof(why), "the MPS daemon on %s (pid %d) runs as uid %u: gpuctl "
			 "adopts only a daemon of its own user", dir, (int)pid, (unsigned int)uid);
		return cannot(o, st, why);
	}
	if (!pid && o->dir) {
		snprintf(why, sizeof(why), "no MPS daemon answers on %s (mps-dir adopts a running "
			 "one; without it gpuctl starts its own)", dir);
		return cannot(o, st, why);
	}
	if (!pid) {
		if (mps_start(&m, err, sizeof(err)))
			return cannot(o, st, err);
		pid = mps_daemon_pid(&m, NULL);
		st->started = true;
		*how = "started by gpuctl";
	} else {
		/* a killed run's daemon stays gpuctl's to quit */
		st->started = left && left->started && left->daemon == pid &&
			      !strcmp(left->dir, m.dir);
		*how = st->started ? "adopted from a run that ended without stopping it; quit at "
				     "the end" : "adopted, left running at the end";
	}
	snprintf(st->dir, sizeof(st->dir), "%s", m.dir);
	st->daemon = pid;
	if (foreign_servers(&m, &uid))
		p_info("warning: the MPS daemon on %s serves uid %u now: root's clients wait until "
		       "that server's clients are gone", m.dir, (unsigned int)uid);
	return 0;
}

int mps_session_start(const struct mps_opts *o, struct mps_state *st, struct sched *s,
		      const struct policy *rules)
{
	struct mps_state left;
	bool have_left;
	char bin[PATH_MAX], err[512];
	const char *how = "";

	memset(st, 0, sizeof(*st));
	st->be_threads = o->be_threads;
	st->be_priority = 1;
	st->lc_threads = o->lc_threads;
	st->be_mem = o->be_mem;
	snprintf(st->mech, sizeof(st->mech), "%s", o->choice == MPS_CHOICE_TSG ? "tsg" : "mps");
	snprintf(st->why, sizeof(st->why), "%s", o->choice == MPS_CHOICE_AUTO ?
		 "auto: MPS can serve (its daemon answers; no rule names another user, a pid "
		 "or a process already running)" : "asked for");
	have_left = !mps_state_read(&left);
	if (o->choice == MPS_CHOICE_AUTO && mps_auto_rules(s, rules, err, sizeof(err))) {
		cannot(o, st, err);	/* auto: TSG, and why */
	} else if (o->choice != MPS_CHOICE_TSG) {
		if (mps_find(bin, sizeof(bin), err, sizeof(err))) {
			if (cannot(o, st, err))
				return -1;
		} else if (daemon_up(o, st, have_left ? &left : NULL, &how)) {
			return -1;
		}
	}
	/* a daemon a killed run started: quit if idle, else its state stays for the next sweep */
	if (have_left && left.started && left.daemon != st->daemon && mps_session_sweep(false) < 0) {
		if (!strcmp(st->mech, "mps")) {
			p_err("the MPS daemon %d a stopped run started on %s still serves clients: "
			      "stop them, or run with mps-dir %s to adopt it", (int)left.daemon,
			      left.dir, left.dir);
			return -1;
		}
		return 0;	/* TSG alone: no state of ours (sched exec then uses TSG rules) */
	}
	st->run = getpid();
	if (mps_state_write(st)) {
		mps_session_stop(st);
		return -1;
	}
	st->file_ours = true;
	if (!strcmp(st->mech, "mps"))
		p_info("mechanism mps: MPS daemon %d on %s (%s); start clients with '%s sched exec "
		       "--class CLASS -- CMD'", (int)st->daemon, st->dir, how, bin_name);
	else if (o->choice == MPS_CHOICE_AUTO)
		p_info("mechanism tsg (%s)", st->why);
	return 0;
}

const struct sched_mech *mps_session_mech(const struct mps_state *st)
{
	return !strcmp(st->mech, "mps") ? &sched_mech_mps : &sched_mech_rm;
}

void mps_session_served(struct mps_state *st, pid_t run)
{
	st->run = run;
	if (st->file_ours)
		mps_state_write(st);
}

/* Quits st's daemon when gpuctl started it and no client is left: 1 quit/gone, -1 left. */
static int quit_if_idle(const struct mps_state *st, bool quiet)
{
	char err[512];
	struct mps m;
	int n;

	if (!st->started || strcmp(st->mech, "mps") || mps_init(&m, st->dir, err, sizeof(err)))
		return 1;
	if (mps_daemon_pid(&m, NULL) != st->daemon)
		return 1;	/* gone already, or another daemon now: not ours */
	n = count_clients(&m, err, sizeof(err));
	if (n > 0) {
		if (!quiet)
			p_info("MPS daemon %d on %s left running: %d client%s connected; the next "
			       "'%s sched stop' quits it once they are gone", (int)st->daemon,
			       st->dir, n, n == 1 ? "" : "s", bin_name);
		return -1;
	}
	if (mps_quit(&m, err, sizeof(err))) {
		if (!quiet)
			p_info("warning: MPS daemon %d on %s did not quit: %s", (int)st->daemon,
			       st->dir, err);
		return -1;
	}
	if (!quiet)
		p_info("MPS daemon %d on %s quit (started by gpuctl, no client left)",
		       (int)st->daemon, st->dir);
	return 1;
}

void mps_session_stop(struct mps_state *st)
{
	struct mps_state cur;

	/* the file is the run's, unless another run took over meanwhile */
	if (!st->file_ours || (!mps_state_read(&cur) && cur.run != st->run && cur.run != getpid()))
		return;
	mps_snap_remove();
	if (quit_if_idle(st, false) < 0) {
		st->run = 0;	/* the next command sweeps */
		mps_state_write(st);
		return;
	}
	mps_state_remove();
}

int mps_session_sweep(bool quiet)
{
	struct mps_state st;
	int r;

	if (mps_state_read(&st))
		return 0;
	if (st.run && st.run != getpid() && run_pid() == st.run)
		return 0;	/* its run still serves */
	r = quit_if_idle(&st, quiet);
	if (r > 0)
		mps_state_remove();
	return r;
}
