// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - gpuctl sched: TSG (time slice group) control and scheduling
 * policies on NVIDIA's stock driver.
 *
 * A watcher (bpf/tsg_watch.bpf.c: raw tracepoints on sys_enter/sys_exit,
 * links and maps pinned under GPUCTL_PIN_DIR/sched, or $GPUCTL_BPFFS/gpuctl/sched)
 * records every TSG that
 * processes allocate through the RM device.  Controls go through the owning
 * process's own RM file, borrowed with pidfd_getfd(): RM's rule that a client
 * answers only through the file that created it stays in force.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "rm.h"
#include "../bpf/tsg_watch.bpf.h"
#include "tsg_watch.skel.h"

static const char *pin_path(const char *name)
{
	static char buf[4][320];
	static int k;
	char *b = buf[k++ & 3];

	snprintf(b, sizeof(buf[0]), "%s/gpuctl/sched%s%s", bpffs_root(), name ? "/" : "",
		 name ? name : "");
	return b;
}

#define SCHED_PIN_DIR	pin_path(NULL)
#define RUN_DIR		"/run/gpuctl"
#define RUN_PIDFILE	RUN_DIR "/sched-run.pid"

/* What gpuctl accepts as a timeslice; RM may refuse more (its status is shown). */
#define TS_MIN_US	1ULL
#define TS_MAX_US	1000000000000ULL

static const char *const pin_maps[] = { "tsgs", "policy", "meta", "stats", "events" };

/* ------------------------------------------------------------------ helpers */

static const char *class_name(__u32 cls)
{
	switch (cls) {
	case POLICY_CLASS_LC: return "lc";
	case POLICY_CLASS_BE: return "be";
	case POLICY_CLASS_FIXED: return "fixed";
	}
	return "-";
}

/* The caps a command needs: CAP_SYS_PTRACE to borrow, BPF for the watcher. */
static int sched_caps(const char *what, bool ptrace, bool bpf)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "sched %s", what);
	return need_caps(cmd, (ptrace ? NEED_PTRACE : 0) | (bpf ? NEED_BPF : 0));
}

/* ------------------------------------------------------------------ watcher */

struct watcher {
	int tsgs, policy, meta, stats, events;
};

static void watcher_close(struct watcher *w)
{
	int *fds[] = { &w->tsgs, &w->policy, &w->meta, &w->stats, &w->events };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static bool watcher_pinned(void)
{
	return access(pin_path("link_sys_enter"), F_OK) == 0 &&
	       access(pin_path("link_sys_exit"), F_OK) == 0 &&
	       access(pin_path("tsgs"), F_OK) == 0;
}

/* Opens the pinned maps; quiet (returns -ENOENT) when no watcher runs. */
static int watcher_open(struct watcher *w)
{
	int *fds[] = { &w->tsgs, &w->policy, &w->meta, &w->stats, &w->events };
	char path[256];

	memset(w, -1, sizeof(*w));
	if (!watcher_pinned())
		return -ENOENT;
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		snprintf(path, sizeof(path), "%s", pin_path(pin_maps[i]));
		*fds[i] = bpf_obj_get(path);
		if (*fds[i] < 0) {
			int err = -errno;

			watcher_close(w);
			return err;
		}
	}
	return 0;
}

static void unpin_all(void)
{
	char path[256];

	unlink(pin_path("link_sys_enter"));
	unlink(pin_path("link_sys_exit"));
	for (size_t i = 0; i < sizeof(pin_maps) / sizeof(pin_maps[0]); i++) {
		snprintf(path, sizeof(path), "%s", pin_path(pin_maps[i]));
		unlink(path);
	}
	rmdir(SCHED_PIN_DIR);
}

static __u64 meta_get(struct watcher *w, __u32 slot)
{
	__u64 v = 0;

	bpf_map_lookup_elem(w->meta, &slot, &v);
	return v;
}

/* Loads and pins the watcher; *started tells whether this call started it. */
static int watcher_start(const char *dev, bool *started)
{
	struct tsg_watch *skel = NULL;
	struct bpf_map *maps[5];
	struct stat st;
	char path[256];
	__u64 v;
	__u32 slot;
	int err;

	*started = false;
	if (watcher_pinned())
		return 0;
	if (stat(dev, &st)) {
		p_err("RM device %s: %s%s", dev, strerror(errno),
		      errno == ENOENT ? " (no NVIDIA driver loaded? pass --device PATH)" : "");
		return -1;
	}
	if (!S_ISCHR(st.st_mode)) {
		p_err("RM device %s is not a character device", dev);
		return -1;
	}
	unpin_all();	/* leftovers of a crashed start */
	snprintf(path, sizeof(path), "%s/gpuctl", bpffs_root());
	if (mkdir(path, 0700) && errno != EEXIST) {
		p_err("cannot create %s: %s (is bpffs mounted at %s? mount it, or name "
		      "another bpffs mount in $GPUCTL_BPFFS)", path, strerror(errno),
		      bpffs_root());
		return -1;
	}
	if (mkdir(SCHED_PIN_DIR, 0700) && errno != EEXIST) {
		p_err("cannot create %s: %s", SCHED_PIN_DIR, strerror(errno));
		return -1;
	}
	skel = tsg_watch__open();
	if (!skel) {
		p_err("cannot open the TSG watcher BPF object: %s", strerror(errno));
		goto fail;
	}
	skel->rodata->dev_major = major(st.st_rdev);
	skel->rodata->dev_minor = minor(st.st_rdev);
	skel->rodata->any_minor = major(st.st_rdev) == RM_NVIDIA_MAJOR;
	maps[0] = skel->maps.tsgs;
	maps[1] = skel->maps.policy;
	maps[2] = skel->maps.meta;
	maps[3] = skel->maps.stats;
	maps[4] = skel->maps.events;
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s", pin_path(pin_maps[i]));
		bpf_map__set_pin_path(maps[i], path);
	}
	err = tsg_watch__load(skel);
	if (err) {
		p_err("loading the TSG watcher failed: %s (raw tracepoints and BTF "
		      "needed; run with -d for the verifier log)", strerror(-err));
		goto fail;
	}
	slot = META_STARTED;
	v = boottime_ns();
	bpf_map_update_elem(bpf_map__fd(skel->maps.meta), &slot, &v, BPF_ANY);
	slot = META_RDEV;
	v = ((__u64)major(st.st_rdev) << 20) | minor(st.st_rdev);
	bpf_map_update_elem(bpf_map__fd(skel->maps.meta), &slot, &v, BPF_ANY);
	slot = META_ANY_MINOR;
	v = skel->rodata->any_minor;
	bpf_map_update_elem(bpf_map__fd(skel->maps.meta), &slot, &v, BPF_ANY);

	err = tsg_watch__attach(skel);
	if (err) {
		p_err("attaching the TSG watcher to raw tracepoints sys_enter/sys_exit "
		      "failed: %s", strerror(-err));
		goto fail;
	}
	if (bpf_link__pin(skel->links.tsg_sys_enter, pin_path("link_sys_enter")) ||
	    bpf_link__pin(skel->links.tsg_sys_exit, pin_path("link_sys_exit"))) {
		p_err("pinning the watcher links under %s failed: %s", SCHED_PIN_DIR,
		      strerror(errno));
		goto fail;
	}
	tsg_watch__destroy(skel);	/* the pins keep it attached */
	*started = true;
	return 0;
fail:
	tsg_watch__destroy(skel);
	unpin_all();
	return -1;
}

