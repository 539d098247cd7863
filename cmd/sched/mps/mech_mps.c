// SPDX-License-Identifier: GPL-2.0
/*
 * mech_mps.c - MPS's row in the table of scheduling mechanisms (mech.h).
 *
 * Per client: what a client's environment carries at its start (its
 * server's pipe directory, client priority 1 for BE (lc-p99 may start it
 * at 0, target.c), the active thread
 * percentage and pinned memory limit when asked).  Per server: the
 * daemon's default thread percentage.  Per TSG: a server's TSGs are RM
 * TSGs like any (RM's ops act on them); they carry every client's work,
 * so a timeslice there orders all its clients together against processes
 * outside MPS (bench/results/mps-facts-2026-11-26-h100).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "mpss.h"

#define ENV_MAX	(PATH_MAX + 40)

static int add(char env[][ENV_MAX], int *n, int max, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add(char env[][ENV_MAX], int *n, int max, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n >= max)
		return -1;
	va_start(ap, fmt);
	w = vsnprintf(env[*n], ENV_MAX, fmt, ap);
	va_end(ap);
	if (w < 0 || w >= ENV_MAX)
		return -1;
	(*n)++;
	return 0;
}

int mps_client_env(const struct mps_state *st, __u32 cls, char env[][ENV_MAX], int max)
{
	bool be = cls == POLICY_CLASS_BE;
	__u32 thr = be ? st->be_threads : st->lc_threads;
	int n = 0;

	if (add(env, &n, max, "%s=%s", MPS_CLASS_ENV, policy_class_name(cls)))
		return -1;
	if (strcmp(st->mech, "mps"))
		return n;
	if (add(env, &n, max, "CUDA_MPS_PIPE_DIRECTORY=%s", st->dir) ||
	    add(env, &n, max, "CUDA_MPS_CLIENT_PRIORITY=%u", be ? st->be_priority : 0))
		return -1;
	if (thr && add(env, &n, max, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%u", thr))
		return -1;
	/* the limit for device 0 of what the client sees, in MiB (as MPS spells it) */
	if (be && st->be_mem &&
	    add(env, &n, max, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=%lluM",
		(unsigned long long)((st->be_mem + (1 << 20) - 1) >> 20)))
		return -1;
	return n;
}

bool mps_tsg_is_server(const struct tsg *t)
{
	return !strcmp(t->info.comm, MPS_SERVER_COMM) && mps_is_server((pid_t)t->info.pid);
}

bool mps_tsg_is_mps(const struct mps_state *st, const struct tsg *t)
{
	/* a client's own TSGs carry nothing, whichever mechanism: no RM call on them */
	const char *role = mps_role((pid_t)t->info.pid);

	if (role && !strcmp(role, "client"))
		return true;
	/* a server's carry its clients' work: under tsg they are a TSG as any other */
	return !strcmp(st->mech, "mps") && mps_tsg_is_server(t);
}

/* mech.h's client_env: w's class and limits, for a daemon the run's state names. */
static int mps_env(const struct mech_want *w, char *env[], int max, char *err, size_t len)
{
	static char buf[8][ENV_MAX];
	struct mps_state st;
	int n;

	if (mps_state_read(&st)) {
		snprintf(err, len, "no MPS state: no 'sched run ... mechanism mps' is active");
		return -1;
	}
	if (w->thread_pct)
		st.be_threads = st.lc_threads = w->thread_pct;
	if (w->mem_limit)
		st.be_mem = w->mem_limit;
	n = mps_client_env(&st, w->cls, buf, max < 8 ? max : 8);
	if (n < 0) {
		snprintf(err, len, "the client's environment does not fit");
		return -1;
	}
	for (int i = 0; i < n; i++)
		env[i] = buf[i];
	return n;
}

static int mps_server_set(const struct mech_server *srv, const struct mech_want *w, char *err,
			  size_t len)
{
	struct mps m;
	double pct;

	if (mps_init(&m, srv->dir, err, len))
		return -1;
	return w->thread_pct ? mps_default_threads(&m, (int)w->thread_pct, &pct, err, len) : 0;
}

static int mps_server_restore(const struct mech_server *srv, char *err, size_t len)
{
	struct mps m;
	double pct;

	if (mps_init(&m, srv->dir, err, len))
		return -1;
	return mps_default_threads(&m, 100, &pct, err, len);
}

/* A server's TSGs are RM's: its per-TSG ops act on them. */
static int mps_tsg_apply(struct sched *s, const struct tsg *t, char *err, size_t len)
{
	return sched_mech_rm.tsg_apply(s, t, err, len);
}

static int mps_tsg_restore(struct sched *s, const struct tsg *t, char *err, size_t len)
{
	return sched_mech_rm.tsg_restore(s, t, err, len);
}

static int mps_tsg_runlist(int fd, const struct tsg *t, bool on, const struct mech_runlist *rl,
			   __u32 *status)
{
	return sched_mech_rm.tsg_runlist(fd, t, on, rl, status);
}

static int mps_tsg_channels(int fd, const struct tsg *t, __u32 *subdev, __u32 *ch, int max)
{
	return sched_mech_rm.tsg_channels(fd, t, subdev, ch, max);
}

static bool mps_owns(const struct mech_server *srv, const struct tsg *t)
{
	(void)srv;
	return mps_tsg_is_server(t);
}

const struct sched_mech sched_mech_mps = {
	.name = "mps",
	.acts = MECH_PER_TSG | MECH_PER_CLIENT | MECH_PER_SERVER,
	.tsg_read = tsg_get,
	.tsg_apply = mps_tsg_apply,
	.tsg_restore = mps_tsg_restore,
	.tsg_runlist = mps_tsg_runlist,
	.tsg_channels = mps_tsg_channels,
	.client_env = mps_env,
	.server_set = mps_server_set,
	.server_restore = mps_server_restore,
	.server_owns = mps_owns,
};
