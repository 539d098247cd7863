// SPDX-License-Identifier: GPL-2.0
/*
 * trustfile.c - reading a file gpuctl will load as root's kernel code
 * (trustfile.h): one open, the checks on that open file and its real path,
 * the bytes read once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuctl.h"
#include "trustfile.h"

/* Whether uid is root, this process's user or the user who ran sudo. */
static bool trusted_uid(uid_t uid)
{
	const char *s = getenv("SUDO_UID");
	char *end;
	unsigned long v;

	if (uid == 0 || uid == geteuid())
		return true;
	if (getuid() != 0 || !s || !*s)
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	return !errno && !*end && v == (unsigned long)uid;
}

/* Why the directory at path lets another user replace its entries: NULL when it does not. */
static const char *dir_untrusted(const char *path, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st))
		return snprintf(why, len, "cannot check directory %s: %s", path, strerror(errno)), why;
	if (!S_ISDIR(st.st_mode))
		return snprintf(why, len, "%s changed while it was read", path), why;
	if (!trusted_uid(st.st_uid))
		return snprintf(why, len, "its directory %s is owned by uid %u, who could replace it",
				path, (unsigned int)st.st_uid), why;
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		return snprintf(why, len, "its directory %s is writable by other users (mode %04o) "
				"without the sticky bit", path, (unsigned int)(st.st_mode & 07777)), why;
	return NULL;
}

/* Checks the open file fd, its owner, mode and every directory of its real path. */
static const char *file_untrusted(int fd, const struct stat *st, char *why, size_t len)
{
	char link[64], real[PATH_MAX];
	ssize_t n;

	if (!S_ISREG(st->st_mode))
		return snprintf(why, len, "it is not a regular file (%s)",
				S_ISDIR(st->st_mode) ? "a directory" : S_ISFIFO(st->st_mode) ? "a FIFO" :
				S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device" :
				S_ISSOCK(st->st_mode) ? "a socket" : "another kind of file"), why;
	if (!trusted_uid(st->st_uid))
		return snprintf(why, len, "it is owned by uid %u, not root or the user who runs gpuctl "
				"(copy it: 'cp FILE my.o')", (unsigned int)st->st_uid), why;
	if (st->st_mode & 022)
		return snprintf(why, len, "other users can write it (mode %04o; 'chmod go-w' it)",
				(unsigned int)(st->st_mode & 07777)), why;
	if ((size_t)st->st_size > TRUST_FILE_MAX)
		return snprintf(why, len, "it is larger than %u MiB", TRUST_FILE_MAX >> 20), why;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0)
		return snprintf(why, len, "cannot find its directory: %s", strerror(errno)), why;
	real[n] = '\0';
	if (real[0] != '/' || strstr(real, " (deleted)"))
		return snprintf(why, len, "it was removed or moved while it was read"), why;
	/* every directory from the file's own up to the root */
	for (char *slash = strrchr(real, '/'); slash; slash = strrchr(real, '/')) {
		const char *bad;

		*slash = '\0';
		bad = dir_untrusted(real[0] ? real : "/", why, len);
		if (bad || slash == real)
			return bad;
	}
	return NULL;
}

static int read_all(int fd, struct trusted_file *tf)
{
	size_t cap = 64 << 10;
	char *buf = malloc(cap + 1);
	ssize_t n;

	tf->size = 0;
	while (buf) {
		if (tf->size == cap) {
			char *more = cap >= TRUST_FILE_MAX ? NULL : realloc(buf, cap * 2 + 1);

			if (!more) {
				free(buf);
				return -EFBIG;
			}
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + tf->size, cap - tf->size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0) {
			buf[tf->size] = '\0';
			tf->data = buf;
			return 0;
		}
		tf->size += (size_t)n;
	}
	return -ENOMEM;
}

int trust_file_read(const char *path, struct trusted_file *tf, bool quiet)
{
	char why[PATH_MAX + 128];
	struct stat st;
	const char *bad;
	int fd, err;

	tf->data = NULL;
	tf->size = 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (!quiet)
			p_err("cannot open %s: %s", path, errno == ELOOP ?
			      "it is a symbolic link (gpuctl does not follow one: name its target)" :
			      strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		err = errno;
		close(fd);
		if (!quiet)
			p_err("cannot read %s: %s", path, strerror(err));
		return -1;
	}
	bad = file_untrusted(fd, &st, why, sizeof(why));
	if (bad) {
		close(fd);
		if (!quiet)
			p_err("refusing %s: %s", path, bad);
		return -1;
	}
	err = read_all(fd, tf);
	close(fd);
	if (err) {
		if (!quiet)
			p_err("cannot read %s: %s", path, err == -EFBIG ? "it is too large" : strerror(-err));
		return -1;
	}
	return 0;
}

void trust_file_free(struct trusted_file *tf)
{
	free(tf->data);
	tf->data = NULL;
	tf->size = 0;
}