/* --------------------------------------------------------------- TSG table */

struct tsg {
	struct tsg_key key;
	struct tsg_info info;
};

static int tsg_cmp(const void *a, const void *b)
{
	const struct tsg *x = a, *y = b;

	return (x->info.id > y->info.id) - (x->info.id < y->info.id);
}

/* All TSGs in the table, by ID; entries of processes that are gone are dropped. */
static int tsgs_read(struct watcher *w, struct tsg **out, int *n)
{
	struct tsg_key next, *prev = NULL, *keys = NULL;
	struct tsg *v = NULL;
	int nkeys = 0, cnt = 0;

	/* Keys first: deleting while walking would restart the walk. */
	keys = calloc(TSG_MAX, sizeof(*keys));
	v = calloc(TSG_MAX, sizeof(*v));
	if (!keys || !v) {
		free(keys);
		free(v);
		return -ENOMEM;
	}
	while (nkeys < TSG_MAX && bpf_map_get_next_key(w->tsgs, prev, &next) == 0) {
		keys[nkeys] = next;
		prev = &keys[nkeys++];
	}
	for (int i = 0; i < nkeys; i++) {
		struct tsg_info info;
		char proc[32];

		if (bpf_map_lookup_elem(w->tsgs, &keys[i], &info))
			continue;
		snprintf(proc, sizeof(proc), "/proc/%u", keys[i].pid);
		if (access(proc, F_OK)) {
			bpf_map_delete_elem(w->tsgs, &keys[i]);
			continue;
		}
		v[cnt].key = keys[i];
		v[cnt].info = info;
		cnt++;
	}
	free(keys);
	if (cnt)
		qsort(v, cnt, sizeof(*v), tsg_cmp);
	*out = v;
	*n = cnt;
	return 0;
}

/* Borrowed RM files, one per (pid, fd), for the life of the command. */
static struct borrowed {
	__u32 pid;
	int fd;
	int dup;
} borrowed[256];
static int nborrowed;

static void borrowed_close(__u32 pid)
{
	for (int i = 0; i < nborrowed; i++) {
		if (borrowed[i].dup >= 0 && (!pid || borrowed[i].pid == pid)) {
			close(borrowed[i].dup);
			borrowed[i].dup = -1;
		}
	}
}

static unsigned long watched_rdev;
static bool watched_any_minor;

/* The process's RM file for t, or -1 with err set to a message. */
static int tsg_file(const struct tsg *t, char *err, size_t len)
{
	unsigned long rdev;
	int dup;

	for (int i = 0; i < nborrowed; i++)
		if (borrowed[i].pid == t->info.pid && borrowed[i].fd == t->info.fd &&
		    borrowed[i].dup >= 0)
			return borrowed[i].dup;
	rdev = rm_fd_rdev(t->info.pid, t->info.fd);
	if (kill(t->info.pid, 0) && errno == ESRCH) {
		snprintf(err, len, "process %u is gone", t->info.pid);
		return -1;
	}
	if (watched_rdev && (!rdev || major(rdev) != (watched_rdev >> 20) ||
			     (!watched_any_minor && minor(rdev) != (watched_rdev & 0xfffff)))) {
		snprintf(err, len, "process %u no longer has its RM file at fd %d "
			 "(closed: its TSGs are gone)", t->info.pid, t->info.fd);
		return -1;
	}
	dup = rm_borrow_fd(t->info.pid, t->info.fd);
	if (dup < 0) {
		if (dup == -ESRCH)
			snprintf(err, len, "process %u is gone", t->info.pid);
		else if (dup == -EPERM)
			snprintf(err, len, "borrowing fd %d of process %u refused (EPERM): "
				 "needs CAP_SYS_PTRACE over it (Yama ptrace_scope?)",
				 t->info.fd, t->info.pid);
		else if (dup == -EBADF)
			snprintf(err, len, "process %u closed its RM file (fd %d)",
				 t->info.pid, t->info.fd);
		else if (dup == -ENOSYS)
			snprintf(err, len, "pidfd_getfd() is missing: kernel 5.6 or later needed");
		else
			snprintf(err, len, "borrowing fd %d of process %u: %s",
				 t->info.fd, t->info.pid, strerror(-dup));
		return -1;
	}
	if (nborrowed < (int)(sizeof(borrowed) / sizeof(borrowed[0]))) {
		borrowed[nborrowed].pid = t->info.pid;
		borrowed[nborrowed].fd = t->info.fd;
		borrowed[nborrowed].dup = dup;
		nborrowed++;
	}
	return dup;
}

