// SPDX-License-Identifier: GPL-2.0
/*
 * safefile.c - every file gpuctl writes goes through here (see safefile.h):
 * an anonymous (O_TMPFILE) or exclusive temporary file beside the
 * destination, fsync, a random name, a check that the name is still that
 * file, rename.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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

/*
 * A temp name no one can foresee; O_EXCL makes a name taken only a retry.
 * Never a wait for the kernel's random pool: early after boot (a VM) a
 * blocking getrandom held every safefile writer 2 s (sched run's start).
 */
static void random_name(struct safefile *sf, int tries)
{
	struct timespec ts;
	unsigned int r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r ^= (unsigned int)getpid() * 2654435761u + (unsigned int)tries +
		     (unsigned int)ts.tv_nsec;
	}
	snprintf(sf->tmp, sizeof(sf->tmp), ".%.32s.%08x.tmp", sf->base, r);
}

/* random_name's names, read back: .BASE.<8 hex>.tmp */
bool safefile_tmp_of(const char *name, char *base, size_t len)
{
	size_t n = strlen(name);

	if (n < 15 || name[0] != '.' || name[n - 13] != '.' || strcmp(name + n - 4, ".tmp") ||
	    n - 14 >= len)
		return false;
	for (size_t i = n - 12; i < n - 4; i++)
		if (!isxdigit((unsigned char)name[i]))
			return false;
	memcpy(base, name + 1, n - 14);
	base[n - 14] = '\0';
	return true;
}

/*
 * The file to write: an anonymous one (O_TMPFILE; named only at commit),
 * else a fresh random name created exclusively, so that a planted file or
 * link only collides.  A descriptor, or -1 with errno.
 */
static int create_tmp(struct safefile *sf, mode_t mode)
{
	int fd;

	sf->tmp[0] = '\0';
	fd = openat(sf->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	for (int tries = 0; tries < 16; tries++) {
		random_name(sf, tries);
		fd = openat(sf->dirfd, sf->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
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
	fd = create_tmp(sf, mode);
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

/* Gives the open anonymous file (O_TMPFILE) a fresh random name in dirfd: 0 or errno. */
static int link_tmp(struct safefile *sf, int fd)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 16; tries++) {
		random_name(sf, tries);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc works for everyone */
		if (!linkat(fd, "", sf->dirfd, sf->tmp, AT_EMPTY_PATH) ||
		    (errno != EEXIST &&
		     !linkat(AT_FDCWD, proc, sf->dirfd, sf->tmp, AT_SYMLINK_FOLLOW)))
			return 0;
		if (errno != EEXIST)
			break;
	}
	sf->tmp[0] = '\0';
	return errno;
}

/* 1 when name in dirfd is the very file st describes (a regular file), else 0. */
static int is_ours(int dirfd, const char *name, const struct stat *st)
{
	struct stat now;

	return !fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) && S_ISREG(now.st_mode) &&
	       now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/*
 * The directory's owner can rename anything onto the temporary name (and,
 * in a race, onto the output): only gpuctl's own file, checked by device and
 * inode against the open descriptor, is renamed; a link that slipped onto
 * the output in the window between that check and the rename is removed.
 */
static int put_in_place(struct safefile *sf, const struct stat *st)
{
	if (!is_ours(sf->dirfd, sf->tmp, st)) {
		sf->tmp[0] = '\0';	/* not ours: left alone */
		p_err("cannot write %s: its temporary file was replaced while gpuctl wrote it "
		      "(someone else can write the directory)", sf->dest);
		return -1;
	}
	if (renameat(sf->dirfd, sf->tmp, sf->dirfd, sf->base)) {
		p_err("cannot write %s: %s", sf->dest, strerror(errno));
		return -1;
	}
	sf->tmp[0] = '\0';
	if (!is_ours(sf->dirfd, sf->base, st)) {
		struct stat now;

		if (!fstatat(sf->dirfd, sf->base, &now, AT_SYMLINK_NOFOLLOW) &&
		    !S_ISDIR(now.st_mode))
			unlinkat(sf->dirfd, sf->base, 0);
		p_err("cannot write %s: it was replaced while gpuctl wrote it "
		      "(someone else can write the directory)", sf->dest);
		return -1;
	}
	return 0;
}

int safefile_commit(struct safefile *sf)
{
	struct stat st;
	int err = 0;

	if (fflush(sf->f) || ferror(sf->f))
		err = errno ? errno : EIO;
	else if (fsync(fileno(sf->f)) || fstat(fileno(sf->f), &st))
		err = errno;
	else if (!sf->tmp[0])
		err = link_tmp(sf, fileno(sf->f));
	if (fclose(sf->f) && !err)
		err = errno ? errno : EIO;
	sf->f = NULL;
	if (err) {
		p_err("cannot write %s: %s", sf->dest, strerror(err));
		safefile_abort(sf);
		return -1;
	}
	/* what was there may have changed since the open: still only a regular file goes */
	if (check_at(sf->dirfd, sf->base, sf->dest) || put_in_place(sf, &st)) {
		safefile_abort(sf);
		return -1;
	}
	fsync(sf->dirfd);
	sf_free(sf);
	return 0;
}
