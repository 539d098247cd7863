// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - gpuctl sched: TSG (time slice group) control and scheduling
 * policies on NVIDIA's stock driver.  The command words: parse, call the
 * sched engine (cmd/sched/), print.
 *
 * A watcher (bpf/tsg_watch.bpf.c, pinned under <bpffs>/gpuctl/sched) records
 * every TSG that processes allocate through the RM device.  Controls go
 * through the owning process's own RM file, borrowed with pidfd_getfd(): RM's
 * rule that a client answers only through the file that created it stays in
 * force.
 *
 * Every command that changes something checks its capabilities first (one
 * line naming what is missing); list, status and help create nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "target.h"
#include "sched/sched.h"
#include "sched/sched_gpu.h"
#include "sched/exec/exec.h"



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
		"       %1$s %2$s list [--pid PID] [--gpu GPU]\n"
		"       %1$s %2$s set-timeslice TARGET US\n"
		"       %1$s %2$s set-interleave TARGET { low | medium | high }\n"
		"       %1$s %2$s preempt TARGET [--wait] [--timeout US]\n"
		"       %1$s %2$s run POLICY [ARGS] [--gpu GPU] [--detach] [--device PATH]\n"
		"       %1$s %2$s exec --class { lc | be } [--gpu GPU] -- CMD [ARGS]\n"
		"       %1$s %2$s { status | stop | unload | help }\n"
		"\n"
		"       TARGET := { --tsg ID | --pid PID | --gpu GPU } (--gpu narrows --pid)\n"
		"       GPU := { INDEX | UUID | PCI-BUS-ID } (as gpuctl probe lists them)\n",
		bin_name, "sched");
	/* the table's names: the completion reads them here */
	fprintf(stdout, "       POLICY := { %s }\n", sched_policy_alts());
	fputs(	"       lc-be ARGS := { lc MATCH | be MATCH | lc-timeslice US | be-timeslice US |\n"
		"                       lc-interleave LEVEL | be-interleave LEVEL |\n"
		"                       hint FILE | hint-hold MS | hint-mode MODE |\n"
		"                       hint-min-off MS | be-rotate MS |\n"
		"                       be-off { schedule | channels } | be-floor PCT |\n"
		"                       be-stall MS | lc-p99 MS |\n"
		"                       mechanism { mps | tsg | auto } |\n"
		"                       mps-dir DIR | be-threads PCT | lc-threads PCT |\n"
		"                       be-mem SIZE }...\n"
		"       fixed ARGS := { match MATCH | timeslice US | interleave LEVEL }...\n", stdout);
	/* the table's words (cmd/sched/match.c) */
	fprintf(stdout, "       MATCH := { %s }\n", sched_match_alts());
	fputs(	"\n"
		"pod:UID: the pod's processes on this node (its cgroup, either kubelet\n"
		"layout); a pod not here yet is matched once its cgroup appears.\n"
		"cgroup-tree:PATH: the cgroup PATH (under /sys/fs/cgroup) and below it.\n"
		"lc-be hint FILE: BE TSGs go off their runlist while an LC process says\n"
		"(libgpuctl-hint.so, GPUCTL_HINT=FILE) that it has a request in flight;\n"
		"be-rotate MS: one BE process on the runlist at a time, MS each;\n"
		"be-off: how a BE TSG is taken off (GPFIFO_SCHEDULE, or DISABLE_CHANNELS);\n"
		"be-floor PCT (10): the share of each GPU its BE processes keep while an LC\n"
		"is busy (the LC timeslice is derived from it); be-stall MS (100): the\n"
		"longest gpuctl holds a BE process off; status shows both per GPU.\n"
		"run --gpu GPU: the policy for that GPU's TSGs only (others left as they are).\n"
		"watch pins a watcher under " GPUCTL_PIN_DIR "/sched that records the TSGs\n"
		"processes allocate from then on (not those allocated before).\n"
		"Controls go through the owning process's RM file (pidfd_getfd):\n"
		"root with CAP_SYS_PTRACE; the device is " RM_DEFAULT_DEVICE " unless\n"
		"--device or $GPUCTL_RM_DEVICE names another.\n", stdout);
	return EXIT_OK;
}

