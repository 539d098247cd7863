// SPDX-License-Identifier: GPL-2.0
/*
 * run_pid.c - who the running policy process is (its pid file), and what
 * run --detach's parent says about the child it leaves running.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "sched.h"

#define READY_WAIT_MS	10000	/* how long run --detach waits for its child */

/*
 * The policy process of the pid file, 0 when none runs.  A zombie (killed,
 * its parent has not reaped it yet) answers kill(pid, 0) but runs no more.
 */
pid_t run_pid(void)
{
	pid_t pid = pidfile_live(RUN_PIDFILE);
	char path[64], buf[512], *end;
	FILE *f;
	size_t n;

	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	end = strrchr(buf, ')');	/* "PID (COMM) STATE ...": COMM may hold anything */
	if (end && (end[1] == ' ') && (end[2] == 'Z' || end[2] == 'X'))
		return 0;
	return pid;
}

/* run --detach, in the parent: the child's pid, and the word it is ready. */
int run_detach_report(const struct run_opts *o, pid_t child, int ready_fd)
{
	struct pollfd p = { .fd = ready_fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, READY_WAIT_MS) != 1 || read(ready_fd, &c, 1) != 1) {
		close(ready_fd);
		p_err("the policy process %d did not start (see '%s sched status')", (int)child,
		      bin_name);
		return EXIT_FAIL;
	}
	close(ready_fd);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", sched_policy_name(o->policy));
		jsonw_int_field(json_wtr, "pid", child);
		jsonw_string_field(json_wtr, "pidfile", RUN_PIDFILE);
		jsonw_end_object(json_wtr);
	} else {
		printf("policy %s running in the background as pid %d; "
		       "'%s sched stop' restores the original values and stops it\n",
		       sched_policy_name(o->policy), (int)child, bin_name);
	}
	return EXIT_OK;
}
