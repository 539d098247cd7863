/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup.h - who a process runs for, as the kernel's /proc/PID/cgroup says
 * (cgroup.c): the kubelet's pod and the runtime's container, else the
 * systemd unit or Slurm step, else nothing.  No API, no token: the cgroup
 * path alone.
 */
#ifndef GPUCTL_CGROUP_H
#define GPUCTL_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

#define CG_POD_UID_LEN	64
#define CG_CTR_ID_LEN	72
#define CG_UNIT_LEN	128

struct cg_attr {
	/* the pod's UID as the API spells it ("-", not the systemd driver's "_") */
	char pod_uid[CG_POD_UID_LEN];
	/* the container's id (hex): containerd, CRI-O or Docker */
	char container_id[CG_CTR_ID_LEN];
	/* neither: the innermost .service/.scope, or Slurm's "job_N/step_M" */
	char unit[CG_UNIT_LEN];
};

/*
 * Attribution of a cgroup path (absolute, or relative with ".." as a
 * process in another cgroup namespace sees it): the kubelet's systemd
 * driver (kubepods[-QOS]-pod<UID_>.slice, then cri-containerd-<ID>.scope,
 * crio-<ID>.scope or docker-<ID>.scope) and cgroupfs driver
 * (kubepods[/QOS]/pod<UID>/<ID>); otherwise a Slurm step or a unit.
 * Only levels no delegated unit lies above are believed (cgroup.c).
 * Fields not found are "".
 */
void cg_classify(const char *path, struct cg_attr *a);
/*
 * Attribution of a whole /proc/PID/cgroup text: cgroup v2's "0::" line;
 * on a v1 or hybrid host (a v2 line "/" or none) the first hierarchy
 * (name=systemd first) that names a pod, a container or a Slurm step,
 * else the first unit any names.  Zeroed when none does.
 */
void cg_attr_of(const char *text, struct cg_attr *a);
/* The same from /proc/PID/cgroup: 0, or -1 (the process is gone: a zeroed *a). */
int cg_read_pid(pid_t pid, struct cg_attr *a);

#endif
