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
#include "sched/tsgcmd.h"
#include "optsets.h"
#include "rm.h"



/* Every sched option, one struct: each command's rows pick theirs. */
struct sched_opts {
	const char *device, *gpu;
	unsigned long long tsg;
	pid_t pid;
	bool wait, detach;
	uint64_t timeout_ns;
};

#define SO(f) offsetof(struct sched_opts, f)
#define ROW_DEVICE { .name = "device", .kind = OPT_PATH, .off = SO(device), .arg = "PATH", \
		     .help = "the RM device (default " RM_DEFAULT_DEVICE " or $GPUCTL_RM_DEVICE)" }
#define ROW_TSG { .name = "tsg", .kind = OPT_TSG, .off = SO(tsg), .arg = "ID", \
		  .help = "the TSG with this id (sched list)", .min = 1, .max = 0xffffffffULL }
#define ROW_PID { .name = "pid", .key = 'p', .kind = OPT_PID, .off = SO(pid), .arg = "PID", \
		  .help = "the TSGs of this process" }
#define ROW_GPU { .name = "gpu", .kind = OPT_GPU, .off = SO(gpu), .arg = "GPU", \
		  .help = "only on this GPU: index, UUID or PCI bus id", .flags = OPT_ONCE }
#define ROW_END { .name = NULL }

static const struct opt watch_rows[] = { ROW_DEVICE, ROW_END };
static const struct opt list_rows[] = { ROW_PID, ROW_GPU, ROW_END };
static const struct opt set_rows[] = { ROW_TSG, ROW_PID, ROW_GPU, ROW_END };
static const struct opt preempt_rows[] = {
	ROW_TSG, ROW_PID, ROW_GPU,
	{ .name = "wait", .kind = OPT_FLAG, .off = SO(wait), .help = "until the TSG is off the GPU" },
	{ .name = "timeout", .kind = OPT_DURATION, .off = SO(timeout_ns), .arg = "US",
	  .help = "with --wait: at most this long (microseconds, or 5ms)", .unit = NSEC_PER_USEC,
	  .min = NSEC_PER_USEC, .max = NVA06C_PREEMPT_MAX_MANUAL_TIMEOUT_US * NSEC_PER_USEC },
	ROW_END,
};
static const struct opt run_rows[] = {
	ROW_GPU,
	{ .name = "detach", .kind = OPT_FLAG, .off = SO(detach), .help = "run in the background" },
	ROW_DEVICE, ROW_END,
};
static const struct opt no_rows[] = { ROW_END };

#define SCHED_SET(var, cmd, r, f) \
	const struct optset var = { .object = "sched", .command = cmd, .rows = r, .flags = f }
SCHED_SET(sched_watch_opts, "watch", watch_rows, 0);
SCHED_SET(sched_list_opts, "list", list_rows, 0);
SCHED_SET(sched_set_ts_opts, "set-timeslice", set_rows, OPTS_WORDS);
SCHED_SET(sched_set_il_opts, "set-interleave", set_rows, OPTS_WORDS);
SCHED_SET(sched_preempt_opts, "preempt", preempt_rows, 0);
SCHED_SET(sched_run_opts, "run", run_rows, OPTS_WORDS);
SCHED_SET(sched_status_opts, "status", no_rows, 0);
SCHED_SET(sched_stop_opts, "stop", no_rows, 0);
SCHED_SET(sched_unload_opts, "unload", no_rows, 0);

/* The rows of set into o: 0, -1 (help printed: exit 0), or EXIT_USAGE. */
static int parse(const struct optset *set, int argc, char **argv, struct sched_opts *o,
		 struct opts_result *r)
{
	memset(o, 0, sizeof(*o));
	if (opts_parse(set, argc, argv, o, r))
		return EXIT_USAGE;
	return r->help ? -1 : 0;
}

/* --gpu's GPU (NULL when not given): 0, or EXIT_FAIL when it is not there (said). */
static int gpu_of(const struct sched_opts *o, const struct gpu_info **g)
{
	*g = NULL;
	if (o->gpu && !(*g = gpu_option(o->gpu)))
		return EXIT_FAIL;
	return 0;
}

