// SPDX-License-Identifier: GPL-2.0
/*
 * claim.c - one engine per process, whatever run directory ($GPUCTL_RUN_DIR)
 * or bpffs mount each gpuctl uses: the engine holds an flock on
 * PFE_CLAIM_DIR/<pid>-<start time>.lock, a fixed root-owned directory, for
 * as long as it runs (the file holds the engine's pid, for the refusal).  The process's start time (liveproc.h) keeps a new
 * process that reuses the pid apart; the kernel drops the lock of an engine
 * killed with -9, so a lock is never stale, and the sweep of pinned maps
 * asks it, not a run directory's pid file, whether an engine still runs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuctl.h"
#include "engine.h"
#include "liveproc.h"

static int claim_fd = -1;
static char claim_path[PATH_MAX];

/* PFE_CLAIM_DIR, a directory of root's (or ours) that no one else can write: 0 or -errno. */
static int claim_dir(bool create, bool say)
{
	struct stat st;

	if (create && mkdir(PFE_CLAIM_DIR, 0700) && errno != EEXIST) {
		if (say)
			p_err("cannot create %s: %s", PFE_CLAIM_DIR, strerror(errno));
		return -errno;
	}
	if (lstat(PFE_CLAIM_DIR, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		if (say)
			p_err("%s is not a directory owned by root and writable by it alone", PFE_CLAIM_DIR);
		return -EPERM;
	}
	return 0;
}

static int lock_path(char *buf, size_t len, pid_t target)
{
	unsigned long long start;
	int err = proc_start_time(target, &start);

	if (err)
		return err;
	snprintf(buf, len, "%s/%d-%llu.lock", PFE_CLAIM_DIR, (int)target, start);
	return 0;
}

int pfe_claim(pid_t target)
{
	struct stat a, b;
	char pid[16];
	int fd, err, n;

	if (claim_dir(true, true))
		return -1;
	err = lock_path(claim_path, sizeof(claim_path), target);
	if (err) {
		p_err("cannot read process %d: %s", (int)target, strerror(-err));
		return -1;
	}
	for (;;) {
		fd = open(claim_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			p_err("cannot create %s: %s", claim_path, strerror(errno));
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			char who[16] = "";
			ssize_t n;

			err = errno;
			n = err == EWOULDBLOCK ? pread(fd, who, sizeof(who) - 1, 0) : -1;
			close(fd);
			if (n > 0)
				who[strcspn(who, "\n")] = '\0';
			if (err == EWOULDBLOCK)
				p_err("a prefetch engine on process %d already runs as pid %s (one engine "
				      "per process, whatever its run directory)", (int)target,
				      n > 0 && *who ? who : "?");
			else
				p_err("cannot lock %s: %s", claim_path, strerror(err));
			return -1;
		}
		/* the sweep may have removed the file between open and lock: then again */
		if (!fstat(fd, &a) && !stat(claim_path, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			break;
		close(fd);
	}
	/* the holder's pid, for the refusal of the next one */
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		p_err("cannot write %s: %s", claim_path, strerror(errno));
		unlink(claim_path);
		close(fd);
		return -1;
	}
	claim_fd = fd;
	return 0;
}

void pfe_claim_release(void)
{
	if (claim_fd < 0)
		return;
	unlink(claim_path);	/* while it is held: no one else's */
	close(claim_fd);
	claim_fd = -1;
}

bool pfe_claimed(pid_t target)
{
	char path[PATH_MAX];
	int fd, err;

	if (claim_fd >= 0 && lock_path(path, sizeof(path), target) == 0 && !strcmp(path, claim_path))
		return true;
	err = claim_dir(false, false);
	if (err)
		return err != -ENOENT;	/* cannot tell: as if it runs */
	if (lock_path(path, sizeof(path), target))
		return false;		/* the process is gone */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	err = flock(fd, LOCK_SH | LOCK_NB) ? errno : 0;
	close(fd);
	return err != 0;
}

void pfe_claim_sweep(void)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	if (claim_dir(false, false) || !(d = opendir(PFE_CLAIM_DIR)))
		return;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.' || !strstr(de->d_name, ".lock"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", PFE_CLAIM_DIR, de->d_name);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!flock(fd, LOCK_EX | LOCK_NB))
			unlink(path);	/* no engine holds it */
		close(fd);
	}
	closedir(d);
}
