// SPDX-License-Identifier: GPL-2.0
/*
 * mpsfile.c - the MPS state and snapshot files of a `sched run ...
 * mechanism mps` (mpsfile.h): written through safefile (root writes them in
 * /run/gpuctl), read by sched exec, sched status, probe, the exporter and
 * the next run.  A value is never trusted for more than it says: the
 * daemon's pid is checked against its pipe directory and the process
 * before anything acts on it.
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
#include "mpsfile.h"

#define RUN_DIR_PATH	"/run/gpuctl"

/*
 * path for reading, when it is root's plain file that no one else can
 * write (another user cannot point sched exec or the exporter anywhere);
 * NULL with *err -ENOENT (none) or -EINVAL.
 */
static FILE *open_root_file(const char *path, int *err)
{
	struct stat sb;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	*err = fd < 0 && errno == ENOENT ? -ENOENT : -EINVAL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != 0 ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

int mps_state_write(const struct mps_state *st)
{
	struct safefile sf;

	if (mkdir(RUN_DIR_PATH, 0755) && errno != EEXIST) {
		p_err("cannot create %s: %s", RUN_DIR_PATH, strerror(errno));
		return -1;
	}
	if (safefile_open(&sf, RUN_MPS, 0644))
		return -1;
	fprintf(sf.f, "mech %s\nwhy %s\ndir %s\ndaemon %d\nstarted %d\nrun %d\n"
		"be_threads %u\nlc_threads %u\nbe_mem %llu\nbe_priority %u\n", st->mech, st->why,
		st->dir[0] ? st->dir : "-", (int)st->daemon, st->started, (int)st->run,
		st->be_threads, st->lc_threads, (unsigned long long)st->be_mem, st->be_priority);
	return safefile_commit(&sf);
}

static int set_field(struct mps_state *st, const char *k, const char *v)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	bool num = *v && !*end;

	if (!strcmp(k, "mech"))
		return snprintf(st->mech, sizeof(st->mech), "%s", v) >= (int)sizeof(st->mech);
	if (!strcmp(k, "why"))
		return snprintf(st->why, sizeof(st->why), "%s", v) < 0;
	if (!strcmp(k, "dir")) {
		if (!strcmp(v, "-"))
			return st->dir[0] = '\0', 0;
		return v[0] != '/' || snprintf(st->dir, sizeof(st->dir), "%s", v) >= (int)sizeof(st->dir);
	}
	if (!num)
		return -1;
	if (!strcmp(k, "daemon"))
		st->daemon = (pid_t)n;
	else if (!strcmp(k, "started"))
		st->started = n != 0;
	else if (!strcmp(k, "run"))
		st->run = (pid_t)n;
	else if (!strcmp(k, "be_threads"))
		st->be_threads = (__u32)n;
	else if (!strcmp(k, "lc_threads"))
		st->lc_threads = (__u32)n;
	else if (!strcmp(k, "be_mem"))
		st->be_mem = n;
	else if (!strcmp(k, "be_priority"))
		st->be_priority = n ? 1 : 0;
	return 0;	/* a key of a newer gpuctl: ignored */
}

int mps_state_read(struct mps_state *st)
{
	char line[PATH_MAX + 64];
	FILE *f;
	int err, bad = 0;

	memset(st, 0, sizeof(*st));
	st->be_priority = 1;	/* a file without the key: BE below the LC, as it always was */
	f = open_root_file(RUN_MPS, &err);
	if (!f)
		return err;
	while (fgets(line, sizeof(line), f)) {
		char *sp, *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		sp = strchr(line, ' ');
		if (!sp) {
			bad = 1;
			continue;
		}
		*sp = '\0';
		bad |= set_field(st, line, sp + 1) != 0;
	}
	fclose(f);
	if (bad || (strcmp(st->mech, "mps") && strcmp(st->mech, "tsg")))
		return -EINVAL;
	return 0;
}

void mps_state_remove(void)
{
	unlink(RUN_MPS);
}

int mps_snap_file_write(const struct mps_snap *s)
{
	struct safefile sf;

	if (safefile_open(&sf, RUN_MPS_SNAP, 0644))
		return -1;
	if (s->daemon) {
		fprintf(sf.f, "daemon %d %s\n", (int)s->daemon, s->dir);
		for (int i = 0; i < s->nservers; i++)
			fprintf(sf.f, "server %d %u %d\n", (int)s->servers[i].pid,
				(unsigned int)s->servers[i].uid, s->servers[i].clients);
		for (int i = 0; i < s->nclients; i++) {
			const struct mps_snap_client *c = &s->clients[i];

			fprintf(sf.f, "client %d %d %d %d %s %s\n", (int)c->pid, (int)c->server,
				c->priority, c->threads, c->cls[0] ? c->cls : "-", c->comm);
		}
	}
	return safefile_commit(&sf);
}

void mps_snap_remove(void)
{
	unlink(RUN_MPS_SNAP);
}

int mps_snap_read(struct mps_snap *s)
{
	char line[512];
	FILE *f;
	int err;

	memset(s, 0, sizeof(*s));
	f = open_root_file(RUN_MPS_SNAP, &err);
	if (!f)
		return err;
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
