// SPDX-License-Identifier: GPL-2.0
/*
 * tsg.c - reading the TSG table (cmd/tsgw/) for sched, and RM controls on
 * a TSG.  Controls go through the owning process's own RM file, borrowed
 * with pidfd_getfd(): RM answers a client only through the file that
 * created it, and gpuctl keeps that rule.  What a command borrowed is in its
 * struct sched, closed with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "sched.h"

struct read_ctx {
	struct tsg *v;
	int n;
};

static enum tsg_walk collect(const struct tsg_key *key, const struct tsg_info *info, void *arg)
{
	struct read_ctx *c = arg;

	if (tsg_proc_gone(key->pid))
		return TSG_DELETE;
	c->v[c->n].key = *key;
	c->v[c->n].info = *info;
	c->n++;
	return TSG_KEEP;
}

static int tsg_cmp(const void *a, const void *b)
{
	const struct tsg *x = a, *y = b;

	return (x->info.id > y->info.id) - (x->info.id < y->info.id);
}

int tsg_read(struct sched *s, struct tsg **out, int *n)
{
	struct read_ctx c = { .v = calloc(TSG_MAX, sizeof(struct tsg)) };

	if (!c.v || tsg_table_walk(s->w.tsgs, collect, &c)) {
		free(c.v);
		p_err("reading the TSG table: out of memory");
		return -1;
	}
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), tsg_cmp);
	*out = c.v;
	*n = c.n;
	return 0;
}

int tsg_select(struct sched *s, const struct tsg_target *tg, struct tsg **out, int *nout)
{
	struct tsg *v = NULL;
	int n = 0, k = 0;

	if (tsg_read(s, &v, &n))
		return -1;
	for (int i = 0; i < n; i++)
		if (tg->by_pid ? v[i].info.pid == tg->id : v[i].info.id == tg->id)
			v[k++] = v[i];
	if (k) {
		*out = v;
		*nout = k;
		return 0;
	}
	free(v);
	if (!tg->by_pid)
		p_err("no TSG with ID %llu (gone, or never seen; see '%s sched list')",
		      tg->id, bin_name);
	else if (tsg_proc_gone(tg->id))
		p_err("process %llu does not exist (gone?)", tg->id);
	else
		p_err("process %llu has no TSG the watcher saw (allocated before "
		      "'sched watch' started, or not a GPU process)", tg->id);
	return -1;
}

void tsg_label(const struct tsg *t, char *buf, size_t len)
{
	snprintf(buf, len, "TSG %u (pid %u %s, client 0x%x tsg 0x%x)", t->info.id,
		 t->info.pid, t->info.comm, t->info.hClient, t->info.hTsg);
}

/* -------------------------------------------------------------- opening */

/*
 * Opens the watcher's pins: 0, or -1 after one Error line.  With absent_ok,
 * a watcher that is not there (no bpffs, no pins) is 1 and says nothing:
 * status's "nothing loaded" (gpuctl(8), EXIT STATUS).
 */
int sched_open_how(struct sched *s, bool absent_ok)
{
	int err;

	s->w = (struct watcher)WATCHER_INIT;
	if (absent_ok && !bpffs_mounted())
		return 1;
	err = pin_dir(SCHED_OBJECT, false, s->dir, sizeof(s->dir));
	if (err == -ENOENT && bpffs_check())
		return -1;
	if (!err)
		err = watcher_open(s->dir, &s->w);
	if (err == -ENOENT && absent_ok)
		return 1;
	if (err == -ENOENT) {
		p_err("the TSG watcher is not running: start it with '%s sched watch' "
		      "(it sees TSGs allocated after it starts; restart GPU processes "
		      "started before it)", bin_name);
		return -1;
	}
	if (err == -EPROTO)
		watcher_version_err(s->dir);
	if (err)
		return -1;	/* said why */
	s->rdev = watcher_meta(&s->w, META_RDEV);
	s->any_minor = watcher_meta(&s->w, META_ANY_MINOR);
	return 0;
}

int sched_open(struct sched *s)
{
	return sched_open_how(s, false);
}

void sched_files_close(struct sched *s, __u32 pid)
{
	for (int i = 0; i < s->nfiles; i++) {
		if (s->files[i].dup >= 0 && (!pid || s->files[i].pid == pid)) {
			close(s->files[i].dup);
			s->files[i].dup = -1;
		}
	}
}

void sched_close(struct sched *s)
{
	sched_files_close(s, 0);
	free(s->files);
	s->files = NULL;
	s->nfiles = s->files_cap = 0;
	watcher_close(&s->w);
}

/* ------------------------------------------------------------- controls */

int tsg_file(struct sched *s, const struct tsg *t, char *err, size_t len)
{
	unsigned long rdev;
	struct borrowed *b = NULL;
	int dup;

	for (int i = 0; i < s->nfiles; i++) {
		if (s->files[i].pid == t->info.pid && s->files[i].fd == t->info.fd) {
			if (s->files[i].dup >= 0)
				return s->files[i].dup;
			b = &s->files[i];	/* closed since: borrow again */
		}
	}
	rdev = rm_fd_rdev(t->info.pid, t->info.fd);
	if (kill(t->info.pid, 0) && errno == ESRCH) {
		snprintf(err, len, "process %u is gone", t->info.pid);
		return -1;
	}
	if (s->rdev && (!rdev || major(rdev) != (s->rdev >> 20) ||
			(!s->any_minor && minor(rdev) != (s->rdev & 0xfffff)))) {
		snprintf(err, len, "process %u no longer has its RM file at fd %d "
			 "(closed: its TSGs are gone)", t->info.pid, t->info.fd);
		return -1;
	}
	dup = borrow_fd(t->info.pid, t->info.fd);
	if (dup < 0) {
		borrow_strerror(dup, t->info.pid, t->info.fd, err, len);
		return -1;
	}
	if (!b) {
		if (s->nfiles == s->files_cap) {
			int cap = s->files_cap ? 2 * s->files_cap : 16;
			struct borrowed *f = realloc(s->files, cap * sizeof(*f));

			if (!f) {
				close(dup);
				snprintf(err, len, "out of memory");
				return -1;
			}
			s->files = f;
			s->files_cap = cap;
		}
		b = &s->files[s->nfiles++];
		b->pid = t->info.pid;
		b->fd = t->info.fd;
	}
	b->dup = dup;
	return dup;
}

