// SPDX-License-Identifier: GPL-2.0
/*
 * snap.c - what a run's MPS daemon serves, written once a second by the
 * run (RUN_MPS_SNAP, mpss.h) so that the exporter reads a file and never
 * runs NVIDIA's control program on a scrape.  One line each:
 *
 *   daemon PID PIPE_DIR
 *   server PID UID CLIENTS
 *   client PID SERVER PRIORITY THREADS CLASS COMM
 *
 * THREADS is -1 when the client's environment sets none; CLASS is "-" for
 * a client sched exec did not start; COMM is the rest of the line, as the
 * kernel has it (a newline in it made a '?').
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuctl.h"
#include "safefile.h"
#include "mpss.h"

static void client_line(FILE *f, pid_t pid, pid_t server)
{
	struct mps_client c;

	mps_client_read(pid, &c);
	for (char *p = c.comm; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = '?';
	fprintf(f, "client %d %d %d %d %s %s\n", (int)pid, (int)server, c.priority, c.threads,
		c.cls[0] ? c.cls : "-", c.comm);
}

void mps_snap_write(const struct mps_state *st)
{
	pid_t srv[MPS_MAX_PIDS], cl[MPS_MAX_PIDS];
	struct safefile sf;
	char err[256];
	struct mps m;
	pid_t d;
	int ns;

	if (strcmp(st->mech, "mps") || mps_init(&m, st->dir, err, sizeof(err)))
		return;
	d = mps_daemon_pid(&m, NULL);
	if (safefile_open(&sf, RUN_MPS_SNAP, 0644))
		return;
	if (d) {
		fprintf(sf.f, "daemon %d %s\n", (int)d, st->dir);
		ns = mps_servers(&m, srv, MPS_MAX_PIDS, err, sizeof(err));
		for (int i = 0; i < ns; i++) {
			int nc = mps_clients(&m, srv[i], cl, MPS_MAX_PIDS, err, sizeof(err));

			nc = nc < 0 ? 0 : nc;
			fprintf(sf.f, "server %d %u %d\n", (int)srv[i], (unsigned int)mps_proc_uid(srv[i]),
				nc);
			for (int k = 0; k < nc; k++)
				client_line(sf.f, cl[k], srv[i]);
		}
	}
	safefile_commit(&sf);
}

void mps_snap_remove(void)
{
	unlink(RUN_MPS_SNAP);
}

int mps_snap_read(struct mps_snap *s)
{
	char line[512];
	struct stat sb;
	FILE *f;
	int fd;

	memset(s, 0, sizeof(*s));
	fd = open(RUN_MPS_SNAP, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != 0 ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		int pid, a, b, c, d, off = 0;
		char cls[16];

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "daemon %d %n", &pid, &off) == 1 && off) {
			s->daemon = pid;
			snprintf(s->dir, sizeof(s->dir), "%s", line + off);
		} else if (sscanf(line, "server %d %d %d", &pid, &a, &b) == 3 &&
			   s->nservers < MPS_SNAP_MAX) {
			s->servers[s->nservers].pid = pid;
			s->servers[s->nservers].uid = (uid_t)a;
			s->servers[s->nservers++].clients = b;
		} else if (sscanf(line, "client %d %d %d %d %15s %n", &pid, &a, &c, &d, cls, &off) == 5 &&
			   off && s->nclients < MPS_SNAP_MAX) {
			struct mps_snap_client *k = &s->clients[s->nclients++];

			k->pid = pid;
			k->server = a;
			k->priority = c;
			k->threads = d;
			snprintf(k->cls, sizeof(k->cls), "%s", strcmp(cls, "-") ? cls : "");
			snprintf(k->comm, sizeof(k->comm), "%s", line + off);
		}
		(void)b;
	}
	fclose(f);
	return 0;
}
