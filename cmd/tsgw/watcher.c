// SPDX-License-Identifier: GPL-2.0
/*
 * watcher.c - the TSG watcher's life (bpf/tsg_watch.bpf.c): the one place it
 * is loaded, privately for trace tsg or pinned under <bpffs>/gpuctl/sched
 * for gpuctl sched, opened again from its pins, and unpinned.
 *
 * The pins: five maps, then the two links, sys_enter's last.  A watcher is
 * there when every pin is (watcher_pinned); the last pin makes it so, and a
 * start that fails removes what it pinned itself.  Starting, stopping and
 * unpinning hold an flock on the pin directory (sched_lock), so two at once
 * cannot leave half a watcher or remove the pins of another.  Only the names
 * below are ever unlinked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "rm.h"		/* the RM device */
#include "tsgw/tsgw.h"
#include "tsg_watch.skel.h"

/* What sched pins, in the order it pins them. */
enum {
	PIN_TSGS,
	PIN_POLICY,
	PIN_META,
	PIN_STATS,
	PIN_EVENTS,
	PIN_LINK_EXIT,
	PIN_LINK_ENTER,	/* last: the watcher is there once it is */
	PIN_NR,
	PIN_MAPS = PIN_LINK_EXIT,	/* the first PIN_MAPS are maps */
};

static const char *const pin_names[PIN_NR] = {
	[PIN_TSGS] = "tsgs",
	[PIN_POLICY] = "policy",
	[PIN_META] = "meta",
	[PIN_STATS] = "stats",
	[PIN_EVENTS] = "events",
	[PIN_LINK_EXIT] = "link_sys_exit",
	[PIN_LINK_ENTER] = "link_sys_enter",
};

static int *map_fd(struct watcher *w, int pin)
{
	int *fds[PIN_MAPS] = {
		[PIN_TSGS] = &w->tsgs,
		[PIN_POLICY] = &w->policy,
		[PIN_META] = &w->meta,
		[PIN_STATS] = &w->stats,
		[PIN_EVENTS] = &w->events,
	};

	return fds[pin];
}

static void pin_path(const char *dir, int pin, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, pin_names[pin]);
}

void watcher_close(struct watcher *w)
{
	for (int i = 0; i < PIN_MAPS; i++) {
		int *fd = map_fd(w, i);

		/* a private watcher's fds belong to its BPF object */
		if (*fd >= 0 && !w->skel)
			close(*fd);
		*fd = -1;
	}
	tsg_watch__destroy(w->skel);
	w->skel = NULL;
}

__u64 watcher_meta(const struct watcher *w, __u32 slot)
{
	__u64 v = 0;

	bpf_map_lookup_elem(w->meta, &slot, &v);
	return v;
}

/* Opens, loads and attaches the BPF object for device rdev; NULL with reason set. */
static struct tsg_watch *watcher_load(dev_t rdev, char *reason, size_t len)
{
	struct tsg_watch *skel = tsg_watch__open();
	int err;

	if (!skel) {
		snprintf(reason, len, "opening the TSG watcher BPF object failed: %s",
			 strerror(errno));
		return NULL;
	}
	skel->rodata->dev_major = major(rdev);
	skel->rodata->dev_minor = minor(rdev);
	skel->rodata->any_minor = major(rdev) == RM_NVIDIA_MAJOR;
	/* One line says why below; libbpf's warnings are for -d. */
	libbpf_quiet_begin();
	err = tsg_watch__load(skel);
	if (err == -EPERM || err == -EACCES) {
		snprintf(reason, len, "loading the TSG watcher refused: %s (needs CAP_BPF and "
			 "CAP_PERFMON, or CAP_SYS_ADMIN; else a kernel policy forbids it)",
			 strerror(-err));
	} else if (err) {
		snprintf(reason, len, "loading the TSG watcher failed: %s (raw tracepoints "
			 "and kernel BTF needed; run with -d for the verifier log)",
			 strerror(-err));
	} else {
		err = tsg_watch__attach(skel);
		if (err)
			snprintf(reason, len, "attaching the TSG watcher to the raw tracepoints "
				 "sys_enter/sys_exit failed: %s", strerror(-err));
	}
	libbpf_quiet_end();
	if (err) {
		tsg_watch__destroy(skel);
		return NULL;
	}
	return skel;
}

