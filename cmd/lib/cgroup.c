// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c - attribution of a process from its cgroup path (cgroup.h).
 * The kubelet names a pod's cgroup after its UID and the runtime a
 * container's after its id, in one of two layouts:
 *
 *   systemd driver   /kubepods.slice/kubepods-burstable.slice/
 *                      kubepods-burstable-pod<UID with _>.slice/cri-containerd-<ID>.scope
 *                    (guaranteed pods: kubepods-pod<UID>.slice; crio-<ID>.scope,
 *                     docker-<ID>.scope)
 *   cgroupfs driver  /kubepods/burstable/pod<UID>/<ID>
 *
 * below a --cgroup-root, or as a reader in a cgroup namespace sees it
 * ("/../../kubepods-...").  Anything else is a unit: Slurm's job_N/step_M
 * (under slurmstepd.scope, or /slurm/uid_U/), or the innermost .service or
 * .scope.
 *
 * Only the levels the kubelet, the runtime and Slurm own are believed: a
 * unit (.service, .scope) can be delegated to a user (user@UID.service,
 * Delegate=yes), who may then name cgroups below it at will -- a
 * "kubepods-...-pod<UID>.slice/cri-containerd-<ID>.scope" or "job_N/step_M"
 * there is a forgery.  So a pod (and a container outside a pod) counts only
 * when no unit lies above it; a pod's container only at the level right
 * below the pod; the cgroupfs driver's pod only right below kubepods or its
 * QoS level; a Slurm job only right below slurmstepd.scope (with no unit
 * above that) or /slurm[_NODE]/uid_U/, and its step right below the job.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

#define CG_MAX_PARTS 64

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

static bool starts_with(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && !memcmp(s, pre, k);
}

