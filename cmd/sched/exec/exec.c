// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - gpuctl sched exec --class CLASS [--gpu GPU] -- CMD: starts CMD
 * in a class of the running policy, through the run's mechanism (its MPS
 * state file, mpss.h):
 *
 *   mps  CMD becomes a client of the run's MPS daemon: its environment
 *        carries the pipe directory, client priority (1 for be, 0 for lc),
 *        the thread percentage and pinned memory limit the run was given.
 *   tsg  a rule "pid:CMD's pid gets CLASS" goes first in the running
 *        policy (rules_pid.c) before CMD runs, and out again once it ends.
 *
 * Nothing is set before CMD is found: a program that does not exist is one
 * Error line and exit status 127 (126: found but not executable), as
 * env(1) says it.  Otherwise the exit status is CMD's own (128 + N when
 * killed by signal N); SIGINT/SIGTERM/SIGHUP to gpuctl reach CMD.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuctl.h"
#include "gpus.h"
#include "sched/sched.h"
#include "sched/mps/mpss.h"
#include "exec.h"

struct exec_opts {
	__u32 cls;
	const char *gpu;
	char **argv;		/* CMD */
};

static int parse(int argc, char **argv, struct exec_opts *o)
{
	memset(o, 0, sizeof(*o));
	while (argc > 0 && strcmp(argv[0], "--")) {
		if (!strcmp(argv[0], "--class") && argc > 1) {
			if (!strcmp(argv[1], "lc"))
				o->cls = POLICY_CLASS_LC;
			else if (!strcmp(argv[1], "be"))
				o->cls = POLICY_CLASS_BE;
			else
				return usage_err("invalid class '%s': lc or be", argv[1]);
		} else if (!strcmp(argv[0], "--gpu") && argc > 1) {
			o->gpu = argv[1];
		} else if (!strcmp(argv[0], "--class") || !strcmp(argv[0], "--gpu")) {
			return usage_err("%s needs a value", argv[0]);
		} else {
			return usage_err("unexpected argument '%s' (the program goes after '--')",
					 argv[0]);
		}
		argc -= 2;
		argv += 2;
	}
	if (!o->cls)
		return usage_err("'sched exec' needs --class lc or --class be");
	if (argc < 2)
		return usage_err("'sched exec' needs a program: -- CMD [ARGS]");
	o->argv = argv + 1;
	return 0;
}