static int do_watch(int argc, char **argv)
{
	const char *dev = NULL;
	struct watcher w;
	char dir[PATH_MAX];
	unsigned int made = 0;
	bool started = false;
	int lock, err;

	while (argc > 0) {
		if (strcmp(argv[0], "--device"))
			return usage_err("unexpected argument '%s'", argv[0]);
		NEXT_ARG();
		if (argc < 1)
			return usage_err("--device needs a PATH");
		dev = argv[0];
		NEXT_ARG();
	}
	if (need_caps("sched watch", NEED_BPF))
		return EXIT_FAIL;
	dev = rm_device_path(dev);
	if (watcher_dev_check(dev))
		return EXIT_FAIL;
	/* Two watches at once: the second waits here, then finds the first's. */
	lock = sched_lock(true, dir, sizeof(dir), &made);
	if (lock < 0)
		return EXIT_FAIL;
	if (!watcher_pinned(dir)) {
		if (watcher_pin(dir, dev)) {
			sched_unmake(dir, made);
			close(lock);
			return EXIT_FAIL;
		}
		started = true;
	}
	err = watcher_open(dir, &w);
	close(lock);
	if (err == -EPROTO)
		watcher_version_err(dir);
	else if (err == -ENOENT)
		p_err("the watcher's maps under %s cannot be opened", dir);
	if (err)
		return EXIT_FAIL;
	__u64 rdev = watcher_meta(&w, META_RDEV);
	double age = (boottime_ns() - watcher_meta(&w, META_STARTED)) / 1e9;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "started", started);
		jsonw_string_field(json_wtr, "pin_dir", dir);
		jsonw_uint_field(json_wtr, "device_major", rdev >> 20);
		jsonw_uint_field(json_wtr, "device_minor", rdev & 0xfffff);
		jsonw_bool_field(json_wtr, "any_minor", watcher_meta(&w, META_ANY_MINOR));
		jsonw_float_field(json_wtr, "running_s", age);
		jsonw_end_object(json_wtr);
	} else if (started) {
		printf("TSG watcher attached (device %llu:%llu%s), pinned under %s\n"
		       "TSGs allocated from now on are recorded; restart GPU processes "
		       "started earlier to have theirs\n",
		       (unsigned long long)(rdev >> 20), (unsigned long long)(rdev & 0xfffff),
		       watcher_meta(&w, META_ANY_MINOR) ? " any minor" : "", dir);
	} else {
		printf("TSG watcher already running for %.0f s (device %llu:%llu), pinned under %s\n",
		       age, (unsigned long long)(rdev >> 20),
		       (unsigned long long)(rdev & 0xfffff), dir);
	}
	watcher_close(&w);
	return EXIT_OK;
}

static void list_json(const struct tsg *t, bool ok, __u64 ts, __u32 level, const char *err,
		      double age, const struct gpu_info *g)
{
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "id", t->info.id);
	if (g) {
		jsonw_int_field(json_wtr, "gpu", g->index);
		jsonw_string_field(json_wtr, "uuid", g->uuid_str);
	} else {
		jsonw_null_field(json_wtr, "gpu");
		jsonw_null_field(json_wtr, "uuid");
	}
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
	jsonw_string_field(json_wtr, "class", policy_class_name(t->info.want_class));
	jsonw_uint_field(json_wtr, "app_controls", t->info.app_controls);
	if (t->info.app_timeslice)
		jsonw_u64_field(json_wtr, "app_timeslice_us", t->info.app_timeslice);
	if (t->info.app_interleave)
		jsonw_string_field(json_wtr, "app_interleave",
				   rm_level_name(t->info.app_interleave - 1));
	jsonw_end_object(json_wtr);
}

static int parse_pid(const char *arg, __u32 *pid)
{
	unsigned long long v;

	if (parse_u64("PID", arg, 1, TARGET_PID_MAX, &v))
		return -1;
	*pid = (__u32)v;
	return 0;
}

