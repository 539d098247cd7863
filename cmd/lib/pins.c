// SPDX-License-Identifier: GPL-2.0
/*
 * pins.c - where gpuctl pins its BPF objects, and the rule that keeps that
 * tree safe: bpffs is often mode 1777, so a directory in it may have been
 * made by anybody.  gpuctl uses <bpffs>/gpuctl and <bpffs>/gpuctl/<object>
 * only when each is a real directory (never a symlink), owned by root or by
 * this process's user, and writable by nobody else; it creates them only
 * for a command that changes state, after that command's capability check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "gpuctl.h"
#include "text.h"

const char *bpffs_root(void)
{
	const char *env = getenv("GPUCTL_BPFFS");

	return env && *env ? env : BPFFS_ROOT;
}

bool bpffs_mounted(void)
{
	struct statfs st;

	return !statfs(bpffs_root(), &st) && st.f_type == BPF_FS_MAGIC;
}

int bpffs_check(void)
{
	if (bpffs_mounted())
		return 0;
	err_code("BPFFS_ABSENT");
	p_err("bpffs is not mounted at %s: mount it with 'mount -t bpf bpf %s' "
	      "(or name another bpffs mount in $GPUCTL_BPFFS)", bpffs_root(), bpffs_root());
	return -1;
}

bool pin_tree_exists(void)
{
	char top[PATH_MAX];
	struct stat st;

	if (!bpffs_mounted())
		return false;
	snprintf(top, sizeof(top), "%s/gpuctl", bpffs_root());
	return !lstat(top, &st) || errno != ENOENT;
}

const char *bpffs_note(void)
{
	static char note[4 * PATH_MAX + 64];
	char path[4 * PATH_MAX + 1];
	const char *root = bpffs_root();

	if (bpffs_mounted())
		return "";
	snprintf(note, sizeof(note), " (bpffs not mounted at %s)",
		 str_printable(path, sizeof(path), root, strlen(root)));
	return note;
}

/*
 * One directory of the pin tree: 0 when it is trustworthy (made now when
 * create), -ENOENT when it does not exist and !create (quiet), else -errno,
 * said in one p_err line when say.
 */
static int trusted_dir(const char *path, bool create, bool say)
{
	struct stat st;
	int err;

	if (lstat(path, &st)) {
		err = -errno;
		if (errno == ENOENT && !create)
			return -ENOENT;
		if (errno != ENOENT)
			goto unreadable;
		if (mkdir(path, 0700) && errno != EEXIST) {
			err = -errno;
			if (say)
				p_err("cannot create %s: %s", path, strerror(-err));
			return err;
		}
		if (lstat(path, &st)) {
			err = -errno;
			goto unreadable;
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		if (say)
			p_err("%s is not a directory (%s): gpuctl does not follow it; remove it as root",
			      path, S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
		return -ENOTDIR;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		if (say)
			p_err("%s is owned by uid %u with mode %04o: gpuctl uses only pin directories "
			      "owned by root and writable by nobody else; remove it as root",
			      path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
unreadable:
	if (say)
		p_err("cannot read %s: %s", path, strerror(-err));
	return err;
}

static int pin_dir_say(const char *object, bool create, char *buf, size_t len, bool say)
{
	char top[PATH_MAX];
	int err;

	if (!bpffs_mounted()) {
		if (!create)
			return -ENOENT;
		return bpffs_check() ? -ENODEV : 0;
	}
	snprintf(top, sizeof(top), "%s/gpuctl", bpffs_root());
	err = trusted_dir(top, create, say);
	if (err)
		return err;
	if ((size_t)snprintf(buf, len, "%s/%s", top, object) >= len) {
		if (say)
			p_err("pin path %s/%s is too long", top, object);
		return -ENAMETOOLONG;
	}
	return trusted_dir(buf, create, say);
}

int pin_dir(const char *object, bool create, char *buf, size_t len)
{
	return pin_dir_say(object, create, buf, len, true);
}

int pin_dir_quiet(const char *object, char *buf, size_t len)
{
	return pin_dir_say(object, false, buf, len, false);
}

int pin_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		p_err("cannot lock %s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}