/* CMD found on $PATH (or as a path) and executable: 0, else 126/127 after p_err. */
static int findable(const char *cmd)
{
	char cand[PATH_MAX];
	const char *path = getenv("PATH");
	int seen_eacces = 0;

	if (strchr(cmd, '/')) {
		if (!access(cmd, X_OK))
			return 0;
		p_err("cannot run '%s': %s", cmd, strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchrnul(p, ':');
		struct stat st;

		snprintf(cand, sizeof(cand), "%.*s/%s", e > p ? (int)(e - p) : 1,
			 e > p ? p : ".", cmd);
		if (!stat(cand, &st) && S_ISREG(st.st_mode)) {
			if (!access(cand, X_OK))
				return 0;
			seen_eacces = 1;
		}
		p = *e ? e + 1 : e;
	}
	p_err("cannot run '%s': %s", cmd, seen_eacces ? "Permission denied" :
	      "No such file or directory (not on $PATH)");
	return seen_eacces ? 126 : 127;
}

/* The environment of an MPS client of st, for CMD alone (gpuctl is no client). */
static int mps_env(const struct mps_state *st, __u32 cls, char env[][PATH_MAX + 40], char **ptrs)
{
	char err[512];
	struct mps m;
	uid_t uid = 0;
	int n;

	if (mps_init(&m, st->dir, err, sizeof(err))) {
		p_err("%s", err);
		return -1;
	}
	if (mps_daemon_pid(&m, &uid) != st->daemon || !st->daemon) {
		p_err("the run's MPS daemon on %s is gone: '%s sched stop', then run the policy "
		      "again", st->dir, bin_name);
		return -1;
	}
	if (uid != geteuid()) {
		p_err("the MPS daemon on %s serves uid %u: a process of uid %u would wait until "
		      "its clients end (run it as that user, or the policy with mechanism tsg)",
		      st->dir, (unsigned int)uid, (unsigned int)geteuid());
		return -1;
	}
	n = mps_client_env(st, cls, env, 8);
	if (n < 0) {
		p_err("the MPS client's environment does not fit");
		return -1;
	}
	for (int i = 0; i < n; i++)
		ptrs[i] = env[i];
	ptrs[n] = NULL;
	return 0;
}

/* Runs w to its end, passing stop signals on: CMD's exit status. */
static int wait_cmd(struct workload *w)
{
	stop_signals_install();
	while (!workload_wait(w, 200))
		if (stop_requested()) {
			workload_end(w, true);	/* SIGTERM to our own child, reaped */
			break;
		}
	return workload_status(w);
}

static int run_tsg(const struct exec_opts *o, struct workload *w, char **env)
{
	char dir[PATH_MAX];
	struct sched s = SCHED_INIT;
	int lock, st;

	lock = sched_lock(false, dir, sizeof(dir), NULL);
	if (lock < 0) {
		if (lock == -ENOENT)
			p_err("the TSG watcher is not running: '%s sched run' starts it", bin_name);
		return EXIT_FAIL;
	}
	if (sched_open(&s)) {
		close(lock);
		return EXIT_FAIL;
	}
	if (workload_spawn_env(w, o->argv, env, false)) {
		sched_close(&s);
		close(lock);
		return EXIT_FAIL;
	}
	if (policy_rule_pid_add(&s.w, w->pid, o->cls)) {
		workload_end(w, false);	/* held: never runs */
		sched_close(&s);
		close(lock);
		return EXIT_FAIL;
	}
	close(lock);
	if (workload_release(w)) {
		policy_rule_pid_del(&s.w, w->pid ? w->pid : 0);
		sched_close(&s);
		return 127;
	}
	st = wait_cmd(w);
	lock = sched_lock(false, dir, sizeof(dir), NULL);
	policy_rule_pid_del(&s.w, w->child ? w->child : w->pid);
	if (lock >= 0)
		close(lock);
	sched_close(&s);
	return st;
}

int sched_exec_main(int argc, char **argv)
{
	static char env[10][PATH_MAX + 40];
	char *ptrs[11] = { NULL };
	struct exec_opts o;
	struct mps_state st;
	struct workload w;
	int err, n = 0;

	err = parse(argc, argv, &o);
	if (err)
		return err;
	if (!run_pid()) {
		p_err("no scheduling policy runs: '%s sched run POLICY ...' first", bin_name);
		return EXIT_FAIL;
	}
	err = findable(o.argv[0]);
	if (err)
		return err;
	if (o.gpu) {
		const struct gpu_info *g = gpu_option(o.gpu);

		if (!g)
			return EXIT_USAGE;
		snprintf(env[n++], sizeof(env[0]), "CUDA_VISIBLE_DEVICES=%s", g->uuid_str);
	}
	err = mps_state_read(&st);
	if (err == -EINVAL) {
		p_err("%s cannot be read: '%s sched stop', then run the policy again", RUN_MPS,
		      bin_name);
		return EXIT_FAIL;
	}
	for (int i = 0; i < n; i++)
		ptrs[i] = env[i];
	/* a state a stopped run left (its daemon still has clients) is not this run's */
	if (!err && !strcmp(st.mech, "mps") && st.run == run_pid()) {
		if (mps_env(&st, o.cls, env + n, ptrs + n))
			return EXIT_FAIL;
		if (workload_spawn_env(&w, o.argv, ptrs, false))
			return EXIT_FAIL;
		if (workload_release(&w))
			return 127;
		return wait_cmd(&w);
	}
	snprintf(env[n], sizeof(env[0]), "%s=%s", MPS_CLASS_ENV, policy_class_name(o.cls));
	ptrs[n] = env[n];
	return run_tsg(&o, &w, ptrs);
}
