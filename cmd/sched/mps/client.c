// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - what an MPS client is, as its process says (mpss.h): its
 * name, and from its environment (what MPS itself read when it started)
 * the pipe directory it joined, its client priority, its active thread
 * percentage, and the class sched exec gave it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "mpss.h"

static const char *env_value(const char *env, size_t n, const char *key)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (!strncmp(env + i, key, kl) && env[i + kl] == '=')
			return env + i + kl + 1;
	return NULL;
}

int mps_client_read(pid_t pid, struct mps_client *c)
{
	char p[64], env[32768];
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
	snprintf(p, sizeof(p), "/proc/%d/environ", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, env, sizeof(env) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	env[n] = '\0';
	v = env_value(env, (size_t)n, MPS_CLASS_ENV);
	if (v)
		snprintf(c->cls, sizeof(c->cls), "%s", v);
	v = env_value(env, (size_t)n, "CUDA_MPS_PIPE_DIRECTORY");
	if (v)
		snprintf(c->dir, sizeof(c->dir), "%s", v);
	v = env_value(env, (size_t)n, "CUDA_MPS_CLIENT_PRIORITY");
	c->priority = v ? atoi(v) : 0;
	v = env_value(env, (size_t)n, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
	if (v && *v)
		c->threads = atoi(v);
	return 0;
}
