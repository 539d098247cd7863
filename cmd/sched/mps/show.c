// SPDX-License-Identifier: GPL-2.0
/*
 * show.c - MPS in `sched status` (mpss.h): the mechanism and why, the
 * daemon, each server with its user, each client with its class, client
 * priority and thread percentage as its environment says (what MPS read
 * at its start).  Names from other processes are escaped where they go.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "text.h"
#include "mpss.h"

static void show_client(pid_t pid)
{
	struct mps_client c;
	char buf[256];

	mps_client_read(pid, &c);
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
			jsonw_uint_field(json_wtr, "uid", mps_proc_uid(srv[i]));
			jsonw_name(json_wtr, "clients");
			jsonw_start_array(json_wtr);
		} else {
			printf("  server %d (uid %u): %d client%s; its TSGs carry them all\n",
			       (int)srv[i], mps_proc_uid(srv[i]), nc, nc == 1 ? "" : "s");
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
