// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_test.c - attribution from /proc/PID/cgroup (cmd/lib/cgroup.c):
 * crafted file contents for every layout the kubelet and runtimes make
 * (systemd and cgroupfs drivers; containerd, CRI-O and Docker; guaranteed,
 * burstable and besteffort pods), a reader in another cgroup namespace,
 * v1 and hybrid hosts, Slurm steps, systemd units, and neither.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

static int pass, fail;

#define UID "2f7c4a1e-9b3d-4e8f-a1b2-c3d4e5f60718"
#define UIDS "2f7c4a1e_9b3d_4e8f_a1b2_c3d4e5f60718"
#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* expect TEXT (a whole /proc/PID/cgroup) to give pod, container and unit */
static void expect(const char *name, const char *text, const char *pod, const char *ctr,
		   const char *unit)
{
	struct cg_attr a;

	memset(&a, 0x55, sizeof(a));
	cg_attr_of(text, &a);
	if (!strcmp(a.pod_uid, pod) && !strcmp(a.container_id, ctr) && !strcmp(a.unit, unit)) {
		pass++;
	} else {
		fail++;
		printf("FAIL %s: pod '%s' container '%s' unit '%s' (want '%s' '%s' '%s')\n", name,
		       a.pod_uid, a.container_id, a.unit, pod, ctr, unit);
	}
}