static int do_list(int argc, char **argv)
{
	struct sched s = SCHED_INIT;
	const struct gpu_info *only_gpu = NULL;
	__u32 only_pid = 0;
	struct tsg *v = NULL;
	int n = 0, r;
	__u64 now = boottime_ns();

	while (argc > 0) {
		r = parse_gpu_opt(&argc, &argv, &only_gpu);
		if (r < 0)
			return r == -1 ? EXIT_USAGE : EXIT_FAIL;
		if (r)
			continue;
		if (strcmp(argv[0], "--pid"))
			return usage_err("unexpected argument '%s'", argv[0]);
		NEXT_ARG();
		if (argc < 1)
			return usage_err("--pid needs a PID");
		if (parse_pid(argv[0], &only_pid))
			return EXIT_USAGE;
		NEXT_ARG();
	}
	if (need_caps("sched list", NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	if (sched_open(&s))
		return EXIT_FAIL;
	if (tsg_read(&s, &v, &n)) {
		sched_close(&s);
		return EXIT_FAIL;
	}
	if (json_output)
		jsonw_start_array(json_wtr);
	else
		printf("%-5s %-8s %-16s %-4s %-10s %-10s %10s %-10s %-5s %-3s %8s %s\n", "ID",
		       "PID", "COMM", "FD", "CLIENT", "TSG", "TIMESLICE", "INTERLEAVE", "CLASS",
		       "GPU", "AGE", "STATE");
	for (int i = 0; i < n; i++) {
		struct tsg *t = &v[i];
		double age = (now - t->info.created_ns) / 1e9;
		char err[256] = "", tsbuf[32], gpubuf[16] = "-", comm[4 * sizeof(t->info.comm) + 1];
		const struct gpu_info *g;
		__u64 ts = 0;
		__u32 level = 0;
		bool ok;

		if (only_pid && t->info.pid != only_pid)
			continue;
		g = tsg_gpu(&s, t);
		if (only_gpu && g != only_gpu)
			continue;
		ok = tsg_get(&s, t, &ts, &level, err, sizeof(err)) == 0;
		if (json_output) {
			list_json(t, ok, ts, level, err, age, g);
			continue;
		}
		if (g)
			snprintf(gpubuf, sizeof(gpubuf), "%d", g->index);
		snprintf(tsbuf, sizeof(tsbuf), "%lluus", (unsigned long long)ts);
		printf("%-5u %-8u %-16s %-4d 0x%08x 0x%08x %10s %-10s %-5s %-3s %7.1fs %s\n",
		       t->info.id, t->info.pid,
		       str_printable(comm, sizeof(comm), t->info.comm, sizeof(t->info.comm)),
		       t->info.fd, t->info.hClient,
		       t->info.hTsg, ok ? tsbuf : "-", ok ? level_str(level, &t->info) : "-",
		       policy_class_name(t->info.want_class), gpubuf, age, ok ? "live" : err);
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	else
		printf("# watcher running for %.0f s: TSGs allocated before it started are "
		       "not listed (restart those processes)\n",
		       (now - watcher_meta(&s.w, META_STARTED)) / 1e9);
	free(v);
	sched_close(&s);
	return EXIT_OK;
}

/* TARGET := --tsg ID | --pid PID: 1 when argv[0] was one, 0 not, -1 bad. */
static int parse_target(int *argc, char ***argv, struct tsg_target *tg, bool *have)
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
		      tg->by_pid ? TARGET_PID_MAX : 0xffffffffULL, &tg->id))
		return -1;
	NEXT_ARGP();
	*have = true;
	return 1;
}

enum set_kind { SET_TS, SET_LEVEL };

static int set_one(struct sched *s, enum set_kind kind, const struct tsg *t, __u64 val,
		   char *err, size_t len)
{
	return kind == SET_TS ? tsg_set_ts(s, t, val, err, len) :
				tsg_set_level(s, t, val, err, len);
}

