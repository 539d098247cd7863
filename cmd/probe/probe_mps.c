// SPDX-License-Identifier: GPL-2.0
/*
 * probe_mps.c - probe's MPS section: NVIDIA's control program (where, its
 * version, or how to get it), the daemons on the pipe directories that
 * matter (gpuctl's own, the one a running policy uses, and MPS's default
 * one, whose daemon every CUDA process of the host joins), each with its
 * user, and their servers with user and pid.  Asks the daemons only what
 * `get_server_list` answers; starts nothing.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "mps.h"
#include "tsgw/mpsfile.h"
#include "probe_mps.h"

struct mps_dir_view {
	const char *role;	/* "gpuctl", "policy", "default" */
	char dir[PATH_MAX];
	pid_t daemon;
	uid_t uid;
	int nservers;
	pid_t servers[8];
	uid_t server_uid[8];
};

/* The directories worth a look, their daemons and servers: how many. */
static int look(const struct mps *bin, struct mps_dir_view *v, int max)
{
	struct mps_state st;
	const char *dirs[3] = { MPS_GPUCTL_DIR, NULL, MPS_DEFAULT_PIPE_DIR };
	const char *roles[3] = { "gpuctl", "policy", "default" };
	int n = 0;

	if (!mps_state_read(&st) && !strcmp(st.mech, "mps") && strcmp(st.dir, MPS_GPUCTL_DIR))
		dirs[1] = st.dir;
	for (int i = 0; i < 3 && n < max; i++) {
		struct mps m = *bin;
		char err[256];

		if (!dirs[i])
			continue;
		memset(&v[n], 0, sizeof(v[n]));
		v[n].role = roles[i];
		snprintf(v[n].dir, sizeof(v[n].dir), "%s", dirs[i]);
		snprintf(m.dir, sizeof(m.dir), "%s", dirs[i]);
		v[n].daemon = mps_daemon_pid(&m, &v[n].uid);
		if (v[n].daemon && bin->bin[0]) {
			int k = mps_servers(&m, v[n].servers, 8, err, sizeof(err));

			v[n].nservers = k > 0 ? k : 0;
			for (int j = 0; j < v[n].nservers; j++)
				v[n].server_uid[j] = mps_proc_uid(v[n].servers[j]);
		}
		n++;
	}
	return n;
}

void probe_mps_json(json_writer_t *w)
{
	struct mps_dir_view v[3];
	struct mps m = { 0 };
	char err[512], ver[64];
	bool found = !mps_find(m.bin, sizeof(m.bin), err, sizeof(err));
	int n = look(&m, v, 3);

	jsonw_name(w, "mps");
	jsonw_start_object(w);
	if (found) {
		jsonw_string_field(w, "control", m.bin);
		if (!mps_version(&m, ver, sizeof(ver), err, sizeof(err)))
			jsonw_string_field(w, "version", ver);
		else
			jsonw_null_field(w, "version");
	} else {
		jsonw_null_field(w, "control");
		jsonw_string_field(w, "why", err);
	}
	jsonw_name(w, "daemons");
	jsonw_start_array(w);
	for (int i = 0; i < n; i++) {
		if (!v[i].daemon)
			continue;
		jsonw_start_object(w);
		jsonw_string_field(w, "pipe_dir", v[i].dir);
		jsonw_string_field(w, "role", v[i].role);
		jsonw_int_field(w, "pid", v[i].daemon);
		jsonw_uint_field(w, "uid", v[i].uid);
		jsonw_name(w, "servers");
		jsonw_start_array(w);
		for (int j = 0; j < v[i].nservers; j++) {
			jsonw_start_object(w);
			jsonw_int_field(w, "pid", v[i].servers[j]);
			jsonw_uint_field(w, "uid", v[i].server_uid[j]);
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

void probe_mps_text(void)
{
	struct mps_dir_view v[3];
	struct mps m = { 0 };
	char err[512], ver[64], value[PATH_MAX + 128];
	bool found = !mps_find(m.bin, sizeof(m.bin), err, sizeof(err));
	int n = look(&m, v, 3);

	printf("MPS\n");
	if (found) {
		bool vok = !mps_version(&m, ver, sizeof(ver), err, sizeof(err));

		printf("  %-40s %s (version %s)\n", "control program", m.bin, vok ? ver : "unknown");
	} else {
		printf("  %-40s no: %s\n", "control program", err);
	}
	for (int i = 0; i < n; i++) {
		char label[64];

		snprintf(label, sizeof(label), "daemon on %s directory", v[i].role);
		if (!v[i].daemon) {
			snprintf(value, sizeof(value), "none (%s)", v[i].dir);
		} else {
			snprintf(value, sizeof(value), "pid %d, uid %u, on %s", (int)v[i].daemon,
				 (unsigned int)v[i].uid, v[i].dir);
		}
		printf("  %-40s %s\n", label, value);
		for (int j = 0; j < v[i].nservers; j++)
			printf("  %-40s server pid %d, uid %u\n", "", (int)v[i].servers[j],
			       (unsigned int)v[i].server_uid[j]);
		if (v[i].daemon && !strcmp(v[i].role, "default"))
			printf("  %-40s -> every CUDA process of the host joins this daemon's "
			       "servers; gpuctl uses a directory of its own\n", "");
	}
}
