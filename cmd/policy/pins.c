// SPDX-License-Identifier: GPL-2.0
/*
 * pins.c - the engine's view of an object's pin tree: its directory, what
 * the pinned link holds, the leftovers of interrupted commands and their
 * removal.  The layout and the rule of what may be removed: policy.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "gpuctl.h"
#include "policy.h"

int obj_pin_dir(const struct policy_kind *k, bool create, char *dir, size_t len)
{
	return pin_dir(k->object, create, dir, len);
}

const struct policy_def *find_def(const struct policy_kind *k, const char *name)
{
	for (unsigned int i = 0; i < k->ndefs; i++)
		if (!strcmp(k->defs[i].name, name))
			return &k->defs[i];
	return NULL;
}

void policy_step(const char *step)
{
	const char *stop = getenv("GPUCTL_TEST_STOP");

	if (stop && !strcmp(stop, step))
		raise(SIGSTOP);
}

/* Name of the struct_ops type behind a struct_ops map, from kernel BTF. */
int st_type_of_map(int map_fd, char *buf, size_t len)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	const struct btf_type *t;
	struct btf *vmlinux, *btf;
	const char *name = NULL;
	int err = 0;

	if (bpf_map_get_info_by_fd(map_fd, &info, &ilen))
		return -errno;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -errno;
	btf = info.btf_vmlinux_id ? btf__load_from_kernel_by_id_split(info.btf_vmlinux_id, vmlinux)
				  : vmlinux;
	if (!btf) {
		btf__free(vmlinux);
		return -ENOENT;
	}
	t = btf__type_by_id(btf, info.btf_vmlinux_value_type_id);
	if (t)
		name = btf__name_by_offset(btf, t->name_off);
	/* the value type is "bpf_struct_ops_<type>" */
	if (name && !strncmp(name, "bpf_struct_ops_", 15))
		snprintf(buf, len, "%s", name + 15);
	else
		err = -ENOENT;
	if (btf != vmlinux)
		btf__free(btf);
	btf__free(vmlinux);
	return err;
}

static int read_meta(const char *dir, __u32 map_id, struct policy_meta *meta)
{
	char path[PATH_MAX];
	__u32 zero = 0;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%u/meta", dir, map_id);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	err = bpf_map_lookup_elem(fd, &zero, meta);
	close(fd);
	meta->policy[sizeof(meta->policy) - 1] = 0;
	meta->source[sizeof(meta->source) - 1] = 0;
	return err;
}