/* One control on t; 0, or -1 with err set (RM status decoded). */
static int tsg_ctl(const struct tsg *t, __u32 cmd, void *p, __u32 size,
		   const char *what, char *err, size_t len)
{
	__u32 status = 0;
	int fd, ret;

	fd = tsg_file(t, err, len);
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

/*
 * Timeslice and interleave level of t.  RM of some drivers (580.x on the
 * H200) has no GET_INTERLEAVE_LEVEL for TSGs (NV_ERR_NOT_SUPPORTED): *level
 * is then LEVEL_UNKNOWN.
 */
#define LEVEL_UNKNOWN 0xff

static int tsg_get(const struct tsg *t, __u64 *ts, __u32 *level, char *err, size_t len)
{
	struct a06c_timeslice tp = { 0 };
	struct a06c_interleave lp = { 0 };
	__u32 status = 0;
	int fd;

	if (tsg_ctl(t, NVA06C_CTRL_CMD_GET_TIMESLICE, &tp, sizeof(tp), "GET_TIMESLICE", err, len))
		return -1;
	*ts = tp.timesliceUs;
	*level = LEVEL_UNKNOWN;
	fd = tsg_file(t, err, len);
	if (fd < 0)
		return -1;
	if (rm_control(fd, t->info.hClient, t->info.hTsg, NVA06C_CTRL_CMD_GET_INTERLEAVE_LEVEL,
		       &lp, sizeof(lp), &status) == 0 && status == NV_OK)
		*level = lp.tsgInterleaveLevel;
	return 0;
}

/*
 * The level to put back when RM cannot say what it was: the last one set
 * through gpuctl or by the process, else RM's default for a new TSG (medium).
 */
static __u32 level_fallback(__u32 level, const struct tsg_info *i)
{
	if (level != LEVEL_UNKNOWN)
		return level;
	if (i->set_interleave)
		return i->set_interleave - 1;
	if (i->app_interleave)
		return i->app_interleave - 1;
	return 1;
}

/* Remembers in the watcher's table the level gpuctl set on t. */
static void note_level(int tsgs_fd, const struct tsg *t, __u32 level)
{
	struct tsg_info info;

	if (bpf_map_lookup_elem(tsgs_fd, &t->key, &info))
		return;
	info.set_interleave = level + 1;
	bpf_map_update_elem(tsgs_fd, &t->key, &info, BPF_EXIST);
}

/* A level for humans: RM's, else the last one set (marked "*"), else "n/a". */
static const char *level_str(__u32 level, const struct tsg_info *i)
{
	static char buf[4][16];
	static int k;
	char *b = buf[k++ & 3];

	if (level != LEVEL_UNKNOWN)
		return rm_level_name(level);
	if (i && i->set_interleave)
		snprintf(b, 16, "%s*", rm_level_name(i->set_interleave - 1));
	else if (i && i->app_interleave)
		snprintf(b, 16, "%s*", rm_level_name(i->app_interleave - 1));
	else
		return "n/a";
	return b;
}

static int tsg_set_ts(const struct tsg *t, __u64 us, char *err, size_t len)
{
	struct a06c_timeslice tp = { .timesliceUs = us };
	char what[64];

	snprintf(what, sizeof(what), "SET_TIMESLICE %llu us", (unsigned long long)us);
	return tsg_ctl(t, NVA06C_CTRL_CMD_SET_TIMESLICE, &tp, sizeof(tp), what, err, len);
}

static int tsg_set_level(const struct tsg *t, __u32 level, char *err, size_t len)
{
	struct a06c_interleave lp = { .tsgInterleaveLevel = level };
	char what[64];

	snprintf(what, sizeof(what), "SET_INTERLEAVE_LEVEL %s", rm_level_name(level));
	return tsg_ctl(t, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &lp, sizeof(lp), what, err, len);
}

/* Opens the watcher for a command that needs it; p_err when none runs. */
static int need_watcher(struct watcher *w)
{
	int err = watcher_open(w);

	if (err == -ENOENT) {
		p_err("the TSG watcher is not running: start it with '%s sched watch' "
		      "(it sees TSGs allocated after it starts; restart GPU processes "
		      "started before it)", bin_name);
		return -1;
	}
	if (err) {
		p_err("cannot open the watcher's maps under %s: %s", SCHED_PIN_DIR,
		      strerror(-err));
		return -1;
	}
	watched_rdev = meta_get(w, META_RDEV);
	watched_any_minor = meta_get(w, META_ANY_MINOR);
	return 0;
}

static void tsg_label(const struct tsg *t, char *buf, size_t len)
{
	snprintf(buf, len, "TSG %u (pid %u %s, client 0x%x tsg 0x%x)", t->info.id,
		 t->info.pid, t->info.comm, t->info.hClient, t->info.hTsg);
}

/* --------------------------------------------------------------- commands */

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	fprintf(stdout,
		"Usage: %1$s %2$s watch [--device PATH]\n"
		"       %1$s %2$s { list | status } [--pid PID]\n"
		"       %1$s %2$s set-timeslice TARGET US\n"
		"       %1$s %2$s set-interleave TARGET { low | medium | high }\n"
		"       %1$s %2$s preempt TARGET [--wait] [--timeout US]\n"
		"       %1$s %2$s run POLICY [ARGS] [--detach] [--device PATH]\n"
		"       %1$s %2$s { stop | unload | help }\n"
		"\n"
		"       TARGET := { --tsg ID | --pid PID }\n"
		"       POLICY := { lc-be | fixed }\n"
		"       lc-be ARGS := { lc MATCH | be MATCH | lc-timeslice US | be-timeslice US |\n"
		"                       lc-interleave LEVEL | be-interleave LEVEL }...\n"
		"       fixed ARGS := { match MATCH | timeslice US | interleave LEVEL }...\n"
		"       MATCH := { comm:NAME | pid:PID | uid:UID | cgroup:PATH }\n"
		"\n"
		"watch pins a watcher under " GPUCTL_PIN_DIR "/sched that records the TSGs\n"
		"processes allocate from then on (not those allocated before).\n"
		"Controls go through the owning process's RM file (pidfd_getfd):\n"
		"root with CAP_SYS_PTRACE; the device is " RM_DEFAULT_DEVICE " unless\n"
		"--device or $GPUCTL_RM_DEVICE names another.\n",
		bin_name, "sched");
	return EXIT_OK;
}

static int do_watch(int argc, char **argv)
{
	const char *dev = NULL;
	struct watcher w;
	bool started;

	while (argc > 0) {
		if (!strcmp(argv[0], "--device")) {
			NEXT_ARG();
			if (argc < 1)
				return usage_err("--device needs a PATH");
			dev = argv[0];
			NEXT_ARG();
		} else {
			return usage_err("unexpected argument '%s'", argv[0]);
		}
	}
	if (sched_caps("watch", false, true))
		return EXIT_FAIL;
	dev = rm_device_path(dev);
	if (watcher_start(dev, &started))
		return EXIT_FAIL;
	if (watcher_open(&w)) {
		p_err("the watcher's maps under %s cannot be opened", SCHED_PIN_DIR);
		return EXIT_FAIL;
	}
	__u64 rdev = meta_get(&w, META_RDEV);
	double age = (boottime_ns() - meta_get(&w, META_STARTED)) / 1e9;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "started", started);
		jsonw_string_field(json_wtr, "pin_dir", SCHED_PIN_DIR);
		jsonw_uint_field(json_wtr, "device_major", rdev >> 20);
		jsonw_uint_field(json_wtr, "device_minor", rdev & 0xfffff);
		jsonw_bool_field(json_wtr, "any_minor", meta_get(&w, META_ANY_MINOR));
		jsonw_float_field(json_wtr, "running_s", age);
		jsonw_end_object(json_wtr);
	} else if (started) {
		printf("TSG watcher attached (device %llu:%llu%s), pinned under %s\n"
		       "TSGs allocated from now on are recorded; restart GPU processes "
		       "started earlier to have theirs\n",
		       (unsigned long long)(rdev >> 20), (unsigned long long)(rdev & 0xfffff),
		       meta_get(&w, META_ANY_MINOR) ? " any minor" : "", SCHED_PIN_DIR);
	} else {
		printf("TSG watcher already running for %.0f s (device %llu:%llu), pinned under %s\n",
		       age, (unsigned long long)(rdev >> 20),
		       (unsigned long long)(rdev & 0xfffff), SCHED_PIN_DIR);
	}
	watcher_close(&w);
	return EXIT_OK;
}

static int parse_pid(const char *arg, __u32 *pid)
{
	unsigned long long v;

	if (parse_u64("PID", arg, 1, 4194304, &v))
		return -1;
	*pid = (__u32)v;
	return 0;
}

