// SPDX-License-Identifier: GPL-2.0
/*
 * trace_rm.c - the rm trace backend: TSG creation, frees and the scheduling
 * controls a process sets itself, from a private instance of the TSG watcher.
 *
 * The watcher keeps the TSGs it saw allocated in its own table (a map of this
 * instance, gone with it).  It frees an entry when the TSG is freed; a freed
 * client and a process that exits are gpuctl's to clean up, as gpuctl sched
 * does with the pinned watcher's table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "rm.h"
#include "trace_rm.h"
#include "../bpf/tsg_watch.bpf.h"
#include "tsg_watch.skel.h"

#define RM_GC_NS		2000000000ull	/* table clean-up period */

struct rm_trace {
	struct tsg_watch *skel;
	struct ring_buffer *rb;
	uint32_t tgid;		/* 0: every process */
	rm_event_fn fn;
	void *arg;
	uint32_t max_id;	/* highest TSG number delivered */
	uint64_t last_ts;	/* timestamps never go backwards */
	uint64_t drops_seen;
	uint64_t next_gc;
};

uint64_t rm_trace_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ------------------------------------------------------------- events */

static void event_init(struct gt_event *e, uint32_t type, const struct tsg_info *info)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->pid = info->pid;
	e->addr = info->hTsg;
	e->batch = info->hClient;
	e->count = info->id;
	e->gpu = GT_GPU_NONE;
}

/* Stamps e (never before the previous event) and hands it on when it is wanted. */
static void emit(struct rm_trace *r, struct gt_event *e, uint64_t ts, const char *comm)
{
	if (ts < r->last_ts)
		ts = r->last_ts;
	r->last_ts = e->ts_ns = ts;
	if (!r->tgid || e->pid == r->tgid)
		r->fn(e, comm, r->arg);
}

static uint8_t ctl_of(uint32_t cmd)
{
	switch (cmd) {
	case NVA06C_CTRL_CMD_SET_TIMESLICE:
		return GT_TSG_CTL_TIMESLICE;
	case NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL:
		return GT_TSG_CTL_INTERLEAVE;
	case NVA06C_CTRL_CMD_PREEMPT:
		return GT_TSG_CTL_PREEMPT;
	}
	return GT_TSG_CTL_NONE;
}

/* Keys of the watcher's TSG table; *n of them, or NULL when out of memory. */
static struct tsg_key *table_keys(int fd, int *n)
{
	struct tsg_key *keys = calloc(TSG_MAX, sizeof(*keys)), *prev = NULL, next;

	*n = 0;
	if (!keys)
		return NULL;
	/* Keys first: deleting while walking would restart the walk. */
	while (*n < TSG_MAX && !bpf_map_get_next_key(fd, prev, &next)) {
		keys[*n] = next;
		prev = &keys[(*n)++];
	}
	return keys;
}

/* A client was freed: so were its TSGs (those delivered so far). */
static void client_free(struct rm_trace *r, uint32_t pid, uint32_t hClient)
{
	int fd = bpf_map__fd(r->skel->maps.tsgs), n;
	struct tsg_key *keys = table_keys(fd, &n);
	uint64_t now = rm_trace_now_ns();

	for (int i = 0; keys && i < n; i++) {
		struct tsg_info info;
		struct gt_event e;

		/* id > max_id: not delivered yet, a newer client's with the same handle */
		if (keys[i].pid != pid || keys[i].hClient != hClient ||
		    bpf_map_lookup_elem(fd, &keys[i], &info) || info.id > r->max_id)
			continue;
		bpf_map_delete_elem(fd, &keys[i]);
		event_init(&e, GT_EV_TSG_FREE, &info);
		e.flags = GT_F_WITH_CLIENT;
		emit(r, &e, now, info.comm);
	}
	free(keys);
}

/*
 * A process that exits without freeing its TSGs has them freed by RM when
 * its files close, which no ioctl shows: its remaining table entries become
 * tsg-free events "at exit".  Every RM_GC_NS, or now when force.
 */
