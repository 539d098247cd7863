// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - what an MPS client is, as its process says (mpss.h): its
 * name, and from its environment (what MPS itself read when it started)
 * the pipe directory it joined, its client priority, its active thread
 * percentage, and the class sched exec gave it (drv/mps.c reads it).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "mpss.h"

int mps_client_read(pid_t pid, struct mps_client *c)
{
	struct mps_proc_env env;
	char p[64];
	const char *v;
	ssize_t n = 0;
	int fd;

	memset(c, 0, sizeof(*c));
	c->threads = -1;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, c->comm, sizeof(c->comm) - 1);
		close(fd);
		if (n > 0 && c->comm[n - 1] == '\n')
			c->comm[n - 1] = '\0';
	}
	if (mps_proc_env_read(pid, &env))
		return -1;
	v = mps_proc_env_get(&env, MPS_CLASS_ENV);
	if (v)
		snprintf(c->cls, sizeof(c->cls), "%s", v);
	v = mps_proc_env_get(&env, "CUDA_MPS_PIPE_DIRECTORY");
	if (v)
		snprintf(c->dir, sizeof(c->dir), "%s", v);
	v = mps_proc_env_get(&env, "CUDA_MPS_CLIENT_PRIORITY");
	c->priority = v ? atoi(v) : 0;
	v = mps_proc_env_get(&env, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
	if (v && *v)
		c->threads = atoi(v);
	return 0;
}
