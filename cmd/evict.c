// SPDX-License-Identifier: GPL-2.0
/*
 * evict.c - gpuctl evict: the order in which the UVM driver evicts GPU
 * root chunks (struct uvm_evict_ops).  Unloaded, the driver's LRU runs.
 *
 * priority and quota take per-process values besides the numeric params:
 * `pid PID VALUE` and `cgroup PATH VALUE` go into the policy's pids map
 * (pid -> level or share) before it is attached; `evict set` updates it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy.h"

#include "evict_fifo.skel.h"
#include "evict_mru.skel.h"
#include "evict_lfu.skel.h"
#include "evict_priority.skel.h"
#include "evict_quota.skel.h"

#define PIDS_MAX 1024	/* entries of the policies' pids map */
#define PID_MAX (1u << 22)	/* the kernel's PID_MAX_LIMIT */

/* Priority levels, as evict_priority.bpf.c reads them. */
enum { PRIO_LOW = 1, PRIO_NORMAL = 2, PRIO_HIGH = 3 };
static const char *const prio_names[] = { "", "low", "normal", "high" };

static const char *const evict_stats[] = {
	"chunk_activate", "chunk_used", "evict_prepare", "moved", NULL,
};

static const struct policy_param lfu_params[] = {
	{ "min_freq", 0, 2, 1, 1000000,
	  "times a block got GPU memory (after decay) that keep it from eviction" },
	{ "decay", 1, 128, 1, 1000000,
	  "evictions after which all use counts halve" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const struct policy_param quota_params[] = {
	{ "default_share", 0, 100, 1, 100,
	  "share of GPU memory (%) of processes given no 'pid PID PERCENT'" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const char *const lfu_stats[] = { "protected", "decays", NULL };
static const char *const priority_stats[] = { "protected", "low_aged", NULL };
static const char *const quota_stats[] = { "protected", "over_quota", "chunk_release", NULL };

static const struct policy_def evict_defs[] = {
	{ "fifo", "evict in the order chunks were populated; use does not promote",
	  evict_fifo__elf_bytes, NULL, NULL },
	{ "mru", "evict the most recently used chunk first (cyclic scans larger than memory)",
	  evict_mru__elf_bytes, NULL, NULL },
	{ "lfu", "keep frequently used blocks resident: per-CPU use counts with decay",
	  evict_lfu__elf_bytes, lfu_params, lfu_stats },
	{ "priority", "protect the chunks of chosen processes: pid PID { high | normal | low }",
	  evict_priority__elf_bytes, NULL, priority_stats },
	{ "quota", "a share of GPU memory per process: pid PID PERCENT",
	  evict_quota__elf_bytes, quota_params, quota_stats },
	{ NULL, NULL, NULL, NULL, NULL },
};

/* --- pid and cgroup arguments ------------------------------------------ */

struct pid_entry {
	__u32 pid;
	__u32 val;	/* PRIO_* for priority, a share in % for quota */
};

static struct pid_entry pid_entries[PIDS_MAX];
static int npids;

static bool takes_pids(const char *policy)
{
	return policy && (!strcmp(policy, "priority") || !strcmp(policy, "quota"));
}

static bool is_quota(const char *policy)
{
	return !strcmp(policy, "quota");
}

static int parse_value(const char *policy, const char *arg, __u32 *val)
{
	unsigned long long v;
	__u32 i;

	if (is_quota(policy)) {
		if (parse_u64("share", arg, 1, 100, &v))
			return EXIT_USAGE;
		*val = (__u32)v;
		return 0;
	}
	for (i = PRIO_LOW; i <= PRIO_HIGH; i++)
		if (!strcmp(arg, prio_names[i])) {
			*val = i;
			return 0;
		}
	return usage_err("invalid priority '%s': must be high, normal or low", arg);
}

static int add_pid(__u32 pid, __u32 val)
{
	int i;

	for (i = 0; i < npids; i++)
		if (pid_entries[i].pid == pid) {
			pid_entries[i].val = val;	/* the last one wins */
			return 0;
		}
	if (npids == PIDS_MAX)
		return usage_err("too many processes: at most %d", PIDS_MAX);
	pid_entries[npids].pid = pid;
	pid_entries[npids++].val = val;
	return 0;
}

/* A process (thread group) of that id exists now. */
static bool pid_exists(__u32 pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, pid);
	return !access(path, F_OK);
}

static int add_cgroup(const char *arg, __u32 val)
{
	char path[PATH_MAX];
	unsigned int pid;
	int n = 0, err;
	FILE *f;

	if (arg[0] == '/' && !strncmp(arg, "/sys/fs/cgroup", 14))
		snprintf(path, sizeof(path), "%s/cgroup.procs", arg);
	else
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/cgroup.procs",
			 arg[0] == '/' ? arg + 1 : arg);
	f = fopen(path, "r");
	if (!f)
		return usage_err("no cgroup '%s' (cannot read %s: %s)", arg, path, strerror(errno));
	while (fscanf(f, "%u", &pid) == 1) {
		err = add_pid(pid, val);
		if (err) {
			fclose(f);
			return err;
		}
		n++;
	}
	fclose(f);
	if (!n)
		return usage_err("cgroup '%s' has no processes", arg);
	return 0;
}

/*
 * Takes the `pid PID VALUE` and `cgroup PATH VALUE` triples out of argv
 * into pid_entries; the KEY VALUE pairs left go to rest.  policy may not
 * take them: then a usage error names the policies that do.
 */
static int split_args(const char *policy, int argc, char **argv, char **rest, int *nrest)
{
	unsigned long long pid;
	bool is_pid;
	__u32 val = 0;
	int err;

	*nrest = 0;
	npids = 0;
	while (argc > 0) {
		is_pid = !strcmp(argv[0], "pid");
		if (!is_pid && strcmp(argv[0], "cgroup")) {
			rest[(*nrest)++] = argv[0];
			NEXT_ARG();
			if (argc > 0) {
				rest[(*nrest)++] = argv[0];
				NEXT_ARG();
			}
			continue;
		}
		if (!takes_pids(policy))
			return usage_err("'%s' is not a parameter of %s (priority and quota take '%s %s VALUE')",
					 argv[0], policy && *policy ? policy : "a policy loaded from a file",
					 argv[0], is_pid ? "PID" : "PATH");
		if (argc < 3)
			return usage_err("'%s' needs %s and %s", argv[0], is_pid ? "PID" : "PATH",
					 is_quota(policy) ? "a share in %" : "a level (high, normal or low)");
		err = parse_value(policy, argv[2], &val);
		if (err)
			return err;
		if (is_pid) {
			if (parse_u64("pid", argv[1], 1, PID_MAX, &pid))
				return EXIT_USAGE;
			if (!pid_exists((__u32)pid))
				return usage_err("no process with pid %llu", pid);
			err = add_pid((__u32)pid, val);
		} else {
			err = add_cgroup(argv[1], val);
		}
		if (err)
			return err;
		argc -= 3;
		argv += 3;
	}
	return 0;
}

/* Writes pid_entries into the policy's pids map (normal: no entry). */
static int write_pids(int fd, const char *policy)
{
	int i;

	for (i = 0; i < npids; i++) {
		struct pid_entry *e = &pid_entries[i];

		if (!is_quota(policy) && e->val == PRIO_NORMAL) {
			if (bpf_map_delete_elem(fd, &e->pid) && errno != ENOENT)
				goto fail;
		} else if (bpf_map_update_elem(fd, &e->pid, &e->val, BPF_ANY)) {
			goto fail;
		}
	}
	return 0;
fail:
	p_err("cannot set pid %u in the %s policy: %s", pid_entries[i].pid, policy,
	      strerror(errno));
	return -1;
}

static int evict_setup(const char *policy, struct bpf_object *obj)
{
	struct bpf_map *map;

	if (!npids)
		return 0;
	map = bpf_object__find_map_by_name(obj, "pids");
	if (!map) {
		p_err("built-in policy %s has no pids map", policy);
		return -1;
	}
	return write_pids(bpf_map__fd(map), policy);
}

static void pid_json(__u32 pid, __u32 val, const char *policy)
{
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "pid", pid);
	if (is_quota(policy))
		jsonw_uint_field(json_wtr, "share", val);
	else
		jsonw_string_field(json_wtr, "level", val <= PRIO_HIGH ? prio_names[val] : "?");
	jsonw_end_object(json_wtr);
}

/* show: the pids table, and for quota what each process holds. */
static void evict_show(const char *policy, const char *mapdir)
{
	char path[PATH_MAX + 16];
	__u32 key, next, val;
	__s64 chunks;
	void *prev;
	int fd;

	if (!takes_pids(policy))
		return;
	snprintf(path, sizeof(path), "%s/pids", mapdir);
	fd = bpf_obj_get(path);
	if (json_output) {
		jsonw_name(json_wtr, "pids");
		jsonw_start_array(json_wtr);
	}
	for (prev = NULL; fd >= 0 && !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;
		if (json_output)
			pid_json(key, val, policy);
		else if (is_quota(policy))
			printf("  pid %-10u share %u%%%s\n", key, val, pid_exists(key) ? "" : " (exited)");
		else
			printf("  pid %-10u %s%s\n", key, val <= PRIO_HIGH ? prio_names[val] : "?",
			       pid_exists(key) ? "" : " (exited)");
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	if (fd >= 0)
		close(fd);
	if (!is_quota(policy))
		return;

	snprintf(path, sizeof(path), "%s/usage", mapdir);
	fd = bpf_obj_get(path);
	if (json_output) {
		jsonw_name(json_wtr, "usage");
		jsonw_start_array(json_wtr);
	}
	for (prev = NULL; fd >= 0 && !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &chunks))
			continue;
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "pid", key);
			jsonw_int_field(json_wtr, "chunks", chunks);
			jsonw_end_object(json_wtr);
		} else {
			printf("  usage pid %-10u %lld chunks\n", key, (long long)chunks);
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	if (fd >= 0)
		close(fd);
}