static void watcher_fds(struct watcher *w, struct tsg_watch *skel)
{
	w->tsgs = bpf_map__fd(skel->maps.tsgs);
	w->policy = bpf_map__fd(skel->maps.policy);
	w->meta = bpf_map__fd(skel->maps.meta);
	w->stats = bpf_map__fd(skel->maps.stats);
	w->events = bpf_map__fd(skel->maps.events);
}

int watcher_private(struct watcher *w, dev_t rdev, char *reason, size_t len)
{
	struct tsg_watch *skel = watcher_load(rdev, reason, len);

	*w = (struct watcher)WATCHER_INIT;
	if (!skel)
		return -EINVAL;
	watcher_fds(w, skel);
	w->skel = skel;
	return 0;
}

/* ------------------------------------------------------------------ pins */

/* <bpffs>/gpuctl, or its sched directory: there now? */
static bool dir_present(bool sched)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/gpuctl%s", bpffs_root(), sched ? "/" SCHED_OBJECT : "");
	return !lstat(path, &st);
}

int sched_lock(bool create, char *dir, size_t len, unsigned int *made)
{
	bool had_top = dir_present(false), had_dir = dir_present(true);
	int fd = pin_dir_lock(SCHED_OBJECT, create, dir, len);

	if (fd >= 0 && made)
		*made = (had_top ? 0 : SCHED_MADE_TOP) | (had_dir ? 0 : SCHED_MADE_DIR);
	return fd >= 0 || fd == -ENOENT ? fd : -1;
}

void sched_unmake(const char *dir, unsigned int made)
{
	char top[PATH_MAX];

	/* rmdir: only while empty, so never what another command put there */
	if (made & SCHED_MADE_DIR)
		rmdir(dir);
	snprintf(top, sizeof(top), "%s/gpuctl", bpffs_root());
	if (made & SCHED_MADE_TOP)
		rmdir(top);
}

int watcher_dev_check(const char *dev)
{
	char dir[PATH_MAX], reason[320];
	int err = pin_dir(SCHED_OBJECT, false, dir, sizeof(dir));
	dev_t rdev;

	if (!err && watcher_pinned(dir))
		return 0;
	if (err && err != -ENOENT)
		return -1;	/* an untrusted pin directory: said why */
	if (rm_device_rdev(dev, &rdev, reason, sizeof(reason))) {
		p_err("%s", reason);
		return -1;
	}
	return 0;
}

bool watcher_pinned(const char *dir)
{
	char path[PATH_MAX];

	for (int i = 0; i < PIN_NR; i++) {
		pin_path(dir, i, path, sizeof(path));
		if (access(path, F_OK))
			return false;
	}
	return true;
}

/* The pinned maps have the layouts this gpuctl was built for (pins outlive binaries). */
static int abi_check(const struct watcher *w)
{
	struct {
		int fd;
		__u32 key, value;
	} want[] = {
		{ w->tsgs, sizeof(struct tsg_key), sizeof(struct tsg_info) },
		{ w->policy, sizeof(__u32), sizeof(struct policy) },
		{ w->meta, sizeof(__u32), sizeof(__u64) },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct bpf_map_info info = { 0 };
		__u32 ilen = sizeof(info);

		if (bpf_map_get_info_by_fd(want[i].fd, &info, &ilen))
			return -errno;
		if (info.key_size != want[i].key || info.value_size != want[i].value)
			return -EPROTO;
	}
	return 0;
}

