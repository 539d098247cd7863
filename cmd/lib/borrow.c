// SPDX-License-Identifier: GPL-2.0
/*
 * borrow.c - a duplicate of another process's file descriptor
 * (pidfd_open + pidfd_getfd), how gpuctl reaches a process's RM client and
 * UVM va_space from outside, and the one errno-to-message map for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gpuctl.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

int pidfd_of(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
}

int borrow_fd_from(int pidfd, int fd)
{
	int dup = syscall(SYS_pidfd_getfd, pidfd, fd, 0);

	return dup < 0 ? -errno : dup;
}

int borrow_fd(pid_t pid, int fd)
{
	int pidfd = pidfd_of(pid), dup;

	if (pidfd < 0)
		return pidfd;
	dup = borrow_fd_from(pidfd, fd);
	close(pidfd);
	return dup;
}

const char *borrow_strerror(int err, pid_t pid, int fd, char *buf, size_t len)
{
	switch (-err) {
	case ESRCH:
		snprintf(buf, len, "no process with pid %d", (int)pid);
		break;
	case EPERM:
	case EACCES:
		snprintf(buf, len, "cannot borrow fd %d of pid %d: %s (needs CAP_SYS_PTRACE "
			 "over the target; run as root)", fd, (int)pid, strerror(-err));
		break;
	case ENOSYS:
		snprintf(buf, len, "pidfd_open()/pidfd_getfd() are missing: Linux 5.6 or later needed");
		break;
	case EBADF:
		snprintf(buf, len, "pid %d has no fd %d (any more)", (int)pid, fd);
		break;
	default:
		snprintf(buf, len, "cannot borrow fd %d of pid %d: %s", fd, (int)pid,
			 strerror(-err));
	}
	return buf;
}