static const struct policy_kind evict_kind = {
	.object = "evict",
	.st_type = "uvm_evict_ops",
	.stats = evict_stats,
	.defs = evict_defs,
	.setup = evict_setup,
	.show = evict_show,
};

static const char *const evict_policy_words[] = {
	"fifo", "mru", "lfu", "priority", "quota", NULL,
};

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output)
		return EXIT_OK;	/* run_command writes null */
	fprintf(stdout,
		"Usage: %1$s %2$s { list | show | unload }\n"
		"       %1$s %2$s load { POLICY [KEY VALUE]... [PROC]... | file PATH }\n"
		"       %1$s %2$s set { KEY VALUE | PROC }...\n"
		"       %1$s %2$s help\n"
		"\n"
		"       COMMAND := { list | load | set | show | unload | help }\n"
		"       POLICY := { fifo | mru | lfu | priority | quota }\n"
		"       PROC := { pid PID | cgroup PATH } { LEVEL | PERCENT }\n"
		"       LEVEL := { high | normal | low }\n"
		"\n"
		"load attaches POLICY to the driver's struct uvm_evict_ops and pins it\n"
		"under " GPUCTL_PIN_DIR "/evict; it replaces a running policy\n"
		"atomically. With no policy the driver evicts least recently used\n"
		"chunks first. priority takes a LEVEL per process, quota a PERCENT of\n"
		"GPU memory; 'cgroup PATH' names the processes in that cgroup now.\n"
		"unload with nothing loaded succeeds.\n",
		bin_name, "evict");
	return EXIT_OK;
}

