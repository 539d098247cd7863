// SPDX-License-Identifier: GPL-2.0
/*
 * safefile.c - every file gpuctl writes goes through here (see safefile.h):
 * exclusive temporary file beside the destination, fsync, rename.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuctl.h"
#include "safefile.h"

static const char *kind_of(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* 0: absent or regular; -1 after p_err. */
static int check_at(int dirfd, const char *base, const char *shown)
{
	struct stat st;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		p_err("cannot write %s: %s", shown, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		p_err("refusing to write %s: it is %s; gpuctl replaces only regular files",
		      shown, kind_of(st.st_mode));
		return -1;
	}
	return 0;
}

int safefile_check(const char *path)
{
	return check_at(AT_FDCWD, path, path);
}

static void sf_free(struct safefile *sf)
{
	if (sf->f)
		fclose(sf->f);
	if (sf->dirfd >= 0)
		close(sf->dirfd);
	free(sf->dest);
	free(sf->base);
	memset(sf, 0, sizeof(*sf));
	sf->dirfd = -1;
}

int safefile_open(struct safefile *sf, const char *path, mode_t mode)
{
	const char *slash;
	char *dir;
	int fd = -1;

	memset(sf, 0, sizeof(*sf));
	sf->dirfd = -1;
	if (!*path || path[strlen(path) - 1] == '/') {
		p_err("refusing to write %s: it names a directory", *path ? path : "''");
		return -1;
	}
	slash = strrchr(path, '/');
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	sf->dest = strdup(path);
	sf->base = strdup(slash ? slash + 1 : path);
	if (!dir || !sf->dest || !sf->base) {
		free(dir);
		sf_free(sf);
		p_err("out of memory");
		return -1;
	}
	sf->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sf->dirfd < 0) {
		p_err("cannot write %s: directory %s: %s", path, dir, strerror(errno));
		free(dir);
		sf_free(sf);
		return -1;
	}
	free(dir);
	if (!strcmp(sf->base, ".") || !strcmp(sf->base, "..")) {
		p_err("refusing to write %s: it is a directory; gpuctl replaces only regular files",
		      path);
		sf_free(sf);
		return -1;
	}
	if (check_at(sf->dirfd, sf->base, path)) {
		sf_free(sf);
		return -1;
	}
	/* A fresh random name, created exclusively: a planted file or link only collides. */
	for (int tries = 0; tries < 16 && fd < 0; tries++) {
		unsigned int r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r ^= (unsigned int)getpid() * 2654435761u + (unsigned int)tries;
		snprintf(sf->tmp, sizeof(sf->tmp), ".%.32s.%08x.tmp", sf->base, r);
		fd = openat(sf->dirfd, sf->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		p_err("cannot write %s: creating a temporary file beside it: %s", path,
		      strerror(errno));
		sf->tmp[0] = '\0';
		sf_free(sf);
		return -1;
	}
	sf->f = fdopen(fd, "w");
	if (!sf->f) {
		close(fd);
		safefile_abort(sf);
		p_err("out of memory");
		return -1;
	}
	return 0;
}

void safefile_abort(struct safefile *sf)
{
	if (sf->f) {
		fclose(sf->f);
		sf->f = NULL;
	}
	if (sf->dirfd >= 0 && sf->tmp[0])
		unlinkat(sf->dirfd, sf->tmp, 0);
	sf->tmp[0] = '\0';
	sf_free(sf);
}

int safefile_commit(struct safefile *sf)
{
	int err = 0;

	if (fflush(sf->f) || ferror(sf->f))
		err = errno ? errno : EIO;
	else if (fsync(fileno(sf->f)))
		err = errno;
	if (fclose(sf->f) && !err)
		err = errno ? errno : EIO;
	sf->f = NULL;
	if (err) {
		p_err("cannot write %s: %s", sf->dest, strerror(err));
		safefile_abort(sf);
		return -1;
	}
	/* what was there may have changed since the open: still only a regular file goes */
	if (check_at(sf->dirfd, sf->base, sf->dest)) {
		safefile_abort(sf);
		return -1;
	}
	if (renameat(sf->dirfd, sf->tmp, sf->dirfd, sf->base)) {
		p_err("cannot write %s: %s", sf->dest, strerror(errno));
		safefile_abort(sf);
		return -1;
	}
	sf->tmp[0] = '\0';
	fsync(sf->dirfd);
	sf_free(sf);
	return 0;
}
