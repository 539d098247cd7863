// SPDX-License-Identifier: GPL-2.0
/*
 * timeit - wall time of a command, for the VM (busybox has no ns clock).
 *
 *   timeit N CMD ARG...   run CMD N times, print each run's microseconds,
 *                         one per line; exit 1 if a run fails
 *   timeit now            print CLOCK_MONOTONIC in microseconds
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long long t0;
	int i, n, st, rc = 0;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%lld\n", now_us());
		return 0;
	}
	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: timeit N CMD ARG... | timeit now\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		t0 = now_us();
		pid = fork();
		if (pid == 0) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(127);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			return 1;
		printf("%lld\n", now_us() - t0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	return rc;
}
