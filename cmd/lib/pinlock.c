// SPDX-License-Identifier: GPL-2.0
/*
 * pinlock.c - holding an object's pin directory against other gpuctl
 * commands: pin_dir() and an flock on the directory, good even when another
 * command (an unload) removes the directory while this one waits for it or
 * opens it.  pin_lock() alone cannot tell that case from a real error (it
 * reports ENOENT, and a lock on a removed directory guards nothing): here
 * the lock is taken again on the directory that is there then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuctl.h"

int pin_dir_lock(const char *object, bool create, char *buf, size_t len)
{
	for (;;) {
		struct stat held, now;
		int err = pin_dir(object, create, buf, len), fd;

		if (err)
			return err;
		fd = open(buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue;	/* removed since pin_dir looked */
		if (fd < 0 || flock(fd, LOCK_EX)) {
			err = -errno;
			p_err("cannot lock %s: %s", buf, strerror(-err));
			if (fd >= 0)
				close(fd);
			return err;
		}
		if (!fstat(fd, &held) && !lstat(buf, &now) && held.st_ino == now.st_ino &&
		    held.st_dev == now.st_dev)
			return fd;
		close(fd);	/* removed (or replaced) while we waited */
	}
}
