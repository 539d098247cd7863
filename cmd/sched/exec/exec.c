// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - gpuctl sched exec --class CLASS [--gpu GPU] -- CMD: starts CMD
 * in a class of the running policy, through the run's mechanism (its MPS
 * state file, mpss.h):
 *
 *   mps  CMD becomes a client of the run's MPS daemon: its environment
 *        carries the pipe directory, client priority (0 for lc; 1 for be,
 *        or what lc-p99 set: lcbe/target.c),
 *        the thread percentage and pinned memory limit the run was given.
 *   tsg  a rule "pid:CMD's pid gets CLASS" goes first in the running
 *        policy (rules_pid.c) before CMD runs, and out again once it ends.
 *
 * Nothing is set before CMD is found: a program that does not exist is one
 * Error line and exit status 127 (126: found but not executable), as
 * env(1) says it.  Otherwise the exit status is CMD's own (128 + N when
 * killed by signal N); SIGINT/SIGTERM/SIGHUP to gpuctl reach CMD.
 * gpuctl run --sched CLASS starts its CMD the same way (sched_join_*).
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
#include "opts.h"
#include "gpus.h"
#include "sched/sched.h"
#include "sched/mps/mpss.h"
#include "exec.h"

struct exec_opts {
	int cls_word;		/* --class: index in classes */
	const char *gpu;
	char **argv;		/* CMD */
};

const char *const sched_join_classes[] = { "lc", "be", NULL };

static const struct opt exec_rows[] = {
	{ .name = "class", .kind = OPT_ENUM, .off = offsetof(struct exec_opts, cls_word), .arg = "CLASS",
	  .help = "lc or be: the class CMD runs in", .words = sched_join_classes },
	{ .name = "gpu", .kind = OPT_GPU, .off = offsetof(struct exec_opts, gpu), .arg = "GPU",
	  .help = "the GPU of the run CMD joins (index, UUID or PCI bus id)", .flags = OPT_ONCE },
	{ .name = NULL },
};

const struct optset sched_exec_opts = {
	.object = "sched", .command = "exec", .rows = exec_rows,
	.flags = OPTS_CMD, .cmd_off = offsetof(struct exec_opts, argv),
};

/* 0, EXIT_USAGE after p_err, or -1: -h printed the help. */
static int parse(int argc, char **argv, struct exec_opts *o)
{
	struct opts_result r;

	memset(o, 0, sizeof(*o));
	if (opts_parse(&sched_exec_opts, argc, argv, o, &r))
		return EXIT_USAGE;
	if (r.help)
		return -1;
	if (!opts_seen(&sched_exec_opts, &r, "class"))
		return usage_err("'sched exec' needs --class lc or --class be");
	if (!o->argv)
		return usage_err("'sched exec' needs a program: -- CMD [ARGS]");
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
static int mps_env(const struct mps_state *st, __u32 cls, char env[][SCHED_JOIN_ENV_LEN],
		   char **ptrs)
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

int sched_join_begin(struct sched_join *j, int cls_word, const char *gpu)
{
	struct mps_state st;
	int err, n = 0;

	memset(j, 0, sizeof(*j));
	j->s = (struct sched)SCHED_INIT;
	j->cls = cls_word == 0 ? POLICY_CLASS_LC : POLICY_CLASS_BE;
	if (!run_pid()) {
		p_err("no scheduling policy runs: '%s sched run POLICY ...' first", bin_name);
		return EXIT_FAIL;
	}
	if (gpu) {
		const struct gpu_info *g = gpu_option(gpu);

		if (!g)
			return EXIT_USAGE;
		snprintf(j->env[n++], sizeof(j->env[0]), "CUDA_VISIBLE_DEVICES=%s", g->uuid_str);
	}
	err = mps_state_read(&st);
	if (err == -EINVAL) {
		p_err("%s cannot be read: '%s sched stop', then run the policy again", RUN_MPS,
		      bin_name);
		return EXIT_FAIL;
	}
	for (int i = 0; i < n; i++)
		j->ptrs[i] = j->env[i];
	/* a state a stopped run left (its daemon still has clients) is not this run's */
	if (!err && !strcmp(st.mech, "mps") && st.run == run_pid())
		return mps_env(&st, j->cls, j->env + n, j->ptrs + n) ? EXIT_FAIL : EXIT_OK;
	j->tsg = true;
	snprintf(j->env[n], sizeof(j->env[0]), "%s=%s", MPS_CLASS_ENV, policy_class_name(j->cls));
	j->ptrs[n] = j->env[n];
	j->ptrs[n + 1] = NULL;
	return EXIT_OK;
}

int sched_join_pid(struct sched_join *j, pid_t pid)
{
	char dir[PATH_MAX];
	int lock;

	if (!j->tsg)
		return 0;	/* an MPS client: its environment did it */
	lock = sched_lock(false, dir, sizeof(dir), NULL);
	if (lock < 0) {
		if (lock == -ENOENT)
			p_err("the TSG watcher is not running: '%s sched run' starts it", bin_name);
		return -1;
	}
	if (!j->opened && sched_open(&j->s)) {
		close(lock);
		return -1;
	}
	j->opened = true;
	if (policy_rule_pid_add(&j->s.w, pid, j->cls)) {
		close(lock);
		return -1;
	}
	j->pid = pid;
	close(lock);
	return 0;
}

void sched_join_end(struct sched_join *j)
{
	char dir[PATH_MAX];
	int lock;

	if (j->pid) {
		lock = sched_lock(false, dir, sizeof(dir), NULL);
		policy_rule_pid_del(&j->s.w, j->pid);
		if (lock >= 0)
			close(lock);
		j->pid = 0;
	}
	if (j->opened)
		sched_close(&j->s);
	j->opened = false;
}

int sched_exec_main(int argc, char **argv)
{
	static struct sched_join j;
	struct exec_opts o;
	struct workload w;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err < 0 ? EXIT_OK : err;
	if (!run_pid()) {
		p_err("no scheduling policy runs: '%s sched run POLICY ...' first", bin_name);
		return EXIT_FAIL;
	}
	err = findable(o.argv[0]);
	if (err)
		return err;
	err = sched_join_begin(&j, o.cls_word, o.gpu);
	if (err)
		return err;
	if (workload_spawn_env(&w, o.argv, j.ptrs, false))
		return EXIT_FAIL;
	if (sched_join_pid(&j, w.pid)) {
		workload_end(&w, false);	/* held: never runs */
		sched_join_end(&j);
		return EXIT_FAIL;
	}
	if (workload_release(&w)) {
		sched_join_end(&j);
		return 127;
	}
	err = wait_cmd(&w);
	sched_join_end(&j);
	return err;
}