/* TARGET := --tsg ID | --pid PID (one of them): 0, or EXIT_USAGE. */
static int target_of(const struct sched_opts *o, struct tsg_target *tg, bool *have)
{
	if (o->tsg && o->pid)
		return usage_err("give one of --tsg ID or --pid PID");
	tg->by_pid = o->pid != 0;
	tg->id = o->pid ? (__u64)o->pid : o->tsg;
	*have = o->tsg || o->pid;
	return 0;
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
	struct sched_opts o;
	struct opts_result r;
	const char *dev;
	struct watcher w;
	char dir[PATH_MAX];
	unsigned int made = 0;
	bool started = false;
	int lock, err = parse(&sched_watch_opts, argc, argv, &o, &r);

	if (err)
		return err < 0 ? EXIT_OK : err;
	dev = o.device;
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

static int do_list(int argc, char **argv)
{
	const struct gpu_info *g;
	struct sched_opts o;
	struct opts_result r;
	int err = parse(&sched_list_opts, argc, argv, &o, &r);

	if (err)
		return err < 0 ? EXIT_OK : err;
	if (gpu_of(&o, &g))
		return EXIT_FAIL;
	return sched_list(g, (__u32)o.pid);
}

static int do_set(enum set_kind kind, const struct optset *set, int argc, char **argv)
{
	const char *what = set->command;
	const struct gpu_info *g;
	struct tsg_target tg = { 0 };
	struct sched_opts o;
	struct opts_result r;
	uint64_t val;
	bool have = false;
	int err = parse(set, argc, argv, &o, &r);

	if (err)
		return err < 0 ? EXIT_OK : err;
	if (target_of(&o, &tg, &have))
		return EXIT_USAGE;
	if (!have && !o.gpu)
		return usage_err("'sched %s' needs --tsg ID, --pid PID or --gpu GPU", what);
	if (r.argc != 1)
		return usage_err(r.argc ? "unexpected argument '%s'" : "'sched %s' needs a %s",
				 r.argc ? r.argv[1] : what, kind == SET_TS ?
				 "timeslice (microseconds, or 2ms)" : "level (low, medium or high)");
	if (kind == SET_TS) {
		/* a bare number is microseconds, as RM counts them */
		if (parse_duration("timeslice", r.argv[0], NSEC_PER_USEC, SCHED_TS_MIN_US * NSEC_PER_USEC,
				   SCHED_TS_MAX_US * NSEC_PER_USEC, &val))
			return EXIT_USAGE;
		if (val % NSEC_PER_USEC)
			return usage_err("invalid timeslice '%s': whole microseconds", r.argv[0]);
		val /= NSEC_PER_USEC;
	} else {
		int l = rm_level_parse(r.argv[0]);

		if (l < 0)
			return usage_err("invalid interleave level '%s': low, medium or high",
					 r.argv[0]);
		val = l;
	}
	if (gpu_of(&o, &g))
		return EXIT_FAIL;
	return sched_set(kind, have ? &tg : NULL, g, val);
}

static int do_set_timeslice(int argc, char **argv)
{
	return do_set(SET_TS, &sched_set_ts_opts, argc, argv);
}

static int do_set_interleave(int argc, char **argv)
{
	return do_set(SET_LEVEL, &sched_set_il_opts, argc, argv);
}

static int do_preempt(int argc, char **argv)
{
	const struct gpu_info *g;
	struct tsg_target tg = { 0 };
	struct sched_opts o;
	struct opts_result r;
	bool have = false;
	int err = parse(&sched_preempt_opts, argc, argv, &o, &r);

	if (err)
		return err < 0 ? EXIT_OK : err;
	if (target_of(&o, &tg, &have))
		return EXIT_USAGE;
	if (!have && !o.gpu)
		return usage_err("'sched preempt' needs --tsg ID, --pid PID or --gpu GPU");
	if (o.timeout_ns && !o.wait)
		return usage_err("--timeout goes with --wait");
	if (gpu_of(&o, &g))
		return EXIT_FAIL;
	return sched_preempt(have ? &tg : NULL, g, o.wait, (o.timeout_ns + NSEC_PER_USEC - 1) / NSEC_PER_USEC);
}

static int do_run(int argc, char **argv)
{
	struct run_opts ro = { 0 };
	struct sched_opts o;
	struct opts_result r;
	int ret = parse(&sched_run_opts, argc, argv, &o, &r);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (r.argc < 1)
		return usage_err("'sched run' needs a POLICY: %s", sched_policy_list());
	ro.policy = sched_policy_find(r.argv[0]);
	if (!ro.policy)
		return usage_err("unknown policy '%s': %s", r.argv[0], sched_policy_list());
	ro.detach = o.detach;
	ro.device = o.device;
	/* the policy's ARGS are the plain words after it; --gpu, --detach, --device go anywhere */
	ret = sched_policy_parse(ro.policy, r.argc - 1, r.argv + 1, &ro.rules, &ro.self);
	if (!ret && gpu_of(&o, &ro.gpu))
		ret = EXIT_FAIL;
	if (!ret)
		ret = need_caps("sched run", NEED_PTRACE | NEED_BPF) ? EXIT_FAIL : run_main(&ro);
	free(ro.self);	/* the row's state (its make hook's): its gate went with stop/forget */
	return ret;
}

static int do_stop(int argc, char **argv)
{
	struct run_stopped st;
	char dir[PATH_MAX];
	int lock, r;
	struct sched_opts o;
	struct opts_result pr;
	int perr = parse(&sched_stop_opts, argc, argv, &o, &pr);

	if (perr)
		return perr < 0 ? EXIT_OK : perr;
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
	struct sched_opts o;
	struct opts_result pr;
	int perr = parse(&sched_unload_opts, argc, argv, &o, &pr);

	if (perr)
		return perr < 0 ? EXIT_OK : perr;
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
	struct sched_opts o;
	struct opts_result r;
	int err = parse(&sched_status_opts, argc, argv, &o, &r);

	if (err)
		return err < 0 ? EXIT_OK : err;
	return sched_status();
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