/* After a set: each TSG's old, requested and read-back values. */
static void set_report(struct sched *s, enum set_kind kind, const struct tsg *t, __u64 old_ts,
		       __u32 old_lv, __u64 val)
{
	char err[320];
	__u64 ts = 0;
	__u32 lv = 0;
	bool ok = tsg_get(s, t, &ts, &lv, err, sizeof(err)) == 0;
	const struct tsg_info *i = &t->info;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "id", i->id);
		jsonw_uint_field(json_wtr, "pid", i->pid);
		jsonw_string_field(json_wtr, "comm", i->comm);
		if (kind == SET_TS) {
			jsonw_u64_field(json_wtr, "old_timeslice_us", old_ts);
			jsonw_u64_field(json_wtr, "requested_timeslice_us", val);
			if (ok)
				jsonw_u64_field(json_wtr, "timeslice_us", ts);
			else
				jsonw_null_field(json_wtr, "timeslice_us");
		} else {
			jsonw_string_field(json_wtr, "old_interleave", old_lv == LEVEL_UNKNOWN ?
					   NULL : rm_level_name(old_lv));
			jsonw_string_field(json_wtr, "requested_interleave", rm_level_name(val));
			jsonw_string_field(json_wtr, "interleave", ok && lv != LEVEL_UNKNOWN ?
					   rm_level_name(lv) : NULL);
			jsonw_bool_field(json_wtr, "readable", ok && lv != LEVEL_UNKNOWN);
		}
		jsonw_end_object(json_wtr);
	} else if (kind == SET_TS && ok) {
		printf("TSG %u (pid %u %s): timeslice %llu -> %llu us; RM applied %llu us%s\n",
		       i->id, i->pid, i->comm, (unsigned long long)old_ts,
		       (unsigned long long)val, (unsigned long long)ts,
		       ts == val ? "" : " (RM adjusted the request)");
	} else if (kind == SET_TS) {
		printf("TSG %u (pid %u %s): timeslice %llu -> %llu us; reading back failed: %s\n",
		       i->id, i->pid, i->comm, (unsigned long long)old_ts,
		       (unsigned long long)val, err);
	} else {
		printf("TSG %u (pid %u %s): interleave %s -> %s; RM %s%s\n", i->id, i->pid,
		       i->comm, level_str(old_lv, i), rm_level_name(val),
		       !ok ? "reads back nothing: " : lv == LEVEL_UNKNOWN ?
		       "accepted it (this driver cannot read the level back)" : "reads back ",
		       !ok ? err : lv == LEVEL_UNKNOWN ? "" : rm_level_name(lv));
	}
}

/* Sets val on every TSG of v, or on none: 0, or -1 after p_err. */
static int set_all(struct sched *s, enum set_kind kind, struct tsg *v, int n, __u64 val,
		   __u64 *old_ts, __u32 *old_lv)
{
	char err[320], label[128], rb[128];

	/* Every target must answer before anything changes. */
	for (int i = 0; i < n; i++) {
		if (tsg_get(s, &v[i], &old_ts[i], &old_lv[i], err, sizeof(err))) {
			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s; nothing changed", label, err);
			return -1;
		}
	}
	for (int done = 0; done < n; done++) {
		if (!set_one(s, kind, &v[done], val, err, sizeof(err)))
			continue;
		tsg_label(&v[done], label, sizeof(label));
		/* Undo what was applied: nothing half-applied. */
		for (int j = 0; j < done; j++)
			set_one(s, kind, &v[j], kind == SET_TS ? old_ts[j] :
				level_fallback(old_lv[j], &v[j].info), rb, sizeof(rb));
		p_err("%s: %s; %s", label, err,
		      done ? "the TSGs already changed were restored" : "nothing changed");
		return -1;
	}
	if (kind == SET_LEVEL)
		for (int i = 0; i < n; i++)
			tsg_note_level(s, &v[i], val);
	return 0;
}

