// SPDX-License-Identifier: GPL-2.0
/*
 * snap.c - what a run's MPS daemon serves, taken once a second by the run
 * (mpss.h) and written to RUN_MPS_SNAP (cmd/tsgw/mpsfile.c) so that the
 * exporter reads a file and never runs NVIDIA's control program on a
 * scrape.  A client's name with a newline in it is written with a '?'.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "mpss.h"

/* Returns true when the client was started in class lc (sched exec --class lc). */
static bool take_client(struct mps_snap *s, pid_t pid, pid_t server)
{
	struct mps_snap_client *k;
	struct mps_client c;

	mps_client_read(pid, &c);
	if (s->nclients >= MPS_SNAP_MAX)
		return !strcmp(c.cls, policy_class_name(POLICY_CLASS_LC));
	k = &s->clients[s->nclients++];
	k->pid = pid;
	k->server = server;
	k->priority = c.priority;
	k->threads = c.threads;
	snprintf(k->cls, sizeof(k->cls), "%s", c.cls);
	snprintf(k->comm, sizeof(k->comm), "%s", c.comm);
	for (char *p = k->comm; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = '?';
	return !strcmp(c.cls, policy_class_name(POLICY_CLASS_LC));
}

int mps_snap_write(const struct mps_state *st)
{
	static struct mps_snap s;
	pid_t srv[MPS_MAX_PIDS], cl[MPS_MAX_PIDS];
	char err[256];
	struct mps m;
	int ns, others = 0;

	if (strcmp(st->mech, "mps"))
		return 0;
	if (mps_init(&m, st->dir, err, sizeof(err)))
		return -1;
	memset(&s, 0, sizeof(s));
	s.daemon = mps_daemon_pid(&m, NULL);
	snprintf(s.dir, sizeof(s.dir), "%s", st->dir);
	ns = s.daemon ? mps_servers(&m, srv, MPS_MAX_PIDS, err, sizeof(err)) : 0;
	if (ns < 0)
		others = -1;
	for (int i = 0; i < ns && s.nservers < MPS_SNAP_MAX; i++) {
		int nc = mps_clients(&m, srv[i], cl, MPS_MAX_PIDS, err, sizeof(err));

		if (nc < 0)
			others = -1;
		nc = nc < 0 ? 0 : nc;
		s.servers[s.nservers].pid = srv[i];
		s.servers[s.nservers].uid = mps_proc_uid(srv[i]);
		s.servers[s.nservers++].clients = nc;
		for (int k = 0; k < nc; k++)
			if (!take_client(&s, cl[k], srv[i]) && others >= 0)
				others++;
	}
	mps_snap_file_write(&s);
	return others;
}
