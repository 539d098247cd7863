// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - the run's MPS state file (RUN_MPS, mpss.h): "KEY VALUE" lines,
 * written through safefile (root writes it in /run/gpuctl), read by sched
 * exec, sched status, probe and the next run.  A value is never trusted
 * for more than it says: the daemon's pid is checked against its pipe
 * directory's pid file and the process before anything acts on it.
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

const char *const mps_choice_names[MPS_CHOICE_NR] = {
	[MPS_CHOICE_TSG] = "tsg",
	[MPS_CHOICE_MPS] = "mps",
	[MPS_CHOICE_AUTO] = "auto",
};

int mps_state_write(const struct mps_state *st)
{
	struct safefile sf;

	if (mkdir(RUN_DIR, 0755) && errno != EEXIST) {
		p_err("cannot create %s: %s", RUN_DIR, strerror(errno));
		return -1;
	}
	if (safefile_open(&sf, RUN_MPS, 0644))
		return -1;
	fprintf(sf.f, "mech %s\nwhy %s\ndir %s\ndaemon %d\nstarted %d\nrun %d\n"
		"be_threads %u\nlc_threads %u\nbe_mem %llu\n", st->mech, st->why,
		st->dir[0] ? st->dir : "-", (int)st->daemon, st->started, (int)st->run,
		st->be_threads, st->lc_threads, (unsigned long long)st->be_mem);
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
	return 0;	/* a key of a newer gpuctl: ignored */
}

int mps_state_read(struct mps_state *st)
{
	char line[PATH_MAX + 64];
	struct stat sb;
	FILE *f;
	int fd, bad = 0;

	memset(st, 0, sizeof(*st));
	fd = open(RUN_MPS, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	/* only root's file counts: another user cannot point sched exec anywhere */
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
