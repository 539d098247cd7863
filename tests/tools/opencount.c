// SPDX-License-Identifier: GPL-2.0
/*
 * opencount COUNTFILE FILE CMD [ARGS...]: runs CMD and writes into COUNTFILE
 * how many times FILE was opened meanwhile (inotify IN_OPEN); exits with
 * CMD's status.  Closes are watched too: inotify merges an event into an
 * identical one still unread, so opens alone would count as one.
 * (tests/unit/test_reliability_objects.sh: a user's object is opened once.)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd, st, n = 0;
	ssize_t len;
	pid_t pid;
	FILE *out;

	if (argc < 4) {
		fprintf(stderr, "usage: opencount COUNTFILE FILE CMD [ARGS...]\n");
		return 125;
	}
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[2], IN_OPEN | IN_CLOSE) < 0) {
		perror("opencount: inotify");
		return 125;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 125;
	while ((len = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + len; p += sizeof(struct inotify_event) +
		     ((struct inotify_event *)p)->len)
			n += !!(((struct inotify_event *)p)->mask & IN_OPEN);
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%d\n", n) < 0 || fclose(out))
		return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