static int do_load(int argc, char **argv)
{
	const struct policy_def *d;
	char **args;
	int nrest, ret;

	for (d = evict_defs; argc > 0 && d->name && strcmp(d->name, argv[0]); d++)
		;
	/* file PATH, unknown policies: the engine says what is wrong. */
	if (argc < 1 || !d->name)
		return policy_load(&evict_kind, argc, argv);
	args = calloc(argc + 1, sizeof(*args));
	if (!args) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	args[0] = argv[0];
	ret = split_args(argv[0], argc - 1, argv + 1, args + 1, &nrest);
	if (!ret && !npids && !strcmp(argv[0], "priority"))
		ret = usage_err("priority needs 'pid PID LEVEL' or 'cgroup PATH LEVEL' (LEVEL: high, normal or low)");
	if (!ret)
		ret = policy_load(&evict_kind, nrest + 1, args);
	free(args);
	return ret;
}

static int do_set(int argc, char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], policy[64];
	bool procs = false;
	char **rest;
	int i, nrest, ret, fd;

	for (i = 0; i < argc; i++)
		procs |= !strcmp(argv[i], "pid") || !strcmp(argv[i], "cgroup");
	if (!procs)
		return policy_set(&evict_kind, argc, argv);
	if (policy_attached_dir(&evict_kind, dir, sizeof(dir), policy, sizeof(policy)))
		return EXIT_FAIL;
	rest = calloc(argc + 1, sizeof(*rest));
	if (!rest) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	ret = split_args(policy, argc, argv, rest, &nrest);
	/* Numeric params first: the engine checks them all before writing. */
	if (!ret && nrest)
		ret = policy_set(&evict_kind, nrest, rest);
	free(rest);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/pids", dir);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		p_err("cannot open the pids of %s: %s", policy, strerror(errno));
		return EXIT_FAIL;
	}
	ret = write_pids(fd, policy) ? EXIT_FAIL : EXIT_OK;
	close(fd);
	if (!ret && json_output && !nrest) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", policy);
		jsonw_name(json_wtr, "pids");
		jsonw_start_array(json_wtr);
		for (i = 0; i < npids; i++)
			pid_json(pid_entries[i].pid, pid_entries[i].val, policy);
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	return ret;
}

static int do_evict(int argc, char **argv)
{
	static const struct policy_cmds own = { do_help, do_load, do_set };

	return policy_command(&evict_kind, &own, argc, argv);
}

const struct object evict_object = {
	"evict", do_evict, policy_cmds, evict_policy_words,
};