/* "link", "map" or "prog": what kind of BPF object fd refers to. */
static int fd_kind(int fd, char *buf, size_t len)
{
	char proc[64], target[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = 0;
	if (strncmp(target, "anon_inode:bpf-", 15))
		return -1;
	snprintf(buf, len, "%s", target + 15);
	return 0;
}

void attached_close(struct attached *a)
{
	if (a->link_fd >= 0)
		close(a->link_fd);
	if (a->map_fd >= 0)
		close(a->map_fd);
	a->link_fd = a->map_fd = -1;
}

const char *attached_name(const struct attached *a)
{
	if (a->have_meta)
		return a->meta.policy;
	return a->map_id ? a->map_name : "stale pin";
}

const struct policy_def *attached_def(const struct policy_kind *k, const struct attached *a)
{
	if (!a->have_meta || strcmp(a->meta.source, "built-in"))
		return NULL;
	return find_def(k, a->meta.policy);
}

/*
 * Fills *a from dir's pinned link.  0 with a->link_fd == -1 when nothing is
 * pinned; -1 (after p_err) when the pin is not a link of our type.
 */
int read_attached(const struct policy_kind *k, const char *dir, struct attached *a)
{
	struct bpf_link_info info = {};
	struct bpf_map_info minfo = {};
	__u32 ilen = sizeof(info), mlen = sizeof(minfo);
	char path[PATH_MAX], type[64], kind[16] = "";
	struct stat st;

	memset(a, 0, sizeof(*a));
	a->link_fd = a->map_fd = -1;
	snprintf(path, sizeof(path), "%s/link", dir);
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		p_err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		p_err("%s is %s, not a BPF pin: gpuctl does not follow it; remove it as root",
		      path, S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
		return -1;
	}
	a->link_fd = bpf_obj_get(path);
	if (a->link_fd < 0) {
		p_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fd_kind(a->link_fd, kind, sizeof(kind)) || strcmp(kind, "link") ||
	    bpf_link_get_info_by_fd(a->link_fd, &info, &ilen)) {
		p_err("%s is not a BPF link but a BPF %s pinned by something else: remove it with 'rm %s'",
		      path, kind[0] ? kind : "object", path);
		goto fail;
	}
	if (info.type != BPF_LINK_TYPE_STRUCT_OPS) {
		p_err("%s is a link of type %u, not a struct_ops link: remove it with 'rm %s'",
		      path, info.type, path);
		goto fail;
	}
	a->link_id = info.id;
	a->map_id = info.struct_ops.map_id;
	if (!a->map_id)
		return 0;	/* detached: a stale pin */

	a->map_fd = bpf_map_get_fd_by_id(a->map_id);
	if (a->map_fd >= 0) {
		if (!bpf_map_get_info_by_fd(a->map_fd, &minfo, &mlen))
			snprintf(a->map_name, sizeof(a->map_name), "%s", minfo.name);
		if (!st_type_of_map(a->map_fd, type, sizeof(type)) && strcmp(type, k->st_type)) {
			p_err("%s holds a struct %s policy, not struct %s: remove it with 'rm %s'",
			      path, type, k->st_type, path);
			goto fail;
		}
	}
	a->have_meta = !read_meta(dir, a->map_id, &a->meta);
	return 0;
fail:
	attached_close(a);
	return -1;
}

/* A map directory's name: a struct_ops map id, in decimal. */
static bool map_dir_id(const char *name, __u32 *id)
{
	unsigned long v;
	char *end;

	if (name[0] < '1' || name[0] > '9')
		return false;
	errno = 0;
	v = strtoul(name, &end, 10);
	if (*end || errno || v > 0xffffffffUL)
		return false;
	*id = (__u32)v;
	return true;
}

/* The pins in map directory fd named link_*: helper links still attached. */
static int helper_links(int fd)
{
	struct dirent *e;
	int n = 0;
	DIR *d = fdopendir(fd);

	if (!d) {
		close(fd);
		return 0;
	}
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "link_", 5);
	closedir(d);
	return n;
}

/* dir as a directory stream, never through a symlink; NULL when it cannot be. */
static DIR *opendir_nofollow(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

int leftovers(const char *dir, __u32 keep, __u32 *ids, int max, int *helpers)
{
	struct dirent *e;
	struct stat st;
	int n = 0, fd;
	DIR *d;
	__u32 id;

	*helpers = 0;
	d = opendir_nofollow(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!map_dir_id(e->d_name, &id) || id == keep ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		if (n < max)
			ids[n] = id;
		n++;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			*helpers += helper_links(fd);
	}
	closedir(d);
	return n;
}

/* Unlinks the pins (regular files) in map directory fd: never more. */
static void unpin_all(int fd)
{
	struct dirent *e;
	struct stat st;
	DIR *d = fdopendir(fd);

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

/* Removes map directory name of directory fd d: its pins, then itself. */
static int remove_one(int d, const char *name)
{
	int sub = openat(d, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (sub < 0)
		return errno == ENOENT ? 0 : -1;	/* not a directory: not ours */
	unpin_all(sub);
	return unlinkat(d, name, AT_REMOVEDIR) ? -1 : 0;
}

int remove_leftovers(const char *dir, __u32 keep)
{
	struct dirent *e;
	int failed = 0;
	DIR *d;
	__u32 id;

	d = opendir_nofollow(dir);
	if (!d)
		return 1;
	while ((e = readdir(d)))
		if (map_dir_id(e->d_name, &id) && id != keep && remove_one(dirfd(d), e->d_name))
			failed++;
	closedir(d);
	return failed;
}

int remove_map_dir(const char *dir, __u32 id)
{
	char name[16];
	int fd, err;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(name, sizeof(name), "%u", id);
	err = remove_one(fd, name);
	close(fd);
	return err;
}
