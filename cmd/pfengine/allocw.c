// SPDX-License-Identifier: GPL-2.0
/*
 * allocw.c - the allocation watcher's user side: one program pair for the
 * whole host (bpf/alloc_watch.bpf.c), loaded and pinned under
 * <bpffs>/gpuctl/allocwatch by the first engine that needs it, joined by
 * the others (each adds its process and its own ring buffer), removed by
 * the last one out.  The pin directory's flock orders them.  Without bpffs
 * an engine loads a program pair of its own (not shared, gone with it);
 * with bpffs but a pin tree gpuctl may not use (a user made <bpffs>/gpuctl
 * first, bpffs being mode 1777), none: the engine is refused (allocw_check).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "allocw.h"
#include "engine.h"	/* pfe_claimed */
#include "alloc_watch.skel.h"

#define OBJ "allocwatch"
static const char *const pins[] = { "targets", "rings", "link_enter", "link_exit" };
#define NPINS 4

/* A private watcher (no bpffs): its skeleton, closed at stop. */
static struct alloc_watch *own;

static int pin_path(char *buf, size_t len, const char *dir, int i)
{
	return snprintf(buf, len, "%s/%s", dir, pins[i]) >= (int)len ? -ENAMETOOLONG : 0;
}

/* Loads and attaches the program pair; pins it in dir (NULL: kept private). */
static int load(const char *dir, int *tfd, int *rfd, char *err, size_t len)
{
	struct alloc_watch *s;
	struct bpf_link *l[2] = { NULL, NULL };
	char p[PATH_MAX];
	int ret;

	libbpf_quiet_begin();
	s = alloc_watch__open_and_load();
	ret = s ? 0 : -errno;
	if (!ret) {
		l[0] = bpf_program__attach(s->progs.aw_sys_enter);
		l[1] = l[0] ? bpf_program__attach(s->progs.aw_sys_exit) : NULL;
		if (!l[1])
			ret = -errno;
	}
	for (int i = 0; !ret && dir && i < NPINS; i++) {
		ret = pin_path(p, sizeof(p), dir, i);
		if (!ret)
			ret = i == 0 ? bpf_map__pin(s->maps.targets, p) :
			      i == 1 ? bpf_map__pin(s->maps.rings, p) : bpf_link__pin(l[i - 2], p);
	}
	libbpf_quiet_end();
	if (ret) {
		snprintf(err, len, "cannot load the allocation watcher: %s", strerror(-ret));
		for (int i = 0; dir && i < NPINS; i++)
			if (!pin_path(p, sizeof(p), dir, i))
				unlink(p);
		bpf_link__destroy(l[0]);
		bpf_link__destroy(l[1]);
		alloc_watch__destroy(s);
		return ret;
	}
	*tfd = dup(bpf_map__fd(s->maps.targets));
	*rfd = dup(bpf_map__fd(s->maps.rings));
	if (dir) {	/* the pins hold it now */
		bpf_link__disconnect(l[0]);
		bpf_link__disconnect(l[1]);
		bpf_link__destroy(l[0]);
		bpf_link__destroy(l[1]);
		alloc_watch__destroy(s);
	} else {
		own = s;	/* its links go with it (alloc_watch__destroy) */
		s->links.aw_sys_enter = l[0];
		s->links.aw_sys_exit = l[1];
	}
	return 0;
}

/* The pinned watcher's maps, loading it first when nobody has. */
static int shared(const char *dir, int *tfd, int *rfd, char *err, size_t len)
{
	char p[PATH_MAX];

	if (pin_path(p, sizeof(p), dir, 0))
		return -ENAMETOOLONG;
	*tfd = bpf_obj_get(p);
	if (*tfd < 0 && errno == ENOENT)
		return load(dir, tfd, rfd, err, len);
	if (*tfd < 0 || pin_path(p, sizeof(p), dir, 1) || (*rfd = bpf_obj_get(p)) < 0) {
		snprintf(err, len, "cannot open the allocation watcher in %s: %s", dir,
			 strerror(errno));
		if (*tfd >= 0)
			close(*tfd);
		return -errno;
	}
	return 0;
}

int allocw_check(void)
{
	char dir[PATH_MAX];

	return bpffs_mounted() && pin_dir(OBJ, true, dir, sizeof(dir)) ? -1 : 0;
}

/* Entries whose engine is not running (killed with -9; the claim says). */
static void sweep(int tfd, int rfd)
{
	uint32_t k, next, *prev = NULL;

	while (!bpf_map_get_next_key(tfd, prev, &next)) {
		k = next;
		if (!pfe_claimed((pid_t)k)) {
			bpf_map_delete_elem(tfd, &k);
			bpf_map_delete_elem(rfd, &k);
			prev = NULL;	/* start again: the key is gone */
			continue;
		}
		prev = &k;
	}
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct allocw *w = ctx;

	if (size >= sizeof(struct aw_event))
		w->fn(data, w->arg);
	return 0;
}

