// SPDX-License-Identifier: GPL-2.0
/*
 * proc.c - process life for the commands that keep running: one stop flag
 * set by SIGINT/SIGTERM/SIGHUP, pid files claimed before anything changes,
 * and detaching into the background.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuctl.h"
#include "target.h"

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void stop_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	stop_flag = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

bool stop_requested(void)
{
	return stop_flag;
}

pid_t pidfile_live(const char *path)
{
	char buf[32] = "";
	ssize_t n;
	long pid;
	char *end;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	if (pid <= 0 || pid > TARGET_PID_MAX || (*end && *end != '\n'))
		return 0;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return 0;
	return (pid_t)pid;
}

int pidfile_claim(const char *path, const char *what)
{
	pid_t other;
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
		other = pidfile_live(path);
		if (other) {
			p_err("%s already runs as pid %d (pid file %s)", what, (int)other, path);
			return -1;
		}
		/* the pid file of one that is gone: take its place */
		if (unlink(path) && errno != ENOENT)
			break;
	}
	p_err("cannot create pid file %s: %s", path, strerror(errno));
	return -1;
}

int pidfile_write(int fd, pid_t pid)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);

	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n)
		return -errno;
	return 0;
}

pid_t daemon_fork(void)
{
	pid_t pid;
	int nul;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		p_err("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0)
		return pid;
	setsid();
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		if (nul > 2)
			close(nul);
	}
	json_output = false;	/* nobody reads it now */
	return 0;
}