/* n bytes of s are a pod UID: hex, '-' or the systemd driver's '_'. */
static bool uid_ok(const char *s, size_t n)
{
	if (n < 8 || n >= CG_POD_UID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

static bool id_ok(const char *s, size_t n)
{
	if (n < 12 || n >= CG_CTR_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static void set_uid(struct cg_attr *a, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a->pod_uid[i] = s[i] == '_' ? '-' : s[i];
	a->pod_uid[n] = '\0';
}

/* A systemd-driver pod slice: ...kubepods...-pod<UID>.slice. */
static bool pod_slice(const char *s, size_t n, struct cg_attr *a)
{
	const char *p = NULL;

	if (!ends_with(s, n, ".slice") || !memmem(s, n, "kubepods", 8))
		return false;
	for (const char *q = s; (q = memmem(q, s + n - q, "-pod", 4)); q++)
		p = q;
	if (!p)
		return false;
	p += 4;
	if (!uid_ok(p, s + n - 6 - p))
		return false;
	set_uid(a, p, s + n - 6 - p);
	return true;
}

/* A runtime's scope: cri-containerd-<ID>.scope, crio-<ID>.scope, docker-<ID>.scope. */
static bool ctr_scope(const char *s, size_t n, struct cg_attr *a)
{
	static const char *const pre[] = { "cri-containerd-", "crio-", "docker-" };

	if (ends_with(s, n, ".scope"))
		n -= 6;
	for (size_t k = 0; k < sizeof(pre) / sizeof(pre[0]); k++) {
		size_t l = strlen(pre[k]);

		if (starts_with(s, n, pre[k]) && id_ok(s + l, n - l)) {
			snprintf(a->container_id, sizeof(a->container_id), "%.*s", (int)(n - l), s + l);
			return true;
		}
	}
	return false;
}

static bool is_unit(const char *s, size_t n)
{
	return ends_with(s, n, ".service") || ends_with(s, n, ".scope");
}

static bool named(const char *s, size_t n, const char *name)
{
	return n == strlen(name) && !memcmp(s, name, n);
}

/*
 * Slurm's job_N[/step_M] at part i: right below slurmstepd.scope, the first
 * unit of the path (v2), or right below /slurm[_NODE]/uid_U/ (v1).
 */
static bool slurm_step(const char *const *part, const size_t *len, int i, int n, int first_unit,
		       struct cg_attr *a)
{
	bool v2, v1;

	if (!starts_with(part[i], len[i], "job_") || len[i] < 5 ||
	    !isdigit((unsigned char)part[i][4]) || i < 1)
		return false;
	v2 = first_unit == i - 1 && named(part[i - 1], len[i - 1], "slurmstepd.scope");
	v1 = i >= 2 && first_unit > i && starts_with(part[i - 1], len[i - 1], "uid_") &&
	     (named(part[i - 2], len[i - 2], "slurm") || starts_with(part[i - 2], len[i - 2], "slurm_"));
	if (!v2 && !v1)
		return false;
	if (i + 1 < n && starts_with(part[i + 1], len[i + 1], "step_"))
		snprintf(a->unit, sizeof(a->unit), "%.*s/%.*s", (int)len[i], part[i],
			 (int)len[i + 1], part[i + 1]);
	else
		snprintf(a->unit, sizeof(a->unit), "%.*s", (int)len[i], part[i]);
	return true;
}

/* The cgroupfs driver's pod<UID> at part i: right below kubepods or kubepods/<QoS>. */
static bool cgroupfs_pod(const char *const *part, const size_t *len, int i)
{
	int k = i - 1;

	if (!starts_with(part[i], len[i], "pod") || !uid_ok(part[i] + 3, len[i] - 3) || k < 0)
		return false;
	if (k >= 1 && (named(part[k], len[k], "burstable") || named(part[k], len[k], "besteffort")))
		k--;
	return named(part[k], len[k], "kubepods");
}

void cg_classify(const char *path, struct cg_attr *a)
{
	const char *part[CG_MAX_PARTS];
	size_t len[CG_MAX_PARTS];
	int n = 0, pod = -1, unit = -1, first_unit;

	memset(a, 0, sizeof(*a));
	for (const char *s = path; *s && n < CG_MAX_PARTS;) {
		size_t l = strcspn(s, "/");

		if (l && !(l == 2 && !memcmp(s, "..", 2)) && !(l == 1 && *s == '.')) {
			part[n] = s;
			len[n++] = l;
		}
		s += l;
		s += *s == '/';
	}
	for (int i = 0; i < n; i++)
		if (is_unit(part[i], len[i]))
			unit = i;
	for (first_unit = 0; first_unit < n && !is_unit(part[first_unit], len[first_unit]);)
		first_unit++;
	/* the pod: a level no unit lies above (nobody could delegate it) */
	for (int i = 0; i < n && i <= first_unit && pod < 0; i++) {
		if (pod_slice(part[i], len[i], a))
			pod = i;
		else if (cgroupfs_pod(part, len, i))
			set_uid(a, part[i] + 3, len[i] - 3), pod = i;
	}
	if (pod >= 0 && pod + 1 < n) {	/* its container: the level right below */
		if (!ctr_scope(part[pod + 1], len[pod + 1], a) && id_ok(part[pod + 1], len[pod + 1]))
			snprintf(a->container_id, sizeof(a->container_id), "%.*s",
				 (int)len[pod + 1], part[pod + 1]);
	} else if (pod < 0 && first_unit < n) {	/* a runtime's container outside Kubernetes */
		ctr_scope(part[first_unit], len[first_unit], a);
	}
	if (a->pod_uid[0] || a->container_id[0])
		return;
	for (int i = 0; i < n; i++)
		if (slurm_step(part, len, i, n, first_unit, a))
			return;
	if (unit >= 0)
		snprintf(a->unit, sizeof(a->unit), "%.*s", (int)len[unit], part[unit]);
}

/* The path of one "ID:CONTROLLERS:PATH" line (up to its end), or NULL. */
static const char *line_path(const char *line, size_t n, const char *want_ctrl, size_t *plen)
{
	const char *c1 = memchr(line, ':', n), *c2;

	if (!c1)
		return NULL;
	c2 = memchr(c1 + 1, ':', line + n - c1 - 1);
	if (!c2)
		return NULL;
	if (want_ctrl && ((size_t)(c2 - c1 - 1) != strlen(want_ctrl) ||
			  memcmp(c1 + 1, want_ctrl, c2 - c1 - 1)))
		return NULL;
	*plen = line + n - c2 - 1;
	return c2 + 1;
}

/* What ranks a v1 hierarchy's attribution: a pod, a container or a Slurm step first. */
static bool cg_strong(const struct cg_attr *a)
{
	return a->pod_uid[0] || a->container_id[0] || !strncmp(a->unit, "job_", 4);
}

void cg_attr_of(const char *text, struct cg_attr *a)
{
	/*
	 * v2 first (its controllers field is empty), then name=systemd, then
	 * any hierarchy: the first that names a pod, container or Slurm step,
	 * else the first unit found
	 */
	static const char *const pass[] = { "", "name=systemd", NULL };
	struct cg_attr got, weak;
	char path[1024];

	memset(&weak, 0, sizeof(weak));
	for (size_t k = 0; k < 3; k++) {
		for (const char *l = text; *l;) {
			size_t n = strcspn(l, "\n"), plen;
			const char *p = line_path(l, n, pass[k], &plen);

			l += n;
			l += *l == '\n';
			if (!p || !plen || (plen == 1 && *p == '/') || plen >= sizeof(path))
				continue;
			snprintf(path, sizeof(path), "%.*s", (int)plen, p);
			cg_classify(path, &got);
			if (k == 0 || cg_strong(&got)) {
				*a = got;
				return;
			}
			if (!weak.unit[0])
				weak = got;
		}
	}
	*a = weak;
}

int cg_read_pid(pid_t pid, struct cg_attr *a)
{
	char file[64], buf[4096];
	ssize_t n;
	int fd;

	memset(a, 0, sizeof(*a));
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	cg_attr_of(buf, a);
	return 0;
}
