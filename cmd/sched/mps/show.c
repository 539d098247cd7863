// SPDX-License-Identifier: GPL-2.0
/*
 * show.c - MPS in `sched status` (mpss.h): the mechanism and why, the
 * daemon, each server with its user, each client with its class, client
 * priority and thread percentage as its environment says (what MPS read
 * at its start).  Names from other processes are escaped where they go.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "text.h"
#include "mpss.h"

struct client_view {
	char comm[64];
	char cls[16];		/* GPUCTL_SCHED_CLASS, "" when not started by sched exec */
	int priority;		/* CUDA_MPS_CLIENT_PRIORITY, 0 when unset */
	int threads;		/* CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, -1 when unset */
};

static void env_value(const char *env, size_t n, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (!strncmp(env + i, key, kl) && env[i + kl] == '=') {
			snprintf(out, len, "%s", env + i + kl + 1);
			return;
		}
}

static void client_view(pid_t pid, struct client_view *c)
{
	char p[64], env[16384], v[32] = "";
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
	n = fd >= 0 ? read(fd, env, sizeof(env) - 1) : 0;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	env[n] = '\0';
	env_value(env, (size_t)n, MPS_CLASS_ENV, c->cls, sizeof(c->cls));
	env_value(env, (size_t)n, "CUDA_MPS_CLIENT_PRIORITY", v, sizeof(v));
	c->priority = atoi(v);
	v[0] = '\0';
	env_value(env, (size_t)n, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", v, sizeof(v));
	if (v[0])
		c->threads = atoi(v);
}

static unsigned int proc_uid(pid_t pid)
{
	char p[64], line[128];
	unsigned int u = (unsigned int)-1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return u;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &u) == 1)
			break;
	fclose(f);
	return u;
}

static void show_client(pid_t pid)
{
	struct client_view c;
	char buf[256];

	client_view(pid, &c);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", pid);
		jsonw_string_field(json_wtr, "comm", c.comm);
		if (c.cls[0])
			jsonw_string_field(json_wtr, "class", c.cls);
		else
			jsonw_null_field(json_wtr, "class");
		jsonw_int_field(json_wtr, "priority", c.priority);
		if (c.threads >= 0)
			jsonw_int_field(json_wtr, "active_thread_pct", c.threads);
		else
			jsonw_null_field(json_wtr, "active_thread_pct");
		jsonw_end_object(json_wtr);
		return;
	}
	printf("    client %d %s: class %s, priority %d", (int)pid,
	       str_printable(buf, sizeof(buf), c.comm, sizeof(c.comm)),
	       c.cls[0] ? c.cls : "- (not started by sched exec)", c.priority);
	if (c.threads >= 0)
		printf(", threads %d%%", c.threads);
	putchar('\n');
}

static void show_servers(const struct mps *m)
{
	pid_t srv[MPS_MAX_PIDS], cl[MPS_MAX_PIDS];
	char err[256];
	int ns = mps_servers(m, srv, MPS_MAX_PIDS, err, sizeof(err));

	if (json_output) {
		jsonw_name(json_wtr, "servers");
		jsonw_start_array(json_wtr);
	} else if (ns <= 0) {
		printf("  no server (one starts with its first client)\n");
	}
	for (int i = 0; i < ns; i++) {
		int nc = mps_clients(m, srv[i], cl, MPS_MAX_PIDS, err, sizeof(err));

		if (nc < 0)
			nc = 0;
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_int_field(json_wtr, "pid", srv[i]);
			jsonw_uint_field(json_wtr, "uid", proc_uid(srv[i]));
			jsonw_name(json_wtr, "clients");
			jsonw_start_array(json_wtr);
		} else {
			printf("  server %d (uid %u): %d client%s; its TSGs carry them all\n",
			       (int)srv[i], proc_uid(srv[i]), nc, nc == 1 ? "" : "s");
		}
		for (int k = 0; k < nc; k++)
			show_client(cl[k]);
		if (json_output) {
			jsonw_end_array(json_wtr);
			jsonw_end_object(json_wtr);
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
}

void mps_show_status(pid_t runner)
{
	struct mps_state st;
	char err[512];
	struct mps m;
	pid_t d = 0;

	if (mps_state_read(&st) || st.run != runner)
		return;
	if (!strcmp(st.mech, "mps") && !mps_init(&m, st.dir, err, sizeof(err)))
		d = mps_daemon_pid(&m, NULL);
	if (json_output) {
		jsonw_name(json_wtr, "mechanism");
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", st.mech);
		jsonw_string_field(json_wtr, "why", st.why);
		if (!strcmp(st.mech, "mps")) {
			jsonw_string_field(json_wtr, "pipe_dir", st.dir);
			jsonw_bool_field(json_wtr, "started_by_gpuctl", st.started);
			if (d)
				jsonw_int_field(json_wtr, "daemon_pid", d);
			else
				jsonw_null_field(json_wtr, "daemon_pid");
			jsonw_uint_field(json_wtr, "be_threads_pct", st.be_threads);
			jsonw_uint_field(json_wtr, "lc_threads_pct", st.lc_threads);
			jsonw_u64_field(json_wtr, "be_mem_bytes", st.be_mem);
			if (d)
				show_servers(&m);
		}
		jsonw_end_object(json_wtr);
		return;
	}
	printf("mechanism %s (%s)\n", st.mech, st.why);
	if (strcmp(st.mech, "mps"))
		return;
	if (!d) {
		printf("  MPS daemon on %s: gone (%s clients cannot start)\n", st.dir, bin_name);
		return;
	}
	printf("  MPS daemon %d on %s (%s)\n", (int)d, st.dir,
	       st.started ? "started by gpuctl" : "adopted");
	show_servers(&m);
}