static int do_list(int argc, char **argv)
{
	__u32 only_pid = 0;
	struct watcher w;
	struct tsg *v = NULL;
	int n = 0;
	__u64 now = boottime_ns();

	while (argc > 0) {
		if (!strcmp(argv[0], "--pid")) {
			NEXT_ARG();
			if (argc < 1)
				return usage_err("--pid needs a PID");
			if (parse_pid(argv[0], &only_pid))
				return EXIT_USAGE;
			NEXT_ARG();
		} else {
			return usage_err("unexpected argument '%s'", argv[0]);
		}
	}
	if (sched_caps("list", true, true))
		return EXIT_FAIL;
	if (need_watcher(&w))
		return EXIT_FAIL;
	if (tsgs_read(&w, &v, &n)) {
		p_err("reading the TSG table: out of memory");
		watcher_close(&w);
		return EXIT_FAIL;
	}
	if (json_output)
		jsonw_start_array(json_wtr);
	else
		printf("%-5s %-8s %-16s %-4s %-10s %-10s %10s %-10s %-5s %8s %s\n", "ID", "PID",
		       "COMM", "FD", "CLIENT", "TSG", "TIMESLICE", "INTERLEAVE", "CLASS",
		       "AGE", "STATE");
	for (int i = 0; i < n; i++) {
		struct tsg *t = &v[i];
		char err[256] = "";
		__u64 ts = 0;
		__u32 level = 0;
		int ok;

		if (only_pid && t->info.pid != only_pid)
			continue;
		ok = tsg_get(t, &ts, &level, err, sizeof(err)) == 0;
		double age = (now - t->info.created_ns) / 1e9;

		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "id", t->info.id);
			jsonw_uint_field(json_wtr, "pid", t->info.pid);
			jsonw_string_field(json_wtr, "comm", t->info.comm);
			jsonw_uint_field(json_wtr, "uid", t->info.uid);
			jsonw_u64_field(json_wtr, "cgroup", t->info.cgroup);
			jsonw_int_field(json_wtr, "fd", t->info.fd);
			jsonw_stringf_field(json_wtr, "client", "0x%x", t->info.hClient);
			jsonw_stringf_field(json_wtr, "tsg", "0x%x", t->info.hTsg);
			jsonw_stringf_field(json_wtr, "parent", "0x%x", t->info.hParent);
			jsonw_uint_field(json_wtr, "alloc_form", t->info.alloc_form);
			jsonw_float_field(json_wtr, "age_s", age);
			if (ok) {
				jsonw_u64_field(json_wtr, "timeslice_us", ts);
				if (level != LEVEL_UNKNOWN)
					jsonw_string_field(json_wtr, "interleave", rm_level_name(level));
				else
					jsonw_null_field(json_wtr, "interleave");
				if (t->info.set_interleave)
					jsonw_string_field(json_wtr, "interleave_set",
							   rm_level_name(t->info.set_interleave - 1));
			} else {
				jsonw_null_field(json_wtr, "timeslice_us");
				jsonw_null_field(json_wtr, "interleave");
				jsonw_string_field(json_wtr, "state", err);
			}
			jsonw_string_field(json_wtr, "class", class_name(t->info.want_class));
			jsonw_uint_field(json_wtr, "app_controls", t->info.app_controls);
			if (t->info.app_timeslice)
				jsonw_u64_field(json_wtr, "app_timeslice_us", t->info.app_timeslice);
			if (t->info.app_interleave)
				jsonw_string_field(json_wtr, "app_interleave",
						   rm_level_name(t->info.app_interleave - 1));
			jsonw_end_object(json_wtr);
		} else {
			char tsbuf[32];

			snprintf(tsbuf, sizeof(tsbuf), "%lluus", (unsigned long long)ts);
			printf("%-5u %-8u %-16s %-4d 0x%08x 0x%08x %10s %-10s %-5s %7.1fs %s\n",
			       t->info.id, t->info.pid, t->info.comm, t->info.fd, t->info.hClient,
			       t->info.hTsg, ok ? tsbuf : "-", ok ? level_str(level, &t->info) : "-",
			       class_name(t->info.want_class), age, ok ? "live" : err);
		}
	}
	if (json_output) {
		jsonw_end_array(json_wtr);
	} else {
		double since = (now - meta_get(&w, META_STARTED)) / 1e9;

		printf("# watcher running for %.0f s: TSGs allocated before it started are "
		       "not listed (restart those processes)\n", since);
	}
	borrowed_close(0);
	free(v);
	watcher_close(&w);
	return EXIT_OK;
}

/* TARGET := --tsg ID | --pid PID; the matching TSGs into *out. */
struct target {
	bool by_pid;
	unsigned long long id;
};

static int parse_target(int *argc, char ***argv, struct target *tg, bool *have)
{
	const char *opt = (*argv)[0];

	if (strcmp(opt, "--tsg") && strcmp(opt, "--pid"))
		return 0;
	if (*have) {
		usage_err("give one of --tsg ID or --pid PID");
		return -1;
	}
	NEXT_ARGP();
	if (*argc < 1) {
		usage_err("%s needs a value", opt);
		return -1;
	}
	tg->by_pid = !strcmp(opt, "--pid");
	if (parse_u64(tg->by_pid ? "PID" : "TSG ID", (*argv)[0], 1,
		      tg->by_pid ? 4194304 : 0xffffffffULL, &tg->id))
		return -1;
	NEXT_ARGP();
	*have = true;
	return 1;
}

static int select_targets(struct watcher *w, const struct target *tg,
			  struct tsg **out, int *nout)
{
	struct tsg *v = NULL;
	int n = 0, k = 0;

