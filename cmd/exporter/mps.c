// SPDX-License-Identifier: GPL-2.0
/*
 * mps.c - the exporter's MPS series: what the running policy's MPS daemon
 * serves, from the snapshot the run writes once a second
 * (cmd/sched/mps/snap.c); a scrape never runs NVIDIA's control program.
 * Nothing is written when no policy runs with mechanism mps.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "exporter.h"
#include "om.h"
#include "tsgw/mpsfile.h"

void exp_write_mps(struct exporter *e, FILE *f)
{
	struct mps_state st;
	struct mps_snap s;
	char buf[32];

	if (mps_state_read(&st) || strcmp(st.mech, "mps") || !st.run || kill(st.run, 0) ||
	    mps_snap_read(&s))
		return;
	om_family(f, "gpuctl_mps_daemon_up", "gauge",
		  "1 while the MPS control daemon of the running policy answers (0: gone).");
	fprintf(f, "gpuctl_mps_daemon_up{");
	om_label(f, "pipe_dir", st.dir, true);
	fprintf(f, "} %d\n", s.daemon ? 1 : 0);
	om_family(f, "gpuctl_mps_server_clients", "gauge",
		  "Clients connected to an MPS server (its TSGs carry all their work).");
	for (int i = 0; i < s.nservers; i++) {
		fprintf(f, "gpuctl_mps_server_clients{");
		snprintf(buf, sizeof(buf), "%d", (int)s.servers[i].pid);
		om_label(f, "server_pid", buf, true);
		snprintf(buf, sizeof(buf), "%u", (unsigned int)s.servers[i].uid);
		om_label(f, "uid", buf, false);
		fprintf(f, "} %d\n", s.servers[i].clients);
	}
	om_family(f, "gpuctl_mps_client_priority", "gauge",
		  "An MPS client's priority as it started (0 normal, 1 below), with its class.");
	for (int i = 0; i < s.nclients; i++) {
		const struct mps_snap_client *c = &s.clients[i];

		fprintf(f, "gpuctl_mps_client_priority{");
		snprintf(buf, sizeof(buf), "%d", (int)c->pid);
		om_label(f, "pid", buf, true);
		om_label(f, "comm", c->comm, false);
		om_label(f, "class", c->cls[0] ? c->cls : "none", false);
		snprintf(buf, sizeof(buf), "%d", (int)c->server);
		om_label(f, "server_pid", buf, false);
		if (c->threads >= 0) {
			snprintf(buf, sizeof(buf), "%d", c->threads);
			om_label(f, "active_thread_pct", buf, false);
		}
		exp_attr_pid_labels(f, e, c->pid);
		fprintf(f, "} %d\n", c->priority);
	}
}
