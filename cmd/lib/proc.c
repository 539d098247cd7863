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
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "liveproc.h"
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

void stop_request(void)
{
	stop_flag = 1;
}

pid_t pidfile_live(const char *path)
{
	struct pidfile_rec rec;

	/* a pid alone names no process: one that reused it must not count */
	if (pidfile_read(path, &rec) != 1 || !pidfile_rec_live(&rec))
		return 0;
	return rec.pid;
}

int pidfile_claim(const char *path, const char *what)
{
	struct pidfile_rec rec;
	struct stat st;
	int fd, r;

	for (int tries = 0; tries < 2; tries++) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
		r = pidfile_read(path, &rec);
		if (r == 1 && pidfile_rec_live(&rec)) {
			p_err("%s already runs as pid %d (pid file %s)", what, (int)rec.pid, path);
			return -1;
		}
		if (r == -EINVAL) {
			/* only what gpuctl wrote may go: never a file the path happened to name */
			p_err("%s exists and is not a gpuctl pid file; not replacing it", path);
			return -1;
		}
		if (r == 0 && !lstat(path, &st) && time(NULL) - st.st_mtime < 5) {
			p_err("%s is being claimed by another gpuctl", path);
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
	unsigned long long start = 0, dev = 0, ino = 0;
	char buf[160], boot[40] = "-";
	int n, err;

	err = proc_start_time(pid, &start);
	if (!err)
		err = proc_boot_id(boot, sizeof(boot));
	if (!err)
		err = proc_exe_id(pid, &dev, &ino);
	if (err) {
		errno = -err;
		return err;
	}
	n = snprintf(buf, sizeof(buf), "%d %llu %s %llu:%llu\n", (int)pid, start, boot, dev, ino);
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n)
		return -errno;
	return 0;
}

pid_t daemon_fork(int errfd)
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
		dup2(errfd >= 0 ? errfd : nul, 2);
		if (nul > 2)
			close(nul);
	}
	if (errfd > 2)
		close(errfd);
	json_output = false;	/* nobody reads it now */
	return 0;
}
