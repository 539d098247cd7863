// SPDX-License-Identifier: GPL-2.0
/*
 * liveproc.c - the one live-process check (see liveproc.h): pid files that
 * name a process by pid, start time and boot id; signals through pidfds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gpuctl.h"
#include "liveproc.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

int proc_start_time(pid_t pid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* "PID (COMM) STATE f4 ... f22": COMM may hold anything, ')' included */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	for (int field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (field == 22)
			break;
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
	}
	*start = strtoull(p, NULL, 10);
	return 0;
}

int proc_boot_id(char *buf, size_t len)
{
	ssize_t n;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int proc_exe_id(pid_t pid, unsigned long long *dev, unsigned long long *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st))
		return -errno;
	*dev = (unsigned long long)st.st_dev;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

int pidfile_read(const char *path, struct pidfile_rec *rec)
{
	char buf[192] = "", boot[64] = "", extra[8];
	struct stat st;
	long pid;
	ssize_t n;
	int fd, got;

	memset(rec, 0, sizeof(*rec));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	buf[n] = '\0';
	got = sscanf(buf, "%ld %llu %63s %llu:%llu %7s", &pid, &rec->start, boot, &rec->exe_dev,
		     &rec->exe_ino, extra);
	/* an earlier gpuctl's "PID\n": ours, but it names no process that can be verified */
	if (got == 1 && pid > 0 && pid <= 0x3fffffff && strspn(buf, "0123456789") == (size_t)n - 1 &&
	    buf[n - 1] == '\n') {
		rec->pid = (pid_t)pid;
		rec->start = 0;
		return 1;
	}
	if (got != 5 || pid <= 0 || pid > 0x3fffffff || strlen(boot) >= sizeof(rec->boot) ||
	    buf[n - 1] != '\n')
		return -EINVAL;
	rec->pid = (pid_t)pid;
	snprintf(rec->boot, sizeof(rec->boot), "%s", boot);
	return 1;
}

bool pidfile_rec_live(const struct pidfile_rec *rec)
{
	unsigned long long start, dev = 0, ino = 0;
	char boot[40];

	if (rec->pid <= 0 || !rec->boot[0] || proc_boot_id(boot, sizeof(boot)) ||
	    strcmp(boot, rec->boot))
		return false;
	if (proc_start_time(rec->pid, &start) || start != rec->start)
		return false;
	/* a clock tick is 10 ms: a pid reused within it is told apart by its program */
	return !proc_exe_id(rec->pid, &dev, &ino) && dev == rec->exe_dev && ino == rec->exe_ino;
}

int pidfile_pidfd(const char *path, pid_t *pid)
{
	struct pidfile_rec rec;
	int fd;

	*pid = 0;
	if (pidfile_read(path, &rec) != 1 || !pidfile_rec_live(&rec))
		return -ESRCH;
	fd = pidfd_of(rec.pid);
	/* checked again with the pidfd held: the pid cannot be reused under it now */
	if (fd == -ESRCH || (fd >= 0 && !pidfile_rec_live(&rec))) {
		if (fd >= 0)
			close(fd);
		return -ESRCH;
	}
	*pid = rec.pid;
	return fd;
}

int pidfile_stop(const char *path, int sig, int wait_ms, pid_t *pid)
{
	struct pollfd p = { .events = POLLIN };
	int fd = pidfile_pidfd(path, pid), ret = 0;

	if (fd == -ESRCH) {
		*pid = 0;
		return 0;
	}
	if (fd < 0)
		return fd;
	if (syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0)) {
		ret = errno == ESRCH ? 0 : -errno;
		close(fd);
		return ret;
	}
	p.fd = fd;
	/* a pidfd is readable once its process has exited */
	while ((ret = poll(&p, 1, wait_ms)) < 0 && errno == EINTR)
		;
	close(fd);
	return ret == 1 ? 0 : -ETIMEDOUT;
}