	if (tsgs_read(w, &v, &n)) {
		p_err("reading the TSG table: out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (tg->by_pid ? v[i].info.pid == tg->id : v[i].info.id == tg->id)
			v[k++] = v[i];
	if (!k) {
		free(v);
		if (tg->by_pid) {
			char proc[32];

			snprintf(proc, sizeof(proc), "/proc/%llu", tg->id);
			if (access(proc, F_OK))
				p_err("process %llu does not exist (gone?)", tg->id);
			else
				p_err("process %llu has no TSG the watcher saw (allocated before "
				      "'sched watch' started, or not a GPU process)", tg->id);
		} else {
			p_err("no TSG with ID %llu (gone, or never seen; see '%s sched list')",
			      tg->id, bin_name);
		}
		return -1;
	}
	*out = v;
	*nout = k;
	return 0;
}

enum set_kind { SET_TS, SET_LEVEL };

static int do_set(enum set_kind kind, int argc, char **argv)
{
	const char *what = kind == SET_TS ? "set-timeslice" : "set-interleave";
	struct target tg = { 0 };
	bool have = false;
	const char *valarg = NULL;
	unsigned long long val = 0;
	struct watcher w;
	struct tsg *v = NULL;
	__u64 *old_ts = NULL;
	__u32 *old_lv = NULL;
	char err[320];
	int n = 0, r, ret = EXIT_FAIL, done = 0;

	while (argc > 0) {
		r = parse_target(&argc, &argv, &tg, &have);
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (valarg)
			return usage_err("unexpected argument '%s'", argv[0]);
		valarg = argv[0];
		NEXT_ARG();
	}
	if (!have)
		return usage_err("'sched %s' needs --tsg ID or --pid PID", what);
	if (!valarg)
		return usage_err("'sched %s' needs a %s", what,
				 kind == SET_TS ? "timeslice in microseconds" :
						  "level (low, medium or high)");
	if (kind == SET_TS) {
		if (parse_u64("timeslice (us)", valarg, TS_MIN_US, TS_MAX_US, &val))
			return EXIT_USAGE;
	} else {
		int l = rm_level_parse(valarg);

		if (l < 0)
			return usage_err("invalid interleave level '%s': low, medium or high",
					 valarg);
		val = l;
	}
	if (sched_caps(what, true, true))
		return EXIT_FAIL;
	if (need_watcher(&w))
		return EXIT_FAIL;
	if (select_targets(&w, &tg, &v, &n))
		goto out;
	old_ts = calloc(n, sizeof(*old_ts));
	old_lv = calloc(n, sizeof(*old_lv));
	if (!old_ts || !old_lv) {
		p_err("out of memory");
		goto out;
	}
	/* Every target must answer before anything changes. */
	for (int i = 0; i < n; i++) {
		char label[128];

		if (tsg_get(&v[i], &old_ts[i], &old_lv[i], err, sizeof(err))) {
			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s; nothing changed", label, err);
			goto out;
		}
	}
	for (done = 0; done < n; done++) {
		int rc = kind == SET_TS ? tsg_set_ts(&v[done], val, err, sizeof(err)) :
					  tsg_set_level(&v[done], val, err, sizeof(err));
		if (rc) {
			char label[128], rb[128];

			tsg_label(&v[done], label, sizeof(label));
			/* Undo what was applied: nothing half-applied. */
			for (int j = 0; j < done; j++) {
				if (kind == SET_TS)
					tsg_set_ts(&v[j], old_ts[j], rb, sizeof(rb));
				else
					tsg_set_level(&v[j], level_fallback(old_lv[j], &v[j].info),
						      rb, sizeof(rb));
			}
			p_err("%s: %s; %s", label, err,
			      done ? "the TSGs already changed were restored" : "nothing changed");
			goto out;
		}
	}
	if (kind == SET_LEVEL)
		for (int i = 0; i < n; i++)
			note_level(w.tsgs, &v[i], val);
	if (json_output)
		jsonw_start_array(json_wtr);
	for (int i = 0; i < n; i++) {
		__u64 ts = 0;
		__u32 lv = 0;
		bool ok = tsg_get(&v[i], &ts, &lv, err, sizeof(err)) == 0;

		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "id", v[i].info.id);
			jsonw_uint_field(json_wtr, "pid", v[i].info.pid);
			jsonw_string_field(json_wtr, "comm", v[i].info.comm);
			if (kind == SET_TS) {
				jsonw_u64_field(json_wtr, "old_timeslice_us", old_ts[i]);
				jsonw_u64_field(json_wtr, "requested_timeslice_us", val);
				if (ok)
					jsonw_u64_field(json_wtr, "timeslice_us", ts);
				else
					jsonw_null_field(json_wtr, "timeslice_us");
			} else {
				jsonw_string_field(json_wtr, "old_interleave", old_lv[i] == LEVEL_UNKNOWN ?
						   NULL : rm_level_name(old_lv[i]));
				jsonw_string_field(json_wtr, "requested_interleave", rm_level_name(val));
				jsonw_string_field(json_wtr, "interleave", ok && lv != LEVEL_UNKNOWN ?
						   rm_level_name(lv) : NULL);
				jsonw_bool_field(json_wtr, "readable", ok && lv != LEVEL_UNKNOWN);
			}
			jsonw_end_object(json_wtr);
		} else if (kind == SET_TS) {
			if (ok)
				printf("TSG %u (pid %u %s): timeslice %llu -> %llu us; RM applied %llu us%s\n",
				       v[i].info.id, v[i].info.pid, v[i].info.comm,
				       (unsigned long long)old_ts[i], val, (unsigned long long)ts,
				       ts == val ? "" : " (RM adjusted the request)");
			else
				printf("TSG %u (pid %u %s): timeslice %llu -> %llu us; reading back "
				       "failed: %s\n", v[i].info.id, v[i].info.pid, v[i].info.comm,
				       (unsigned long long)old_ts[i], val, err);
		} else {
			printf("TSG %u (pid %u %s): interleave %s -> %s; RM %s%s\n",
			       v[i].info.id, v[i].info.pid, v[i].info.comm,
			       level_str(old_lv[i], &v[i].info), rm_level_name(val),
			       !ok ? "reads back nothing: " : lv == LEVEL_UNKNOWN ?
			       "accepted it (this driver cannot read the level back)" : "reads back ",
			       !ok ? err : lv == LEVEL_UNKNOWN ? "" : rm_level_name(lv));
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	ret = EXIT_OK;
out:
	borrowed_close(0);
	free(old_ts);
	free(old_lv);
	free(v);
	watcher_close(&w);
	return ret;
}

static int do_set_timeslice(int argc, char **argv)
{
	return do_set(SET_TS, argc, argv);
}

static int do_set_interleave(int argc, char **argv)
{
	return do_set(SET_LEVEL, argc, argv);
}

static int do_preempt(int argc, char **argv)
{
	struct target tg = { 0 };
	unsigned long long timeout = 0;
	bool have = false, wait = false;
	struct watcher w;
	struct tsg *v = NULL;
	char err[320];
	int n = 0, r, ret = EXIT_FAIL;

	while (argc > 0) {
		r = parse_target(&argc, &argv, &tg, &have);
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[0], "--wait")) {
			wait = true;
			NEXT_ARG();
		} else if (!strcmp(argv[0], "--timeout")) {
			NEXT_ARG();
			if (argc < 1)
				return usage_err("--timeout needs microseconds");
			if (parse_u64("preempt timeout (us)", argv[0], 1,
				      NVA06C_PREEMPT_MAX_MANUAL_TIMEOUT_US, &timeout))
				return EXIT_USAGE;
			NEXT_ARG();
		} else {
			return usage_err("unexpected argument '%s'", argv[0]);
		}
	}
	if (!have)
		return usage_err("'sched preempt' needs --tsg ID or --pid PID");
	if (timeout && !wait)
		return usage_err("--timeout goes with --wait");
	if (sched_caps("preempt", true, true))
		return EXIT_FAIL;
	if (need_watcher(&w))
		return EXIT_FAIL;
	if (select_targets(&w, &tg, &v, &n))
		goto out;
	for (int i = 0; i < n; i++) {
		if (tsg_file(&v[i], err, sizeof(err)) < 0) {
			char label[128];

			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s; nothing preempted", label, err);
			goto out;
		}
	}
	if (json_output)
		jsonw_start_array(json_wtr);
	for (int i = 0; i < n; i++) {
		struct a06c_preempt p = {
			.bWait = wait, .bManualTimeout = timeout != 0, .timeoutUs = timeout,
		};
		__u64 t0 = boottime_ns(), dt;
		int rc = tsg_ctl(&v[i], NVA06C_CTRL_CMD_PREEMPT, &p, sizeof(p), "PREEMPT",
				 err, sizeof(err));

		dt = boottime_ns() - t0;
		if (rc) {
			char label[128];

			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s", label, err);
			goto out;
		}
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "id", v[i].info.id);
			jsonw_uint_field(json_wtr, "pid", v[i].info.pid);
			jsonw_bool_field(json_wtr, "wait", wait);
			jsonw_float_field(json_wtr, "call_us", dt / 1e3);
			jsonw_end_object(json_wtr);
		} else {
			printf("TSG %u (pid %u %s): preempted%s in %.1f us\n", v[i].info.id,
			       v[i].info.pid, v[i].info.comm, wait ? " (waited)" : "", dt / 1e3);
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	ret = EXIT_OK;
out:
	if (ret && json_output && jsonw_depth(json_wtr))
		jsonw_end_array(json_wtr);
	borrowed_close(0);
	free(v);
	watcher_close(&w);
	return ret;
}

/* ------------------------------------------------------------------- run */

static int parse_match(const char *arg, struct policy_rule *r)
{
	unsigned long long v;
	const char *val = strchr(arg, ':');
	size_t klen = val ? (size_t)(val - arg) : 0;

	if (!val || !val[1])
		return usage_err("invalid MATCH '%s': comm:NAME, pid:PID, uid:UID or cgroup:PATH", arg);
	val++;
	if (klen == 4 && !strncmp(arg, "comm", 4)) {
		if (strlen(val) >= TSG_COMM_LEN)
			return usage_err("comm '%s' is longer than %d characters (the kernel "
					 "keeps 15)", val, TSG_COMM_LEN - 1);
		r->match = POLICY_MATCH_COMM;
		strncpy(r->comm, val, TSG_COMM_LEN - 1);
	} else if (klen == 3 && !strncmp(arg, "pid", 3)) {
		if (parse_u64("PID", val, 1, 4194304, &v))
			return EXIT_USAGE;
		r->match = POLICY_MATCH_PID;
		r->id = v;
	} else if (klen == 3 && !strncmp(arg, "uid", 3)) {
		if (parse_u64("UID", val, 0, 0xfffffffeULL, &v))
			return EXIT_USAGE;
		r->match = POLICY_MATCH_UID;
		r->id = v;
	} else if (klen == 6 && !strncmp(arg, "cgroup", 6)) {
		struct stat st;
		char path[512];

		snprintf(path, sizeof(path), "%s%s", val[0] == '/' &&
			 strncmp(val, "/sys/fs/cgroup", 14) ? "/sys/fs/cgroup" : "", val);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			return usage_err("cgroup '%s': no such cgroup v2 directory", path);
		r->match = POLICY_MATCH_CGROUP;
		r->id = st.st_ino;	/* the cgroup id on cgroup v2 */
	} else {
		return usage_err("invalid MATCH '%s': comm:NAME, pid:PID, uid:UID or cgroup:PATH", arg);
	}
	return 0;
}

