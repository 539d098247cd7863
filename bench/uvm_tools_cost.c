// SPDX-License-Identifier: GPL-2.0
/*
 * uvm_tools_cost - what each part of NVIDIA's UVM tools API costs a
 * workload: runs CMD and, once it has a GPU context, turns on only what
 * MODE says, through gpuctl's own uvm-tools code (cmd/drv/ut.h).
 *
 *   uvm_tools_cost MODE -- CMD [ARGS...]
 *   MODE := attach     borrow the fd, open the counter tracker, enable nothing
 *         | ctr-faults the GPU fault counter only
 *         | ctr-bytes  the byte counters only (htod, dtoh)
 *         | ctr-all    every counter gpuctl stat reads
 *         | q-replay   an event queue of replay events only
 *         | q-faults   an event queue of GPU fault events, drained
 *
 * Exit status: CMD's.  Used by bench/uvm_tools_cost_h200.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ut.h"

static void nothing(const uint8_t *entry, void *arg)
{
	(void)entry;
	(*(uint64_t *)arg)++;
}

static int apply(struct ut_session *s, const char *mode, char *err, size_t len)
{
	if (!strcmp(mode, "attach"))
		return 0;
	if (!strcmp(mode, "ctr-faults"))
		return ut_enable_counters(s, 1u << UT_CTR_GPU_FAULTS, err, len);
	if (!strcmp(mode, "ctr-bytes"))
		return ut_enable_counters(s, (1u << UT_CTR_BYTES_HTOD) | (1u << UT_CTR_BYTES_DTOH),
					  err, len);
	if (!strcmp(mode, "ctr-all"))
		return ut_enable_counters(s, UT_CTR_STAT_MASK, err, len);
	if (!strcmp(mode, "q-replay"))
		return ut_open_queue(s, 1u << 12, 1u << UT_EV_GPU_FAULT_REPLAY, 1u << 11, err, len);
	if (!strcmp(mode, "q-faults"))
		return ut_open_queue(s, 1u << 16, 1u << UT_EV_GPU_FAULT, 1u << 15, err, len);
	snprintf(err, len, "unknown mode '%s'", mode);
	return -EINVAL;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	struct ut_session s;
	uint64_t events = 0;
	char err[256];
	int st, ret;
	pid_t pid;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: uvm_tools_cost MODE -- CMD [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			goto done;
		ret = ut_attach(&s, pid, err, sizeof(err));
		if (!ret)
			break;
		ut_close(&s);
		if (ret != -ENOENT && ret != -EAGAIN) {
			fprintf(stderr, "uvm_tools_cost: %s\n", err);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return 1;
		}
		nanosleep(&ms, NULL);
	}
	if (apply(&s, argv[1], err, sizeof(err))) {
		fprintf(stderr, "uvm_tools_cost: %s\n", err);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	while (waitpid(pid, &st, WNOHANG) != pid) {
		if (s.queue_fd >= 0) {
			ut_wait(&s, 100);
			ut_queue_consume(&s.q, 0, nothing, &events);
		} else {
			struct timespec t = { 0, 20000000 };

			nanosleep(&t, NULL);
		}
	}
	if (s.queue_fd >= 0) {
		ut_flush(&s);
		ut_queue_consume(&s.q, 0, nothing, &events);
		fprintf(stderr, "uvm_tools_cost: %s: %llu events\n", argv[1],
			(unsigned long long)events);
	}
	ut_close(&s);
done:
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