static void table_gc(struct rm_trace *r, bool force)
{
	int fd = bpf_map__fd(r->skel->maps.tsgs), n;
	struct tsg_key *keys;
	uint64_t now = rm_trace_now_ns();

	if (!force && now < r->next_gc)
		return;
	r->next_gc = now + RM_GC_NS;
	keys = table_keys(fd, &n);
	for (int i = 0; keys && i < n; i++) {
		struct tsg_info info;
		struct gt_event e;
		char proc[32];

		snprintf(proc, sizeof(proc), "/proc/%u", keys[i].pid);
		if (!access(proc, F_OK) || errno != ENOENT)
			continue;
		if (!bpf_map_lookup_elem(fd, &keys[i], &info) && info.id <= r->max_id) {
			event_init(&e, GT_EV_TSG_FREE, &info);
			e.flags = GT_F_AT_EXIT;
			emit(r, &e, now, info.comm);
		}
		bpf_map_delete_elem(fd, &keys[i]);
	}
	free(keys);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct rm_trace *r = ctx;
	const struct tsg_event *ev = data;
	struct gt_event e;

	if (size < sizeof(*ev))
		return 0;
	switch (ev->type) {
	case TSG_EV_NEW:
		if (ev->info.id > r->max_id)
			r->max_id = ev->info.id;
		event_init(&e, GT_EV_TSG, &ev->info);
		emit(r, &e, ev->info.created_ns, ev->info.comm);
		break;
	case TSG_EV_APP_SET:
		/* The watcher stamps creation only: the time it is read, then. */
		event_init(&e, GT_EV_TSG_SET, &ev->info);
		e.cause = ctl_of(ev->cmd);
		e.bytes = ev->value;
		emit(r, &e, rm_trace_now_ns(), ev->info.comm);
		break;
	case TSG_EV_FREE:
		event_init(&e, GT_EV_TSG_FREE, &ev->info);
		emit(r, &e, rm_trace_now_ns(), ev->info.comm);
		break;
	case TSG_EV_CLIENT_FREE:
		client_free(r, ev->info.pid, ev->info.hClient);
		break;
	}
	return 0;
}

/* ------------------------------------------------------------ loading */

/* Opens, loads and attaches a watcher for the device rdev; -errno, reason set. */
static int watcher_load(struct rm_trace *r, dev_t rdev, char *reason, size_t len)
{
	struct tsg_watch *skel = tsg_watch__open();
	int err;

	if (!skel) {
		err = -errno;
		snprintf(reason, len, "opening the TSG watcher BPF object failed: %s",
			 strerror(-err));
		return err;
	}
	skel->rodata->dev_major = major(rdev);
	skel->rodata->dev_minor = minor(rdev);
	skel->rodata->any_minor = major(rdev) == RM_NVIDIA_MAJOR;
	/* One line says why below; libbpf's warnings are for -d. */
	libbpf_print_fn_t old = debug_output ? NULL : libbpf_set_print(NULL);

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
	if (!debug_output)
		libbpf_set_print(old);
	if (err) {
		tsg_watch__destroy(skel);
		return err < 0 ? err : -EINVAL;
	}
	r->skel = skel;
	r->rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, r, NULL);
	if (!r->rb) {
		err = -errno;
		snprintf(reason, len, "TSG watcher ring buffer: %s", strerror(-err));
		tsg_watch__destroy(skel);
		r->skel = NULL;
		return err;
	}
	return 0;
}

struct rm_trace *rm_trace_start(const char *dev, uint32_t tgid, rm_event_fn fn, void *arg)
{
	struct rm_trace *r;
	char reason[256];
	struct stat st;

	if (stat(dev, &st)) {
		p_err("RM device %s: %s (no NVIDIA driver loaded? --device PATH or "
		      "$GPUCTL_RM_DEVICE names another)", dev, strerror(errno));
		return NULL;
	}
	if (!S_ISCHR(st.st_mode)) {
		p_err("RM device %s is not a character device", dev);
		return NULL;
	}
	if (need_caps("trace tsg", NEED_BPF))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		p_err("out of memory");
		return NULL;
	}
	r->tgid = tgid;
	r->fn = fn;
	r->arg = arg;
	if (watcher_load(r, st.st_rdev, reason, sizeof(reason))) {
		p_err("%s", reason);
		free(r);
		return NULL;
	}
	r->next_gc = rm_trace_now_ns() + RM_GC_NS;
	return r;
}

void rm_trace_poll(struct rm_trace *r, int timeout_ms)
{
	ring_buffer__poll(r->rb, timeout_ms);
	table_gc(r, false);
}

void rm_trace_drain(struct rm_trace *r)
{
	ring_buffer__consume(r->rb);
	table_gc(r, true);
}

uint64_t rm_trace_new_drops(struct rm_trace *r)
{
	int fd = bpf_map__fd(r->skel->maps.stats);
	uint32_t slots[] = { STAT_RB_FULL, STAT_TABLE_FULL };
	uint64_t sum = 0, d;

	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
		uint64_t v = 0;

		if (!bpf_map_lookup_elem(fd, &slots[i], &v))
			sum += v;
	}
	d = sum > r->drops_seen ? sum - r->drops_seen : 0;
	r->drops_seen = sum;
	return d;
}

void rm_trace_free(struct rm_trace *r)
{
	if (!r)
		return;
	ring_buffer__free(r->rb);
	tsg_watch__destroy(r->skel);
	free(r);
}

bool rm_trace_usable(char *reason, size_t len)
{
	struct rm_trace r = { 0 };

	reason[0] = '\0';
	if (watcher_load(&r, makedev(RM_NVIDIA_MAJOR, 255), reason, len))
		return false;
	ring_buffer__free(r.rb);
	tsg_watch__destroy(r.skel);
	return true;
}