static bool rule_hits(const struct policy_rule *r, const struct tsg_info *i)
{
	switch (r->match) {
	case POLICY_MATCH_COMM: return !strncmp(r->comm, i->comm, TSG_COMM_LEN);
	case POLICY_MATCH_PID: return r->id == i->pid;
	case POLICY_MATCH_UID: return r->id == i->uid;
	case POLICY_MATCH_CGROUP: return r->id == i->cgroup;
	case POLICY_MATCH_ANY: return true;
	}
	return false;
}

/* The same decision the BPF side takes, for TSGs that existed before run. */
static void decide_user(const struct policy *pol, struct tsg_info *i)
{
	for (__u32 k = 0; k < pol->nrules && k < POLICY_RULES; k++) {
		if (!rule_hits(&pol->rules[k], i))
			continue;
		i->want_class = pol->rules[k].cls;
		i->want_timeslice = pol->rules[k].timeslice;
		i->want_interleave = pol->rules[k].interleave;
		return;
	}
}

struct managed {
	struct tsg t;
	__u64 orig_ts;
	__u32 orig_level;
	bool level_known;	/* orig_level read from RM (else assumed) */
	bool used;
};

static struct run_state {
	struct watcher w;
	struct managed *m;
	int nm, cap;
	unsigned long applied, reapplied, failed;
} rs;

static volatile sig_atomic_t run_stop;

static void on_stop(int sig)
{
	(void)sig;
	run_stop = 1;
}

static void run_event(const char *what, const struct tsg *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void run_event(const char *what, const struct tsg *t, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "event", what);
		jsonw_uint_field(json_wtr, "id", t->info.id);
		jsonw_uint_field(json_wtr, "pid", t->info.pid);
		jsonw_string_field(json_wtr, "comm", t->info.comm);
		jsonw_string_field(json_wtr, "class", class_name(t->info.want_class));
		jsonw_string_field(json_wtr, "detail", msg);
		jsonw_end_object(json_wtr);
		jsonw_flush(json_wtr);
	} else {
		printf("%-9s TSG %u (pid %u %s, %s): %s\n", what, t->info.id, t->info.pid,
		       t->info.comm, class_name(t->info.want_class), msg);
		fflush(stdout);
	}
}

static struct managed *managed_find(const struct tsg_key *k)
{
	for (int i = 0; i < rs.nm; i++)
		if (rs.m[i].used && !memcmp(&rs.m[i].t.key, k, sizeof(*k)))
			return &rs.m[i];
	return NULL;
}

/* Records t's class and decision in the watcher's table (for list). */
static void tsg_mark(const struct tsg *t, bool on)
{
	struct tsg_info info;

	if (bpf_map_lookup_elem(rs.w.tsgs, &t->key, &info))
		return;
	info.want_class = on ? t->info.want_class : 0;
	info.want_timeslice = on ? t->info.want_timeslice : 0;
	info.want_interleave = on ? t->info.want_interleave : 0;
	if (on && t->info.want_interleave)
		info.set_interleave = t->info.want_interleave;
	bpf_map_update_elem(rs.w.tsgs, &t->key, &info, BPF_EXIST);
}

/* Applies t's decision; first time: remembers the original values. */
static void run_apply(const struct tsg *t, bool again)
{
	struct managed *m = managed_find(&t->key);
	__u64 ts = 0, rts = 0;
	__u32 lv = 0, rlv = 0;
	char err[320];

	if (!t->info.want_class)
		return;
	if (!m) {
		if (tsg_get(t, &ts, &lv, err, sizeof(err))) {
			rs.failed++;
			run_event("failed", t, "%s", err);
			return;
		}
		if (rs.nm == rs.cap) {
			int cap = rs.cap ? 2 * rs.cap : 64;
			struct managed *nm = realloc(rs.m, cap * sizeof(*nm));

			if (!nm)
				return;
			rs.m = nm;
			rs.cap = cap;
		}
		m = &rs.m[rs.nm++];
		m->t = *t;
		m->orig_ts = ts;
		m->orig_level = level_fallback(lv, &t->info);
		m->level_known = lv != LEVEL_UNKNOWN;
		m->used = true;
	}
	m->t.info = t->info;
	if (t->info.want_timeslice && tsg_set_ts(t, t->info.want_timeslice, err, sizeof(err))) {
		rs.failed++;
		run_event("failed", t, "%s", err);
		return;
	}
	if (t->info.want_interleave &&
	    tsg_set_level(t, t->info.want_interleave - 1, err, sizeof(err))) {
		rs.failed++;
		run_event("failed", t, "%s", err);
		return;
	}
	if (tsg_get(t, &rts, &rlv, err, sizeof(err))) {
		rs.failed++;
		run_event("failed", t, "read back: %s", err);
		return;
	}
	if (again) {
		rs.reapplied++;
	} else {
		rs.applied++;
		tsg_mark(t, true);
	}
	run_event(again ? "reapplied" : "applied", t,
		  "timeslice %llu -> %llu us, interleave %s -> %s (RM reads back %llu us, %s)",
		  (unsigned long long)m->orig_ts, (unsigned long long)t->info.want_timeslice,
		  m->level_known ? rm_level_name(m->orig_level) : "n/a",
		  t->info.want_interleave ? rm_level_name(t->info.want_interleave - 1) : "unchanged",
		  (unsigned long long)rts, rlv == LEVEL_UNKNOWN ? "level not readable" :
		  rm_level_name(rlv));
}

static int run_on_event(void *ctx, void *data, size_t size)
{
	const struct tsg_event *e = data;
	struct tsg t;
	struct managed *m;

	(void)ctx;
	if (size < sizeof(*e))
		return 0;
	t.key.pid = e->info.pid;
	t.key.hClient = e->info.hClient;
	t.key.hTsg = e->info.hTsg;
	t.info = e->info;
	switch (e->type) {
	case TSG_EV_NEW:
		run_apply(&t, false);
		break;
	case TSG_EV_APP_SET:
		m = managed_find(&t.key);
		if (!m)
			break;
		if (e->cmd == NVA06C_CTRL_CMD_PREEMPT)
			break;
		t.info.want_class = m->t.info.want_class;
		t.info.want_timeslice = m->t.info.want_timeslice;
		t.info.want_interleave = m->t.info.want_interleave;
		if ((e->cmd == NVA06C_CTRL_CMD_SET_TIMESLICE && t.info.want_timeslice &&
		     e->value != t.info.want_timeslice) ||
		    (e->cmd == NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL && t.info.want_interleave &&
		     e->value != t.info.want_interleave - 1))
			run_apply(&t, true);
		break;
	case TSG_EV_FREE:
		m = managed_find(&t.key);
		if (m)
			m->used = false;
		break;
	case TSG_EV_CLIENT_FREE:
		for (int i = 0; i < rs.nm; i++)
			if (rs.m[i].used && rs.m[i].t.key.pid == e->info.pid &&
			    rs.m[i].t.key.hClient == e->info.hClient)
				rs.m[i].used = false;
		break;
	}
	return 0;
}