static int do_set(enum set_kind kind, int argc, char **argv)
{
	const char *what = kind == SET_TS ? "set-timeslice" : "set-interleave";
	struct sched s = SCHED_INIT;
	struct tsg_target tg = { 0 };
	bool have = false;
	const char *valarg = NULL;
	unsigned long long val = 0;
	struct tsg *v = NULL;
	__u64 *old_ts = NULL;
	__u32 *old_lv = NULL;
	const struct gpu_info *gpu = NULL;
	char cmd[64];
	int n = 0, r, ret = EXIT_FAIL;

	while (argc > 0) {
		r = parse_target(&argc, &argv, &tg, &have);
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		r = parse_gpu_opt(&argc, &argv, &gpu);
		if (r < 0)
			return r == -1 ? EXIT_USAGE : EXIT_FAIL;
		if (r)
			continue;
		if (valarg)
			return usage_err("unexpected argument '%s'", argv[0]);
		valarg = argv[0];
		NEXT_ARG();
	}
	if (!have && !gpu)
		return usage_err("'sched %s' needs --tsg ID, --pid PID or --gpu GPU", what);
	if (!valarg)
		return usage_err("'sched %s' needs a %s", what,
				 kind == SET_TS ? "timeslice in microseconds" :
						  "level (low, medium or high)");
	if (kind == SET_TS) {
		if (parse_u64("timeslice (us)", valarg, SCHED_TS_MIN_US, SCHED_TS_MAX_US, &val))
			return EXIT_USAGE;
	} else {
		int l = rm_level_parse(valarg);

		if (l < 0)
			return usage_err("invalid interleave level '%s': low, medium or high",
					 valarg);
		val = l;
	}
	snprintf(cmd, sizeof(cmd), "sched %s", what);
	if (need_caps(cmd, NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	if (sched_open(&s))
		return EXIT_FAIL;
	if (tsg_select_gpu(&s, have ? &tg : NULL, gpu, &v, &n))
		goto out;
	old_ts = calloc(n, sizeof(*old_ts));
	old_lv = calloc(n, sizeof(*old_lv));
	if (!old_ts || !old_lv) {
		p_err("out of memory");
		goto out;
	}
	if (set_all(&s, kind, v, n, val, old_ts, old_lv))
		goto out;
	if (json_output)
		jsonw_start_array(json_wtr);
	for (int i = 0; i < n; i++)
		set_report(&s, kind, &v[i], old_ts[i], old_lv[i], val);
	if (json_output)
		jsonw_end_array(json_wtr);
	ret = EXIT_OK;
out:
	free(old_ts);
	free(old_lv);
	free(v);
	sched_close(&s);
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
	struct sched s = SCHED_INIT;
	struct tsg_target tg = { 0 };
	unsigned long long timeout = 0;
	bool have = false, wait = false;
	const struct gpu_info *gpu = NULL;
	struct tsg *v = NULL;
	char err[320], label[128];
	int n = 0, r, ret = EXIT_FAIL;

	while (argc > 0) {
		r = parse_target(&argc, &argv, &tg, &have);
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		r = parse_gpu_opt(&argc, &argv, &gpu);
		if (r < 0)
			return r == -1 ? EXIT_USAGE : EXIT_FAIL;
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
	if (!have && !gpu)
		return usage_err("'sched preempt' needs --tsg ID, --pid PID or --gpu GPU");
	if (timeout && !wait)
		return usage_err("--timeout goes with --wait");
	if (need_caps("sched preempt", NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	if (sched_open(&s))
		return EXIT_FAIL;
	if (tsg_select_gpu(&s, have ? &tg : NULL, gpu, &v, &n))
		goto out;
	for (int i = 0; i < n; i++) {
		if (tsg_file(&s, &v[i], err, sizeof(err)) < 0) {
			tsg_label(&v[i], label, sizeof(label));
			p_err("%s: %s; nothing preempted", label, err);
			goto out;
		}
	}
	if (json_output)
		jsonw_start_array(json_wtr);
	for (int i = 0; i < n; i++) {
		__u64 t0 = boottime_ns(), dt;
		int rc = tsg_preempt(&s, &v[i], wait, timeout, err, sizeof(err));

		dt = boottime_ns() - t0;
		if (rc) {
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
	free(v);
	sched_close(&s);
	return ret;
}

static int do_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	char **args;
	int nargs = 0, ret;

	if (argc < 1)
		return usage_err("'sched run' needs a POLICY: %s", sched_policy_list());
	o.policy = sched_policy_find(argv[0]);
	if (!o.policy)
		return usage_err("unknown policy '%s': %s", argv[0], sched_policy_list());
	NEXT_ARG();
	/* --detach, --device and --gpu go anywhere; the rest are the policy's ARGS */
	args = calloc(argc + 1, sizeof(*args));
	if (!args) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	for (; argc > 0; NEXT_ARG()) {
		if (!strcmp(argv[0], "--detach")) {
			o.detach = true;
		} else if (!strcmp(argv[0], "--device")) {
			if (argc < 2) {
				free(args);
				return usage_err("'--device' needs a value");
			}
			NEXT_ARG();
			o.device = argv[0];
		} else if (!strcmp(argv[0], "--gpu")) {
			ret = parse_gpu_opt(&argc, &argv, &o.gpu);
			if (ret <= 0) {
				free(args);
				return ret == -2 ? EXIT_FAIL : EXIT_USAGE;
			}
			argc++;	/* taken whole: the loop's NEXT_ARG steps back over nothing */
			argv--;
		} else {
			args[nargs++] = argv[0];
		}
	}
	ret = sched_policy_parse(o.policy, nargs, args, &o.rules, &o.self);
	free(args);
	if (!ret)
		ret = need_caps("sched run", NEED_PTRACE | NEED_BPF) ? EXIT_FAIL : run_main(&o);
	free(o.self);	/* the row's state (its make hook's): its gate went with stop/forget */
	return ret;
}

static int do_stop(int argc, char **argv)
{
	struct run_stopped st;
	char dir[PATH_MAX];
	int lock, r;

	NO_MORE_ARGS();
	(void)argv;
	if (need_caps("sched stop", NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	lock = sched_lock(false, dir, sizeof(dir), NULL);
	if (lock == -1)
		return EXIT_FAIL;
	r = run_stop(lock >= 0 ? dir : NULL, false, &st);
	if (lock >= 0)
		close(lock);
	if (r)
		return EXIT_FAIL;
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "stopped", st.pid > 0);
		jsonw_int_field(json_wtr, "pid", st.pid);
		jsonw_int_field(json_wtr, "restored_left", st.restored);
		jsonw_int_field(json_wtr, "failed_left", st.failed);
		jsonw_end_object(json_wtr);
	} else if (st.pid) {
		printf("policy stopped; original values restored\n");
	} else if (st.restored || st.failed) {
		printf("no policy process was running (killed?); the original values it left "
		       "changed restored on %d TSG(s)%s\n", st.restored,
		       st.failed ? ", some failed (see above)" : "");
	} else {
		p_info("no scheduling policy is running");
	}
	return EXIT_OK;
}

static int do_unload(int argc, char **argv)
{
	struct run_stopped st;
	char dir[PATH_MAX];
	bool was = false;
	int lock, err = 0;

	NO_MORE_ARGS();
	(void)argv;
	if (need_caps("sched unload", NEED_PTRACE | NEED_BPF))
		return EXIT_FAIL;
	lock = sched_lock(false, dir, sizeof(dir), NULL);
	if (lock == -1)
		return EXIT_FAIL;
	if (run_stop(lock >= 0 ? dir : NULL, true, &st)) {
		if (lock >= 0)
			close(lock);
		return EXIT_FAIL;
	}
	if (lock >= 0) {
		was = watcher_pinned(dir);
		err = watcher_unpin(dir);
		close(lock);
	}
	if (err) {
		p_err("cannot remove the pins under %s: %s", dir, strerror(-err));
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
	struct sched s = SCHED_INIT;
	struct policy pol = { 0 };
	__u32 zero = 0;
	pid_t runner;
	double age;

	NO_MORE_ARGS();
	(void)argv;
	if (need_caps("sched status", NEED_BPF))
		return EXIT_FAIL;
	if (sched_open(&s))
		return EXIT_FAIL;
	bpf_map_lookup_elem(s.w.policy, &zero, &pol);
	runner = run_pid();
	age = (boottime_ns() - watcher_meta(&s.w, META_STARTED)) / 1e9;
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_float_field(json_wtr, "running_s", age);
		jsonw_bool_field(json_wtr, "policy_active", pol.active);
		jsonw_int_field(json_wtr, "policy_pid", runner);
		jsonw_name(json_wtr, "stats");
		jsonw_start_object(json_wtr);
	} else {
		printf("watcher running for %.0f s; policy %s%s\n", age,
		       pol.active ? "active" : "inactive", runner ? "" : " (no policy process)");
	}
	for (__u32 i = 0; i < STAT_NR; i++) {
		__u64 val = 0;

		bpf_map_lookup_elem(s.w.stats, &i, &val);
		if (json_output)
			jsonw_u64_field(json_wtr, tsgw_stat_names[i], val);
		else
			printf("  %-14s %llu\n", tsgw_stat_names[i], (unsigned long long)val);
	}
	if (json_output)
		jsonw_end_object(json_wtr);
	if (runner)
		sched_policy_status(runner);
	if (json_output)
		jsonw_end_object(json_wtr);
	sched_close(&s);
	return EXIT_OK;
}

static const struct cmd sched_cmds[] = {
	{ "help", do_help },
	{ "exec", sched_exec_main },
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
