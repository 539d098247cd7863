// SPDX-License-Identifier: GPL-2.0
/*
 * cgtree.c - cgroup v2 subtrees by id and level (cgtree.h).
 *
 * On cgroup v2 a cgroup's id is its directory's inode number, and its
 * level the number of directories between it and the root (level 0, id 1).
 * A process is in a subtree when its cgroup's ancestor at the subtree's
 * level has the subtree's id: what bpf_get_current_ancestor_cgroup_id()
 * answers in the watcher, and cg_ancestor_id() here from /proc/PID/cgroup.
 *
 * Pods are found where the kubelet makes them: under a directory whose
 * name has "kube" in it (kubepods, kubepods.slice, kubelet.slice, ...),
 * or below one, at most POD_DEPTH levels down; cg_classify (cgroup.c) says which
 * directory is a pod's, in either layout.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgtree.h"

#define CG2_MAGIC	0x63677270	/* CGROUP2_SUPER_MAGIC */
#define CG_ROOT_ID	1
#define POD_DEPTH	5

int cg_v2_root(char *err, size_t len)
{
	struct statfs fs;
	struct stat st;

	if (statfs(CG_MOUNT, &fs) || stat(CG_MOUNT, &st)) {
		snprintf(err, len, "%s: nothing mounted (%m)", CG_MOUNT);
		return -1;
	}
	if (fs.f_type != CG2_MAGIC) {
		snprintf(err, len, "%s is not cgroup v2 (a cgroup v1 or hybrid host): pod and "
			 "cgroup-tree rules need the unified hierarchy (systemd."
			 "unified_cgroup_hierarchy=1)", CG_MOUNT);
		return -1;
	}
	if (st.st_ino != CG_ROOT_ID) {
		snprintf(err, len, "%s is a cgroup namespace's view, not the host's root: run "
			 "gpuctl in the host's cgroup namespace", CG_MOUNT);
		return -1;
	}
	return 0;
}