void watcher_version_err(const char *dir)
{
	p_err("the watcher pinned under %s is from another gpuctl version (its maps' "
	      "layout differs): '%s sched unload', then '%s sched watch'", dir, bin_name,
	      bin_name);
}

int watcher_open(const char *dir, struct watcher *w)
{
	char path[PATH_MAX];
	int err;

	*w = (struct watcher)WATCHER_INIT;
	if (!watcher_pinned(dir))
		return -ENOENT;
	for (int i = 0; i < PIN_MAPS; i++) {
		pin_path(dir, i, path, sizeof(path));
		*map_fd(w, i) = bpf_obj_get(path);
		if (*map_fd(w, i) < 0) {
			err = -errno;
			watcher_close(w);
			/* an unload between the check and here: none is pinned now */
			if (err == -ENOENT)
				return err;
			p_err("cannot open the watcher's map %s: %s", path, strerror(-err));
			return err;
		}
	}
	err = abi_check(w);
	if (err) {
		if (err != -EPROTO)
			p_err("cannot read the watcher's maps under %s: %s", dir, strerror(-err));
		watcher_close(w);
	}
	return err;
}

/* Unlinks the pins of names [0, upto) that exist; -errno of the first failure. */
static int unpin_names(const char *dir, int upto)
{
	char path[PATH_MAX];
	int ret = 0;

	for (int i = upto - 1; i >= 0; i--) {
		pin_path(dir, i, path, sizeof(path));
		if (unlink(path) && errno != ENOENT && !ret)
			ret = -errno;
	}
	return ret;
}

int watcher_unpin(const char *dir)
{
	int err = unpin_names(dir, PIN_NR);

	if (err)
		return err;
	if (rmdir(dir) && errno != ENOENT)
		return -errno;
	return 0;
}

/* The boot-time facts list and status show, in the meta array. */
static void meta_init(struct tsg_watch *skel, dev_t rdev)
{
	int fd = bpf_map__fd(skel->maps.meta);
	struct {
		__u32 slot;
		__u64 v;
	} m[] = {
		{ META_STARTED, boottime_ns() },
		{ META_RDEV, ((__u64)major(rdev) << 20) | minor(rdev) },
		{ META_ANY_MINOR, skel->rodata->any_minor },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		bpf_map_update_elem(fd, &m[i].slot, &m[i].v, BPF_ANY);
}

int watcher_pin(const char *dir, const char *dev)
{
	struct tsg_watch *skel;
	char reason[320], path[PATH_MAX];
	int i, err = 0;
	dev_t rdev;

	if (rm_device_rdev(dev, &rdev, reason, sizeof(reason))) {
		p_err("%s", reason);
		return -1;
	}
	/*
	 * Pins of a start that died half-way (the caller holds the lock, so
	 * nobody is starting now): only sched's own names.
	 */
	unpin_names(dir, PIN_NR);
	skel = watcher_load(rdev, reason, sizeof(reason));
	if (!skel) {
		p_err("%s", reason);
		return -1;
	}
	meta_init(skel, rdev);
	for (i = 0; i < PIN_NR; i++) {
		struct bpf_map *maps[PIN_MAPS] = {
			[PIN_TSGS] = skel->maps.tsgs,
			[PIN_POLICY] = skel->maps.policy,
			[PIN_META] = skel->maps.meta,
			[PIN_STATS] = skel->maps.stats,
			[PIN_EVENTS] = skel->maps.events,
		};

		pin_path(dir, i, path, sizeof(path));
		if (i < PIN_MAPS)
			err = bpf_map__pin(maps[i], path);
		else
			err = bpf_link__pin(i == PIN_LINK_EXIT ? skel->links.tsg_sys_exit :
					    skel->links.tsg_sys_enter, path);
		if (err) {
			p_err("pinning %s failed: %s", path, strerror(-err));
			/* what this call pinned, and nothing else */
			unpin_names(dir, i);
			break;
		}
	}
	tsg_watch__destroy(skel);	/* the pins keep it attached */
	return err ? -1 : 0;
}