/* One control on t; 0, or -1 with err set (RM status decoded). */
static int tsg_ctl(struct sched *s, const struct tsg *t, __u32 cmd, void *p, __u32 size,
		   const char *what, char *err, size_t len)
{
	__u32 status = 0;
	int fd, ret;

	fd = tsg_file(s, t, err, len);
	if (fd < 0)
		return -1;
	ret = rm_control(fd, t->info.hClient, t->info.hTsg, cmd, p, size, &status);
	if (ret) {
		snprintf(err, len, "%s: ioctl failed: %s", what, strerror(-ret));
		return -1;
	}
	if (status) {
		snprintf(err, len, "%s: RM status 0x%x %s: %s", what, status,
			 rm_status_name(status), rm_status_msg(status));
		return -1;
	}
	return 0;
}

int tsg_get(struct sched *s, const struct tsg *t, __u64 *ts, __u32 *level, char *err,
	    size_t len)
{
	struct a06c_timeslice tp = { 0 };
	struct a06c_interleave lp = { 0 };
	__u32 status = 0;
	int fd;

	if (tsg_ctl(s, t, NVA06C_CTRL_CMD_GET_TIMESLICE, &tp, sizeof(tp), "GET_TIMESLICE",
		    err, len))
		return -1;
	*ts = tp.timesliceUs;
	*level = LEVEL_UNKNOWN;
	fd = tsg_file(s, t, err, len);
	if (fd < 0)
		return -1;
	if (rm_control(fd, t->info.hClient, t->info.hTsg, NVA06C_CTRL_CMD_GET_INTERLEAVE_LEVEL,
		       &lp, sizeof(lp), &status) == 0 && status == NV_OK)
		*level = lp.tsgInterleaveLevel;
	return 0;
}

int tsg_set_ts(struct sched *s, const struct tsg *t, __u64 us, char *err, size_t len)
{
	struct a06c_timeslice tp = { .timesliceUs = us };
	char what[64];

	snprintf(what, sizeof(what), "SET_TIMESLICE %llu us", (unsigned long long)us);
	return tsg_ctl(s, t, NVA06C_CTRL_CMD_SET_TIMESLICE, &tp, sizeof(tp), what, err, len);
}

int tsg_set_level(struct sched *s, const struct tsg *t, __u32 level, char *err, size_t len)
{
	struct a06c_interleave lp = { .tsgInterleaveLevel = level };
	char what[64];

	snprintf(what, sizeof(what), "SET_INTERLEAVE_LEVEL %s", rm_level_name(level));
	return tsg_ctl(s, t, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &lp, sizeof(lp), what, err,
		       len);
}

int tsg_preempt(struct sched *s, const struct tsg *t, bool wait, __u32 timeout_us, char *err,
		size_t len)
{
	struct a06c_preempt p = {
		.bWait = wait, .bManualTimeout = timeout_us != 0, .timeoutUs = timeout_us,
	};

	return tsg_ctl(s, t, NVA06C_CTRL_CMD_PREEMPT, &p, sizeof(p), "PREEMPT", err, len);
}

int tsg_schedule(struct sched *s, const struct tsg *t, bool enable, char *err, size_t len)
{
	struct a06c_schedule p = { .bEnable = enable };

	return tsg_ctl(s, t, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &p, sizeof(p),
		       enable ? "GPFIFO_SCHEDULE on" : "GPFIFO_SCHEDULE off", err, len);
}

int tsg_channels(struct sched *s, const struct tsg *t, bool on, char *err, size_t len)
{
	__u32 ch[RM_DISABLE_CHANNELS_MAX], subdev, status = 0;
	int fd, n, ret;

	fd = tsg_file(s, t, err, len);
	if (fd < 0)
		return -1;
	n = rm_tsg_channels(fd, t->info.hClient, t->info.hTsg, &subdev, ch,
			    RM_DISABLE_CHANNELS_MAX);
	if (n < 0) {
		snprintf(err, len, "finding its channels: %s", strerror(-n));
		return -1;
	}
	if (!n || !subdev)
		return 0;	/* no channel: nothing disabled */
	ret = rm_channels_set(fd, t->info.hClient, subdev, ch, n, !on, &status);
	if (ret || status) {
		snprintf(err, len, "DISABLE_CHANNELS (%s): %s", on ? "enable" : "disable",
			 ret ? strerror(-ret) : rm_status_name(status));
		return -1;
	}
	return 0;
}

__u32 level_fallback(__u32 level, const struct tsg_info *i)
{
	if (level != LEVEL_UNKNOWN)
		return level;
	if (i->set_interleave)
		return i->set_interleave - 1;
	if (i->app_interleave)
		return i->app_interleave - 1;
	return NVA06C_CTRL_INTERLEAVE_LEVEL_MEDIUM;
}

void tsg_note_level(struct sched *s, const struct tsg *t, __u32 level)
{
	struct tsg_info info;

	if (bpf_map_lookup_elem(s->w.tsgs, &t->key, &info))
		return;
	info.set_interleave = level + 1;
	bpf_map_update_elem(s->w.tsgs, &t->key, &info, BPF_EXIST);
}