int allocw_start(struct allocw *w, pid_t tgid, uint32_t rdev,
		 void (*fn)(const struct aw_event *e, void *arg), void *arg, char *err, size_t len)
{
	struct aw_target t = { .uvm_rdev = rdev };
	char dir[PATH_MAX];
	uint32_t key = (uint32_t)tgid;
	int lock = -1, ret;

	memset(w, 0, sizeof(*w));
	w->targets_fd = w->rings_fd = w->ring_fd = -1;
	w->tgid = tgid;
	w->fn = fn;
	w->arg = arg;
	/*
	 * With bpffs, the shared pair or none: a pin directory that cannot be
	 * used (planted by a user, say) never makes a second pair on the host.
	 */
	if (!bpffs_mounted())
		ret = load(NULL, &w->targets_fd, &w->rings_fd, err, len);
	else if ((lock = pin_dir_lock(OBJ, true, dir, sizeof(dir))) >= 0)
		ret = shared(dir, &w->targets_fd, &w->rings_fd, err, len);
	else
		ret = lock, snprintf(err, len, "the allocation watcher's pin directory cannot be used "
				     "(the error above)");
	if (!ret) {
		sweep(w->targets_fd, w->rings_fd);
		w->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "aw_ring", 0, 0, AW_RING_BYTES, NULL);
		if (w->ring_fd < 0 || bpf_map_update_elem(w->rings_fd, &key, &w->ring_fd, BPF_ANY) ||
		    bpf_map_update_elem(w->targets_fd, &key, &t, BPF_ANY)) {
			ret = -errno;
			snprintf(err, len, "cannot add process %d to the allocation watcher: %s",
				 (int)tgid, strerror(errno));
		}
	}
	if (!ret) {
		w->rb = ring_buffer__new(w->ring_fd, on_event, w, NULL);
		if (!w->rb) {
			ret = -errno;
			snprintf(err, len, "cannot read the allocation watcher: %s", strerror(errno));
		}
	}
	if (lock >= 0)
		close(lock);
	if (ret)
		allocw_stop(w);
	return ret;
}

/* The last engine out: nothing to watch, the program leaves the host. */
static void unpin_if_empty(int tfd, const char *dir)
{
	char p[PATH_MAX];
	uint32_t next;

	if (bpf_map_get_next_key(tfd, NULL, &next))
		for (int i = NPINS - 1; i >= 0; i--)
			if (!pin_path(p, sizeof(p), dir, i))
				unlink(p);
}

void allocw_sweep(void)
{
	char dir[PATH_MAX], p[PATH_MAX];
	int lock, tfd = -1, rfd = -1;

	if (!bpffs_mounted() || pin_dir_quiet(OBJ, dir, sizeof(dir)))
		return;
	lock = pin_dir_lock(OBJ, false, dir, sizeof(dir));
	if (lock < 0)
		return;
	if (!pin_path(p, sizeof(p), dir, 0))
		tfd = bpf_obj_get(p);
	if (tfd >= 0 && !pin_path(p, sizeof(p), dir, 1))
		rfd = bpf_obj_get(p);
	if (tfd >= 0 && rfd >= 0) {
		sweep(tfd, rfd);
		unpin_if_empty(tfd, dir);
	}
	if (tfd >= 0)
		close(tfd);
	if (rfd >= 0)
		close(rfd);
	close(lock);
}

int allocw_poll(struct allocw *w)
{
	return w->rb ? ring_buffer__consume(w->rb) : 0;
}

uint64_t allocw_new_lost(struct allocw *w)
{
	struct aw_target t;
	uint32_t key = (uint32_t)w->tgid;
	uint64_t n;

	if (w->targets_fd < 0 || bpf_map_lookup_elem(w->targets_fd, &key, &t))
		return 0;
	n = t.lost - w->lost_seen;
	w->lost_seen = t.lost;
	return n;
}

int allocw_fd(const struct allocw *w)
{
	return w->rb ? ring_buffer__epoll_fd(w->rb) : -1;
}

bool allocw_on(const struct allocw *w)
{
	return w->rb != NULL;
}

void allocw_stop(struct allocw *w)
{
	uint32_t key = (uint32_t)w->tgid;
	char dir[PATH_MAX];
	int lock = -1;

	if (w->targets_fd >= 0 && !own)
		lock = pin_dir_lock(OBJ, false, dir, sizeof(dir));
	if (w->targets_fd >= 0) {
		bpf_map_delete_elem(w->targets_fd, &key);
		bpf_map_delete_elem(w->rings_fd, &key);
		if (lock >= 0)
			unpin_if_empty(w->targets_fd, dir);
	}
	if (lock >= 0)
		close(lock);
	ring_buffer__free(w->rb);
	w->rb = NULL;
	if (w->targets_fd >= 0)
		close(w->targets_fd);
	if (w->rings_fd >= 0)
		close(w->rings_fd);
	if (w->ring_fd >= 0)
		close(w->ring_fd);
	w->targets_fd = w->rings_fd = w->ring_fd = -1;
	if (own) {
		alloc_watch__destroy(own);
		own = NULL;
	}
}
