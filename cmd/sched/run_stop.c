// SPDX-License-Identifier: GPL-2.0
/*
 * run_stop.c - gpuctl sched stop (and unload): the policy process stopped
 * through its verified pid file (it restores its TSGs itself), then what a
 * killed run left changed restored from the pinned table, and the policy
 * marked inactive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "sched.h"
#include "liveproc.h"

#define STOP_WAIT_MS	5000	/* how long stop waits for the policy process */

static int stop_process(pid_t pid)
{
	pid_t got;
	int err = pidfile_stop(RUN_PIDFILE, SIGTERM, STOP_WAIT_MS, &got);

	if (err == -ETIMEDOUT) {
		p_err("the policy process %d did not stop within %d s", (int)got,
		      STOP_WAIT_MS / 1000);
		return -1;
	}
	if (err) {
		p_err("cannot signal the policy process %d: %s", (int)pid, strerror(-err));
		return -1;
	}
	return 0;
}

int run_stop(const char *dir, bool unloading, struct run_stopped *st)
{
	struct sched s = SCHED_INIT;
	int err;

	memset(st, 0, sizeof(*st));
	st->pid = run_pid();
	if (st->pid && stop_process(st->pid))
		return -1;
	sched_policy_sweep();
	if (!dir)
		return 0;
	err = watcher_open(dir, &s.w);
	if (err == -ENOENT || (err == -EPROTO && unloading))
		return 0;
	if (err == -EPROTO)
		watcher_version_err(dir);
	if (err)
		return -1;
	snprintf(s.dir, sizeof(s.dir), "%s", dir);
	s.rdev = watcher_meta(&s.w, META_RDEV);
	s.any_minor = watcher_meta(&s.w, META_ANY_MINOR);
	run_set_active(&s.w, NULL, false);
	err = run_restore_left(&s, &st->restored, &st->failed);
	sched_close(&s);
	if (err)
		p_err("reading the TSG table: out of memory");
	return err ? -1 : 0;
}
