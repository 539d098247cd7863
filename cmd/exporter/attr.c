// SPDX-License-Identifier: GPL-2.0
/*
 * attr.c - whom a GPU process runs for, on its series: the host
 * (hostname: $NODE_NAME, the downward API's node name, else uname's), and
 * from its cgroup (cmd/lib/cgroup.c) pod_uid and container_id, or unit;
 * with --pod-names also namespace and pod, from the kubelet's log
 * directories (/var/log/pods/NAMESPACE_NAME_UID: no API, no token).
 *
 * Cardinality: a process's cgroup is read once, when it is found, so each
 * process has one series per family (per GPU for per-GPU ones) and at most
 * one value of each label; processes are bounded by --max-processes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "gpuctl.h"
#include "exporter/exporter.h"
#include "exporter/om.h"

#define EXP_POD_LOGS	"/var/log/pods"
#define EXP_MAX_PODS	4096

void exp_attr_init(struct exporter *e, bool pod_names)
{
	const char *node = getenv("NODE_NAME");
	struct utsname u;

	e->pod_names = pod_names;
	if (node && *node)
		snprintf(e->hostname, sizeof(e->hostname), "%s", node);
	else if (!uname(&u))
		snprintf(e->hostname, sizeof(e->hostname), "%s", u.nodename);
}

static const struct exp_pod *pod_find(const struct exporter *e, const char *uid)
{
	for (int i = 0; i < e->npods; i++)
		if (!strcmp(e->pods[i].uid, uid))
			return &e->pods[i];
	return NULL;
}

/*
 * Reads the kubelet's pod log directories again (names cannot hold '_':
 * NAMESPACE_NAME_UID splits at the first two).  Called by a rescan that
 * found a pod without a name.
 */
static void pods_reload(struct exporter *e)
{
	struct dirent *de;
	DIR *d = opendir(EXP_POD_LOGS);

	e->npods = 0;
	while (d && (de = readdir(d)) && e->npods < EXP_MAX_PODS) {
		char *a = strchr(de->d_name, '_'), *b = a ? strchr(a + 1, '_') : NULL;
		struct exp_pod *p;

		if (!a || !b || a == de->d_name || b == a + 1 || !b[1])
			continue;
		if (e->npods == e->podcap) {
			int cap = e->podcap ? 2 * e->podcap : 64;
			struct exp_pod *n = realloc(e->pods, cap * sizeof(*n));

			if (!n)
				break;
			e->pods = n;
			e->podcap = cap;
		}
		p = &e->pods[e->npods++];
		snprintf(p->ns, sizeof(p->ns), "%.*s", (int)(a - de->d_name), de->d_name);
		snprintf(p->name, sizeof(p->name), "%.*s", (int)(b - a - 1), a + 1);
		snprintf(p->uid, sizeof(p->uid), "%s", b + 1);
	}
	if (d)
		closedir(d);
}

void exp_attr_proc(struct exporter *e, struct exp_proc *p)
{
	cg_read_pid(p->pid, &p->cg);
	if (e->pod_names && p->cg.pod_uid[0] && !pod_find(e, p->cg.pod_uid))
		pods_reload(e);
}

void exp_attr_labels(FILE *f, const struct exporter *e, const struct cg_attr *cg)
{
	const struct exp_pod *pod = NULL;

	if (e->hostname[0])
		om_label(f, "hostname", e->hostname, false);
	if (!cg)
		return;
	if (cg->pod_uid[0]) {
		om_label(f, "pod_uid", cg->pod_uid, false);
		if (e->pod_names)
			pod = pod_find(e, cg->pod_uid);
		if (pod) {
			om_label(f, "namespace", pod->ns, false);
			om_label(f, "pod", pod->name, false);
		}
	}
	if (cg->container_id[0])
		om_label(f, "container_id", cg->container_id, false);
	if (cg->unit[0])
		om_label(f, "unit", cg->unit, false);
}

void exp_attr_of(const struct exporter *e, pid_t pid, struct cg_attr *cg)
{
	for (int i = 0; i < e->nprocs; i++) {
		if (e->procs[i].pid == pid) {
			*cg = e->procs[i].cg;
			return;
		}
	}
	/* a TSG's process without a UVM file (RM only): read now */
	cg_read_pid(pid, cg);
}

void exp_attr_pid_labels(FILE *f, const struct exporter *e, pid_t pid)
{
	struct cg_attr cg;

	exp_attr_of(e, pid, &cg);
	exp_attr_labels(f, e, &cg);
}

void exp_proc_labels(FILE *f, const struct exporter *e, const struct exp_proc *p)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", p->pid);
	om_label(f, "pid", pid, true);
	om_label(f, "comm", p->comm, false);
	exp_attr_labels(f, e, &p->cg);
}
