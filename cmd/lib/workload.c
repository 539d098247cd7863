// SPDX-License-Identifier: GPL-2.0
/*
 * workload.c - the process a command watches: one it starts (-- CMD),
 * forked and held on a pipe until the watcher is ready so that nothing it
 * does is missed, then released, reaped with its exit status; or one that
 * runs already (-p PID), followed through a pidfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"

void workload_init(struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->pidfd = w->go_fd = w->err_fd = -1;
	w->status = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int workload_follow(struct workload *w, pid_t pid)
{
	int fd = pidfd_of(pid);

	workload_init(w);
	if (fd == -ESRCH || (fd < 0 && kill(pid, 0) && errno == ESRCH)) {
		p_err("no process with pid %d", (int)pid);
		return -1;
	}
	/* Without a pidfd (a thread id, an old kernel) kill(pid, 0) tells. */
	w->pidfd = fd >= 0 ? fd : -1;
	w->pid = pid;
	return 0;
}

/* The child: waits for the go byte, then becomes argv (or reports why not). */
static void __attribute__((noreturn)) held_child(char **argv, char *const *env, int go,
						 int report, bool stdout_to_stderr)
{
	char c;
	int e;

	if (read(go, &c, 1) != 1)
		_exit(127);	/* the watcher gave up: do not run */
	for (; env && *env; env++)
		if (putenv(*env))
			_exit(127);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (stdout_to_stderr)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	execvp(argv[0], argv);
	e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int workload_spawn(struct workload *w, char **argv, bool stdout_to_stderr)
{
	return workload_spawn_env(w, argv, NULL, stdout_to_stderr);
}

int workload_spawn_env(struct workload *w, char **argv, char *const *env, bool stdout_to_stderr)
{
	int go[2], report[2];

	workload_init(w);
	if (pipe2(go, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(report, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	fflush(NULL);
	w->child = fork();
	if (w->child < 0) {
		p_err("fork: %s", strerror(errno));
		w->child = 0;
		close(go[0]);
		close(go[1]);
		close(report[0]);
		close(report[1]);
		return -1;
	}
	if (!w->child) {
		close(go[1]);
		close(report[0]);
		held_child(argv, env, go[0], report[1], stdout_to_stderr);
	}
	close(go[0]);
	close(report[1]);
	w->go_fd = go[1];
	w->err_fd = report[0];
	w->pid = w->child;
	w->argv0 = argv[0];
	w->held = true;
	/* Readable when it exits; without one, waitpid() polls. */
	w->pidfd = pidfd_of(w->child);
	if (w->pidfd < 0)
		w->pidfd = -1;
	return 0;
}

static int exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int workload_release(struct workload *w)
{
	ssize_t n;
	int e = 0;

	if (!w->held)
		return 0;
	w->held = false;
	if (write(w->go_fd, "g", 1) != 1) {
		p_err("starting the command failed: %s", strerror(errno));
		return -1;
	}
	close_fd(&w->go_fd);
	n = read(w->err_fd, &e, sizeof(e));	/* EOF: exec succeeded */
	close_fd(&w->err_fd);
	if (n == sizeof(e)) {
		waitpid(w->child, NULL, 0);
		w->child = 0;
		w->pid = 0;
		w->gone = true;
		close_fd(&w->pidfd);
		p_err("cannot run '%s': %s", w->argv0, strerror(e));
		return -1;
	}
	return 0;
}

bool workload_gone(struct workload *w)
{
	if (w->gone || !w->pid)
		return w->gone;
	if (w->child) {
		int st;

		if (waitpid(w->child, &st, WNOHANG) == w->child) {
			w->status = exit_status(st);
			w->gone = true;
		}
	} else if (w->pidfd >= 0) {
		struct pollfd p = { .fd = w->pidfd, .events = POLLIN };

		w->gone = poll(&p, 1, 0) > 0;
	} else {
		w->gone = kill(w->pid, 0) && errno == ESRCH;
	}
	return w->gone;
}

static void sleep_ms(int ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&d, NULL);
}

bool workload_wait(struct workload *w, int timeout_ms)
{
	if (!w->pid) {
		sleep_ms(timeout_ms);
		return false;
	}
	if (w->pidfd >= 0 && !w->gone) {
		struct pollfd p = { .fd = w->pidfd, .events = POLLIN };

		poll(&p, 1, timeout_ms);
		return workload_gone(w);
	}
	for (int waited = 0; !workload_gone(w) && waited < timeout_ms; waited += 5)
		sleep_ms(5);
	return w->gone;
}

void workload_end(struct workload *w, bool kill_it)
{
	if (w->held) {
		/* It never runs: its read of the go pipe sees EOF. */
		w->held = false;
		close_fd(&w->go_fd);
		close_fd(&w->err_fd);
		waitpid(w->child, NULL, 0);
		w->child = 0;
	} else if (w->child && !w->gone) {
		int st;

		if (kill_it)
			kill(w->child, SIGTERM);
		if (waitpid(w->child, &st, 0) == w->child)
			w->status = exit_status(st);
		w->gone = true;
	}
	close_fd(&w->go_fd);
	close_fd(&w->err_fd);
	close_fd(&w->pidfd);
}

int workload_status(const struct workload *w)
{
	return w->child ? w->status : -1;
}