static void run_restore(void)
{
	char err[320];

	for (int i = 0; i < rs.nm; i++) {
		struct managed *m = &rs.m[i];
		__u64 ts;
		__u32 lv;

		if (!m->used)
			continue;
		if (kill(m->t.info.pid, 0) && errno == ESRCH)
			continue;
		if ((m->t.info.want_timeslice && tsg_set_ts(&m->t, m->orig_ts, err, sizeof(err))) ||
		    (m->t.info.want_interleave &&
		     tsg_set_level(&m->t, m->orig_level, err, sizeof(err))) ||
		    tsg_get(&m->t, &ts, &lv, err, sizeof(err))) {
			run_event("failed", &m->t, "restoring: %s", err);
			continue;
		}
		tsg_mark(&m->t, false);
		if (m->t.info.want_interleave)
			note_level(rs.w.tsgs, &m->t, m->orig_level);
		run_event("restored", &m->t, "timeslice %llu us, interleave %s%s",
			  (unsigned long long)ts, rm_level_name(m->orig_level),
			  lv != LEVEL_UNKNOWN ? "" : m->level_known ? " (not readable back)" :
			  " (assumed: RM cannot report the original)");
	}
}

static pid_t running_pid(void)
{
	FILE *f = fopen(RUN_PIDFILE, "r");
	int pid = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	if (pid > 0 && kill(pid, 0) && errno == ESRCH) {
		unlink(RUN_PIDFILE);
		return 0;
	}
	return pid;
}

static void set_active(struct watcher *w, const struct policy *pol, bool on)
{
	struct policy p = *pol;
	__u32 zero = 0;

	p.active = on;
	bpf_map_update_elem(w->policy, &zero, &p, BPF_ANY);
}

static int do_run(int argc, char **argv)
{
	const char *pname, *dev = NULL;
	struct policy pol = { 0 };
	unsigned long long v;
	bool detach = false, started = false;
	struct policy_rule lc[POLICY_RULES], be[POLICY_RULES], fixed_m[POLICY_RULES];
	int nlc = 0, nbe = 0, nfm = 0;
	__u64 lc_ts = 1000000, be_ts = 200, fx_ts = 0;
	__u32 lc_lv = 3, be_lv = 1, fx_lv = 0;	/* level + 1 */
	struct ring_buffer *rb = NULL;
	struct tsg *tv = NULL;
	int n = 0, ret = EXIT_FAIL;
	bool is_lcbe;

	if (argc < 1)
		return usage_err("'sched run' needs a POLICY: lc-be or fixed");
	pname = argv[0];
	if (!strcmp(pname, "lc-be"))
		is_lcbe = true;
	else if (!strcmp(pname, "fixed"))
		is_lcbe = false;
	else
		return usage_err("unknown policy '%s': lc-be or fixed", pname);
	NEXT_ARG();
	memset(lc, 0, sizeof(lc));
	memset(be, 0, sizeof(be));
	memset(fixed_m, 0, sizeof(fixed_m));
	while (argc > 0) {
		const char *k = argv[0];

		if (!strcmp(k, "--detach")) {
			detach = true;
			NEXT_ARG();
			continue;
		}
		if (argc < 2)
			return usage_err("'%s' needs a value", k);
		const char *val = argv[1];

		if (is_lcbe && (!strcmp(k, "lc") || !strcmp(k, "be"))) {
			struct policy_rule *r = !strcmp(k, "lc") ? &lc[nlc] : &be[nbe];

			if (nlc + nbe >= POLICY_RULES - 1)
				return usage_err("at most %d MATCH rules", POLICY_RULES - 1);
			if (parse_match(val, r))
				return EXIT_USAGE;
			if (!strcmp(k, "lc"))
				nlc++;
			else
				nbe++;
		} else if (!is_lcbe && !strcmp(k, "match")) {
			if (nfm >= POLICY_RULES)
				return usage_err("at most %d MATCH rules", POLICY_RULES);
			if (parse_match(val, &fixed_m[nfm]))
				return EXIT_USAGE;
			nfm++;
		} else if ((is_lcbe && (!strcmp(k, "lc-timeslice") || !strcmp(k, "be-timeslice"))) ||
			   (!is_lcbe && !strcmp(k, "timeslice"))) {
			if (parse_u64("timeslice (us)", val, TS_MIN_US, TS_MAX_US, &v))
				return EXIT_USAGE;
			if (!strcmp(k, "lc-timeslice"))
				lc_ts = v;
			else if (!strcmp(k, "be-timeslice"))
				be_ts = v;
			else
				fx_ts = v;
		} else if ((is_lcbe && (!strcmp(k, "lc-interleave") || !strcmp(k, "be-interleave"))) ||
			   (!is_lcbe && !strcmp(k, "interleave"))) {
			int l = rm_level_parse(val);

			if (l < 0)
				return usage_err("invalid interleave level '%s': low, medium or high", val);
			if (!strcmp(k, "lc-interleave"))
				lc_lv = l + 1;
			else if (!strcmp(k, "be-interleave"))
				be_lv = l + 1;
			else
				fx_lv = l + 1;
		} else if (!strcmp(k, "--device")) {
			dev = val;
		} else {
			return usage_err("unknown %s argument '%s'", pname, k);
		}
		NEXT_ARG();
		NEXT_ARG();
	}
	if (is_lcbe) {
		if (!nlc)
			return usage_err("lc-be needs at least one 'lc MATCH' (the latency-critical processes)");
		for (int i = 0; i < nlc; i++) {
			lc[i].cls = POLICY_CLASS_LC;
			lc[i].timeslice = lc_ts;
			lc[i].interleave = lc_lv;
			pol.rules[pol.nrules++] = lc[i];
		}
		if (!nbe)
			be[nbe++].match = POLICY_MATCH_ANY;	/* everything else is best-effort */
		for (int i = 0; i < nbe; i++) {
			be[i].cls = POLICY_CLASS_BE;
			be[i].timeslice = be_ts;
			be[i].interleave = be_lv;
			pol.rules[pol.nrules++] = be[i];
		}
	} else {
		if (!fx_ts && !fx_lv)
			return usage_err("fixed needs 'timeslice US' and/or 'interleave LEVEL'");
		if (!nfm)
			fixed_m[nfm++].match = POLICY_MATCH_ANY;
		for (int i = 0; i < nfm; i++) {
			fixed_m[i].cls = POLICY_CLASS_FIXED;
			fixed_m[i].timeslice = fx_ts;
			fixed_m[i].interleave = fx_lv;
			pol.rules[pol.nrules++] = fixed_m[i];
		}
	}
	if (sched_caps("run", true, true))
		return EXIT_FAIL;
	pid_t other = running_pid();

	if (other) {
		p_err("a scheduling policy is already running (pid %d); '%s sched stop' first",
		      (int)other, bin_name);
		return EXIT_FAIL;
	}
	if (watcher_start(rm_device_path(dev), &started))
		return EXIT_FAIL;
	if (need_watcher(&rs.w))
		return EXIT_FAIL;
	if (started)
		p_info("TSG watcher started; TSGs allocated before now are not seen");
	rb = ring_buffer__new(rs.w.events, run_on_event, NULL, NULL);
	if (!rb) {
		p_err("cannot open the watcher's ring buffer: %s", strerror(errno));
		goto out;
	}
	/* Drain what was queued before us: those TSGs are handled from the table. */
	ring_buffer__consume(rb);
	set_active(&rs.w, &pol, true);

	if (detach) {
		pid_t child;
		int nul;

		mkdir(RUN_DIR, 0755);
		fflush(stdout);
		child = fork();
		if (child < 0) {
			p_err("fork: %s", strerror(errno));
			set_active(&rs.w, &pol, false);
			goto out;
		}
		if (child > 0) {
			/* The parent reports and leaves; the child owns the policy. */
			for (int i = 0; i < 50 && !running_pid(); i++)
				usleep(20000);
			if (json_output) {
				jsonw_start_object(json_wtr);
				jsonw_string_field(json_wtr, "policy", pname);
				jsonw_int_field(json_wtr, "pid", child);
				jsonw_string_field(json_wtr, "pidfile", RUN_PIDFILE);
				jsonw_end_object(json_wtr);
			} else {
				printf("policy %s running in the background as pid %d; "
				       "'%s sched stop' restores the original values and stops it\n",
				       pname, (int)child, bin_name);
			}
			ring_buffer__free(rb);
			watcher_close(&rs.w);
			return EXIT_OK;
		}
		setsid();
		nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
			close(nul);
		}
		json_output = false;	/* nobody reads it now */
	}
	{
		FILE *f;

		mkdir(RUN_DIR, 0755);
		f = fopen(RUN_PIDFILE, "w");
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	signal(SIGHUP, on_stop);
	signal(SIGPIPE, SIG_IGN);

	if (json_output)
		jsonw_start_array(json_wtr);
	else
		p_info("policy %s active (%u rules); Ctrl-C restores the original values",
		       pname, pol.nrules);
	/* TSGs already in the table get the same decision now. */
	if (tsgs_read(&rs.w, &tv, &n) == 0) {
		for (int i = 0; i < n; i++) {
			decide_user(&pol, &tv[i].info);
			run_apply(&tv[i], false);
		}
	}
	free(tv);
	tv = NULL;

	__u64 last_prune = boottime_ns();

	while (!run_stop) {
		int err = ring_buffer__poll(rb, 200);

		if (err < 0 && err != -EINTR) {
			p_err("polling the watcher's ring buffer: %s", strerror(-err));
			break;
		}
		if (boottime_ns() - last_prune > 1000000000ULL) {
			last_prune = boottime_ns();
			for (int i = 0; i < rs.nm; i++) {
				if (rs.m[i].used && kill(rs.m[i].t.info.pid, 0) && errno == ESRCH) {
					rs.m[i].used = false;
					borrowed_close(rs.m[i].t.info.pid);
				}
			}
		}
	}
	set_active(&rs.w, &pol, false);
	ring_buffer__consume(rb);
	run_restore();
	if (json_output) {
		jsonw_end_array(json_wtr);
	} else {
		printf("policy %s stopped: %lu applied, %lu re-applied, %lu failed\n", pname,
		       rs.applied, rs.reapplied, rs.failed);
	}
	unlink(RUN_PIDFILE);
	ret = EXIT_OK;
out:
	ring_buffer__free(rb);
	borrowed_close(0);
	free(rs.m);
	watcher_close(&rs.w);
	return ret;
}