int main(void)
{
	struct cg_attr a;

	/* the systemd driver (the kubelet's default with systemd), cgroup v2 */
	expect("systemd burstable containerd",
	       "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	       ".slice/cri-containerd-" CID ".scope\n", UID, CID, "");
	expect("systemd besteffort containerd",
	       "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDS
	       ".slice/cri-containerd-" CID ".scope\n", UID, CID, "");
	expect("systemd guaranteed containerd",
	       "0::/kubepods.slice/kubepods-pod" UIDS ".slice/cri-containerd-" CID ".scope\n",
	       UID, CID, "");
	expect("systemd CRI-O", "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	       UIDS ".slice/crio-" CID ".scope\n", UID, CID, "");
	expect("systemd CRI-O conmon: the pod, no container",
	       "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	       ".slice/crio-conmon-" CID ".scope\n", UID, "", "");
	expect("systemd Docker (cri-dockerd)",
	       "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDS
	       ".slice/docker-" CID ".scope\n", UID, CID, "");
	expect("a cgroup inside the container (systemd in a pod)",
	       "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	       ".slice/cri-containerd-" CID ".scope/init.scope\n", UID, CID, "");
	expect("the pod's sandbox (pause): no container",
	       "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS ".slice\n",
	       UID, "", "");
	expect("kubelet --cgroup-root (kind)",
	       "0::/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
	       "kubelet-kubepods-besteffort-pod" UIDS ".slice/cri-containerd-" CID ".scope\n",
	       UID, CID, "");
	expect("a reader in another cgroup namespace",
	       "0::/../../kubepods-besteffort-pod" UIDS ".slice/cri-containerd-" CID ".scope\n",
	       UID, CID, "");
	expect("static pod (UID a hash, no dashes)",
	       "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	       "0a1b2c3d4e5f60718293a4b5c6d7e8f9.slice/cri-containerd-" CID ".scope\n",
	       "0a1b2c3d4e5f60718293a4b5c6d7e8f9", CID, "");
	/* the cgroupfs driver */
	expect("cgroupfs burstable", "0::/kubepods/burstable/pod" UID "/" CID "\n", UID, CID, "");
	expect("cgroupfs besteffort", "0::/kubepods/besteffort/pod" UID "/" CID "\n", UID, CID, "");
	expect("cgroupfs guaranteed", "0::/kubepods/pod" UID "/" CID "\n", UID, CID, "");
	expect("cgroupfs: pod<...> outside kubepods is not a pod", "0::/podman/pod" UID "/" CID "\n",
	       "", "", "");
	/* cgroup v1 and hybrid hosts */
	expect("v1: name=systemd",
	       "12:memory:/kubepods/burstable/pod" UID "/" CID "\n"
	       "1:name=systemd:/kubepods/burstable/pod" UID "/" CID "\n", UID, CID, "");
	expect("v1: a controller line alone",
	       "5:cpu,cpuacct:/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	       ".slice/docker-" CID ".scope\n", UID, CID, "");
	expect("hybrid: v2 line '/', v1 systemd line names the pod",
	       "12:devices:/kubepods/besteffort/pod" UID "/" CID "\n"
	       "1:name=systemd:/kubepods/besteffort/pod" UID "/" CID "\n0::/\n", UID, CID, "");
	/* outside Kubernetes */
	expect("Docker alone", "0::/system.slice/docker-" CID ".scope\n", "", CID, "");
	expect("systemd service", "0::/system.slice/trainer.service\n", "", "", "trainer.service");
	expect("user service, the innermost unit",
	       "0::/user.slice/user-1000.slice/user@1000.service/app.slice/jupyter.service\n",
	       "", "", "jupyter.service");
	expect("login session", "0::/user.slice/user-1000.slice/session-3.scope\n", "", "",
	       "session-3.scope");
	expect("Slurm step (cgroup/v2)",
	       "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n", "", "",
	       "job_4242/step_0");
	expect("Slurm batch step", "0::/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0\n",
	       "", "", "job_7/step_batch");
	expect("Slurm (cgroup/v1): the step, not slurmd's systemd unit",
	       "4:freezer:/slurm/uid_1000/job_99/step_3/task_0\n"
	       "1:name=systemd:/system.slice/slurmd.service\n", "", "", "job_99/step_3");
	expect("v1: the systemd unit when no hierarchy names more",
	       "4:memory:/\n1:name=systemd:/system.slice/trainer.service\n", "", "", "trainer.service");
	expect("Slurm (cgroup/v1, no systemd line)", "4:freezer:/slurm/uid_1000/job_99/step_3/task_0\n",
	       "", "", "job_99/step_3");
	/*
	 * issue 42: forgeries.  A user with a delegated cgroup (user@UID.service,
	 * a Delegate=yes unit, a Slurm step's own subtree) names cgroups below it
	 * after the kubelet's, a runtime's or Slurm's: none of them is believed.
	 */
	expect("forged: a pod and container below user@1000.service",
	       "0::/user.slice/user-1000.slice/user@1000.service/app.slice/kubepods.slice/"
	       "kubepods-burstable.slice/kubepods-burstable-pod" UIDS ".slice/cri-containerd-" CID
	       ".scope\n", "", "", "cri-containerd-" CID ".scope");
	expect("forged: cgroupfs layout below a delegated service",
	       "0::/system.slice/build.service/kubepods/burstable/pod" UID "/" CID "\n", "", "",
	       "build.service");
	expect("forged: a reader in a namespace, a pod below a user's scope",
	       "0::/../../user.slice/user-1000.slice/run-r1.scope/kubepods-pod" UIDS
	       ".slice/cri-containerd-" CID ".scope\n", "", "", "cri-containerd-" CID ".scope");
	expect("forged: a Docker container id below a user's unit",
	       "0::/user.slice/user-1000.slice/user@1000.service/x/docker-" CID ".scope\n", "", "",
	       "docker-" CID ".scope");
	expect("forged: another container below one's own container",
	       "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	       ".slice/cri-containerd-" CID ".scope/kubepods-pod1111111111111111.slice/"
	       "cri-containerd-ffffffffffffffffffff.scope\n", UID, CID, "");
	expect("forged: a pod's container two levels below the pod",
	       "0::/kubepods/burstable/pod" UID "/mine/" CID "\n", UID, "", "");
	expect("forged: a Slurm step below user@1000.service",
	       "0::/user.slice/user-1000.slice/user@1000.service/app.slice/slurmstepd.scope/job_4242/"
	       "step_0\n", "", "", "slurmstepd.scope");
	expect("forged: a Slurm step below one's own step",
	       "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0/job_4242/step_1\n", "", "",
	       "job_7/step_0");
	expect("forged: a job below a delegated scope (no slurmstepd.scope)",
	       "0::/user.slice/user-1000.slice/session-2.scope/job_4242/step_0\n", "", "",
	       "session-2.scope");
	expect("forged: v1 slurm tree below a delegated unit",
	       "4:freezer:/system.slice/x.service/slurm/uid_0/job_1/step_0\n", "", "", "x.service");
	/* neither */
	expect("the root cgroup", "0::/\n", "", "", "");
	expect("an init.scope-less custom group", "0::/gpujobs/a\n", "", "", "");
	expect("empty file", "", "", "", "");
	expect("garbage", "no colons here\n", "", "", "");
	expect("a pod slice with a bad UID", "0::/kubepods.slice/kubepods-podXYZ!.slice/x\n", "", "", "");
	expect("a scope with a short id", "0::/system.slice/docker-abc.scope\n", "", "",
	       "docker-abc.scope");
	/* a real process: ours, and one that is gone */
	if (cg_read_pid(getpid(), &a) == 0)
		pass++;
	else
		fail++, printf("FAIL cg_read_pid(self)\n");
	if (cg_read_pid(0x3fffffff, &a) == -1 && !a.pod_uid[0])
		pass++;
	else
		fail++, printf("FAIL cg_read_pid(gone)\n");
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