/* The parts of path: none "." or ".."; how many, or -1. */
static int count_parts(const char *path)
{
	int n = 0;

	for (const char *s = path; *s;) {
		size_t l = strcspn(s, "/");

		if ((l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.'))
			return -1;
		n += l > 0;
		s += l;
		s += *s == '/';
	}
	return n;
}

/* path below the mount (CG_MOUNT's own prefix taken off) */
static const char *below_mount(const char *path)
{
	const size_t ml = strlen(CG_MOUNT);

	if (!strncmp(path, CG_MOUNT, ml) && (path[ml] == '/' || !path[ml]))
		return path + ml;
	return path;
}

int cg_tree_syntax(const char *path, char *err, size_t len)
{
	if (count_parts(below_mount(path)) >= 0)
		return 0;
	snprintf(err, len, "'%s' has a '.' or '..' part: name the cgroup as it is under %s",
		 path, CG_MOUNT);
	return -1;
}

int cg_tree_at(const char *path, uint64_t *id, unsigned int *level, char *err, size_t len)
{
	const size_t ml = strlen(CG_MOUNT);
	char full[PATH_MAX], real[PATH_MAX];
	const char *rel = below_mount(path);
	struct statfs fs;
	struct stat st;
	int n;

	if (cg_tree_syntax(path, err, len))
		return -1;
	if (snprintf(full, sizeof(full), "%s/%s", CG_MOUNT, rel + (*rel == '/')) >=
	    (int)sizeof(full)) {
		snprintf(err, len, "'%s' is too long", path);
		return -1;
	}
	if (!realpath(full, real) || stat(real, &st)) {
		snprintf(err, len, "%s: no such cgroup", full);
		return -1;
	}
	if (strncmp(real, CG_MOUNT, ml) || (real[ml] && real[ml] != '/') ||
	    statfs(real, &fs) || fs.f_type != CG2_MAGIC) {
		snprintf(err, len, "%s is outside the cgroup v2 mount %s", full, CG_MOUNT);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, len, "%s is not a cgroup (a file in one)", full);
		return -1;
	}
	n = count_parts(real + ml);
	if (n < 0) {
		snprintf(err, len, "%s: no such cgroup", full);
		return -1;
	}
	*id = st.st_ino;
	*level = (unsigned int)n;
	return 0;
}

int cg_uid_norm(const char *s, char hex[CG_UID_HEX + 1])
{
	static const int dash[] = { 8, 13, 18, 23 };
	size_t n = strlen(s), k = 0, d = 0;

	if (n != CG_UID_HEX && n != CG_UID_HEX + 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (n > CG_UID_HEX && d < 4 && (int)i == dash[d]) {
			if (s[i] != '-')
				return -1;
			d++;
			continue;
		}
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		hex[k++] = (char)tolower((unsigned char)s[i]);
	}
	hex[k] = '\0';
	return n == CG_UID_HEX ? 2 : 1;
}

struct pod_walk {
	const char *hex;
	char *path;
	size_t plen;
	uint64_t id;
	unsigned int level;
	int found;
};

/* rel (depth parts below the mount, "" the root): the pod's directory, or a way to it. */
static void pod_walk(struct pod_walk *w, const char *rel, unsigned int depth)
{
	char dir[PATH_MAX], sub[PATH_MAX], hex[CG_UID_HEX + 1];
	struct dirent *e;
	DIR *d;

	if (snprintf(dir, sizeof(dir), "%s/%s", CG_MOUNT, rel) >= (int)sizeof(dir))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while (!w->found && (e = readdir(d))) {
		struct cg_attr a;
		struct stat st;

		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
		    (int)sizeof(sub))
			continue;
		cg_classify(sub, &a);
		if (a.pod_uid[0]) {
			if (a.container_id[0] || cg_uid_norm(a.pod_uid, hex) < 0 ||
			    strcmp(hex, w->hex))
				continue;	/* another pod's: nothing of ours below */
			if (snprintf(dir, sizeof(dir), "%s/%s", CG_MOUNT, sub) >= (int)sizeof(dir) ||
			    stat(dir, &st) || !S_ISDIR(st.st_mode))
				continue;
			snprintf(w->path, w->plen, "%s", sub);
			w->id = st.st_ino;
			w->level = depth + 1;
			w->found = 1;
		} else if (depth + 1 < POD_DEPTH &&
			   (strstr(e->d_name, "kube") || strstr(rel, "kube"))) {
			pod_walk(w, sub, depth + 1);
		}
	}
	closedir(d);
}

int cg_pod_find(const char *hex, char *path, size_t plen, uint64_t *id, unsigned int *level)
{
	struct pod_walk w = { .hex = hex, .path = path, .plen = plen };

	pod_walk(&w, "", 0);
	if (!w.found)
		return 0;
	*id = w.id;
	*level = w.level;
	return 1;
}

uint64_t cg_ancestor_id(pid_t pid, unsigned int level)
{
	char file[64], buf[4096], full[PATH_MAX];
	const char *p = NULL;
	struct stat st;
	unsigned int n = 0;
	size_t at;
	ssize_t got;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return 0;
	buf[got] = '\0';
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, "0::/", 4)) {
			p = l + 3;
			break;
		}
	if (!p || !strncmp(p, "/..", 3))
		return 0;	/* no v2 line, or a cgroup outside our namespace's view */
	at = strlen(CG_MOUNT);
	memcpy(full, CG_MOUNT, at);
	for (const char *s = p; n < level; n++) {
		size_t l;

		s += *s == '/';
		l = strcspn(s, "/\n");
		if (!l || at + 1 + l >= sizeof(full))
			return 0;	/* the process's cgroup is above level */
		full[at++] = '/';
		memcpy(full + at, s, l);
		at += l;
		s += l;
	}
	full[at] = '\0';
	return stat(full, &st) ? 0 : st.st_ino;
}