static int stop_runner(bool quiet)
{
	pid_t pid = running_pid();

	if (!pid) {
		if (!quiet)
			p_info("no scheduling policy is running");
		return 0;
	}
	if (kill(pid, SIGTERM)) {
		p_err("cannot signal the policy process %d: %s", (int)pid, strerror(errno));
		return -1;
	}
	for (int i = 0; i < 250; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return 1;
		usleep(20000);
	}
	p_err("the policy process %d did not stop within 5 s", (int)pid);
	return -1;
}

static int do_stop(int argc, char **argv)
{
	int r;

	NO_MORE_ARGS();
	(void)argv;
	if (sched_caps("stop", false, false))
		return EXIT_FAIL;
	r = stop_runner(false);
	if (r < 0)
		return EXIT_FAIL;
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "stopped", r > 0);
		jsonw_end_object(json_wtr);
	} else if (r > 0) {
		printf("policy stopped; original values restored\n");
	}
	return EXIT_OK;
}

static int do_unload(int argc, char **argv)
{
	bool was;

	NO_MORE_ARGS();
	(void)argv;
	if (stop_runner(true) < 0)
		return EXIT_FAIL;
	was = watcher_pinned();
	unpin_all();
	if (watcher_pinned()) {
		p_err("cannot remove the pins under %s: %s", SCHED_PIN_DIR, strerror(errno));
		return EXIT_FAIL;
	}
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "unloaded", was);
		jsonw_end_object(json_wtr);
	} else if (was) {
		printf("TSG watcher detached; its TSG table is gone\n");
	}
	return EXIT_OK;
}

static int do_status(int argc, char **argv)
{
	static const char *const names[STAT_NR] = {
		"rm_ioctls", "tsg_new", "tsg_free", "app_controls", "table_full",
		"ringbuf_full", "decided", "unused",
	};
	struct watcher w;
	__u32 zero = 0;
	struct policy pol = { 0 };
	pid_t runner;

	NO_MORE_ARGS();
	(void)argv;
	if (sched_caps("status", false, true))
		return EXIT_FAIL;
	if (need_watcher(&w))
		return EXIT_FAIL;
	bpf_map_lookup_elem(w.policy, &zero, &pol);
	runner = running_pid();
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_float_field(json_wtr, "running_s",
				  (boottime_ns() - meta_get(&w, META_STARTED)) / 1e9);
		jsonw_bool_field(json_wtr, "policy_active", pol.active);
		jsonw_int_field(json_wtr, "policy_pid", runner);
		jsonw_name(json_wtr, "stats");
		jsonw_start_object(json_wtr);
	} else {
		printf("watcher running for %.0f s; policy %s%s\n",
		       (boottime_ns() - meta_get(&w, META_STARTED)) / 1e9,
		       pol.active ? "active" : "inactive", runner ? "" : " (no policy process)");
	}
	for (__u32 i = 0; i < STAT_DECIDED + 1; i++) {
		__u64 val = 0;

		bpf_map_lookup_elem(w.stats, &i, &val);
		if (json_output)
			jsonw_u64_field(json_wtr, names[i], val);
		else
			printf("  %-14s %llu\n", names[i], (unsigned long long)val);
	}
	if (json_output) {
		jsonw_end_object(json_wtr);
		jsonw_end_object(json_wtr);
	}
	watcher_close(&w);
	return EXIT_OK;
}

static const struct cmd sched_cmds[] = {
	{ "help", do_help },
	{ "list", do_list },
	{ "preempt", do_preempt },
	{ "run", do_run },
	{ "set-interleave", do_set_interleave },
	{ "set-timeslice", do_set_timeslice },
	{ "status", do_status },
	{ "stop", do_stop },
	{ "unload", do_unload },
	{ "watch", do_watch },
	{ NULL, NULL },
};

static int do_sched(int argc, char **argv)
{
	return cmd_select(sched_cmds, argc, argv, "sched");
}

const struct object sched_object = { "sched", do_sched, sched_cmds, NULL };
