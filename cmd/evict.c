// SPDX-License-Identifier: GPL-2.0
/*
 * evict.c - gpuctl evict: the order in which the UVM driver evicts GPU
 * root chunks (struct uvm_evict_ops).  Unloaded, the driver's LRU runs.
 *
 * priority and quota take per-process values besides the numeric params:
 * `pid PID VALUE` and `cgroup PATH VALUE` go into the policy's pids map
 * (pid -> level or share, bpf/evict.h) before it is attached; `evict set`
 * updates it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy/policy.h"
#include "evict.h"

#include "evict_fifo.skel.h"
#include "evict_mru.skel.h"
#include "evict_lfu.skel.h"
#include "evict_priority.skel.h"
#include "evict_quota.skel.h"

#define PID_MAX (1u << 22)	/* the kernel's PID_MAX_LIMIT */

static const char *const prio_names[EV_PRIO_END] = {
	[EV_PRIO_LOW] = "low",
	[EV_PRIO_NORMAL] = "normal",
	[EV_PRIO_HIGH] = "high",
};

static const char *const evict_stats[STAT_POLICY] = {
	[EV_STAT_ACTIVATE] = "chunk_activate",
	[EV_STAT_USED] = "chunk_used",
	[EV_STAT_PREPARE] = "evict_prepare",
	[EV_STAT_MOVED] = "moved",
};

static const struct policy_param lfu_params[] = {
	[EV_LFU_MIN_FREQ] = { "min_freq", 2, 1, 1000000,
			      "times a block got GPU memory (after decay) that keep it from eviction" },
	[EV_LFU_DECAY] = { "decay", 128, 1, 1000000, "evictions after which all use counts halve" },
};

static const struct policy_param quota_params[] = {
	[EV_QUOTA_DEFAULT_SHARE] = { "default_share", 100, 1, 100,
				     "share of GPU memory (%) of processes given no 'pid PID PERCENT'" },
};

_Static_assert(sizeof(lfu_params) / sizeof(lfu_params[0]) == EV_LFU_NPARAMS, "lfu: a row per parameter");
_Static_assert(sizeof(quota_params) / sizeof(quota_params[0]) == EV_QUOTA_NPARAMS,
	       "quota: a row per parameter");

static const char *const lfu_stats[STAT_MAX] = {
	[EV_LFU_STAT_PROTECTED] = "protected",
	[EV_LFU_STAT_DECAYS] = "decays",
};
static const char *const priority_stats[STAT_MAX] = {
	[EV_PRIORITY_STAT_PROTECTED] = "protected",
	[EV_PRIORITY_STAT_LOW_AGED] = "low_aged",
};
static const char *const quota_stats[STAT_MAX] = {
	[EV_QUOTA_STAT_PROTECTED] = "protected",
	[EV_QUOTA_STAT_OVER_QUOTA] = "over_quota",
	[EV_QUOTA_STAT_RELEASE] = "chunk_release",
};

static const struct policy_def evict_defs[] = {
	{ "fifo", "evict in the order chunks were populated; use does not promote",
	  evict_fifo__elf_bytes, NULL, 0, NULL },
	{ "mru", "evict the most recently used chunk first (cyclic scans larger than memory)",
	  evict_mru__elf_bytes, NULL, 0, NULL },
	{ "lfu", "keep frequently used blocks resident: per-CPU use counts with decay",
	  evict_lfu__elf_bytes, POLICY_PARAMS(lfu_params), lfu_stats },
	{ "priority", "protect the chunks of chosen processes: pid PID { high | normal | low }",
	  evict_priority__elf_bytes, NULL, 0, priority_stats },
	{ "quota", "a share of GPU memory per process: pid PID PERCENT",
	  evict_quota__elf_bytes, POLICY_PARAMS(quota_params), quota_stats },
};

/* --- pid and cgroup arguments ------------------------------------------ */

struct pid_entry {
	__u32 pid;
	__u32 val;	/* EV_PRIO_* for priority, a share in % for quota */
};

/* The processes of one command line, passed down to the load's setup. */
struct pid_list {
	const char *policy;
	int n;
	struct pid_entry e[EV_PIDS_MAX];
};

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

	if (is_quota(policy)) {
		if (parse_u64("share", arg, 1, 100, &v))
			return EXIT_USAGE;
		*val = (__u32)v;
		return 0;
	}
	for (__u32 i = EV_PRIO_LOW; i < EV_PRIO_END; i++)
		if (!strcmp(arg, prio_names[i])) {
			*val = i;
			return 0;
		}
	return usage_err("invalid priority '%s': must be high, normal or low", arg);
}

static int add_pid(struct pid_list *pl, __u32 pid, __u32 val)
{
	for (int i = 0; i < pl->n; i++)
		if (pl->e[i].pid == pid) {
			pl->e[i].val = val;	/* the last one wins */
			return 0;
		}
	if (pl->n == EV_PIDS_MAX)
		return usage_err("too many processes: at most %d", EV_PIDS_MAX);
	pl->e[pl->n].pid = pid;
	pl->e[pl->n++].val = val;
	return 0;
}

/* A process (thread group) of that id exists now. */
static bool pid_exists(__u32 pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, pid);
	return !access(path, F_OK);
}

static int add_cgroup(struct pid_list *pl, const char *arg, __u32 val)
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
		err = add_pid(pl, pid, val);
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
 * into pl; the KEY VALUE pairs left go to rest.  pl->policy may not take
 * them: then a usage error names the policies that do.
 */
static int split_args(struct pid_list *pl, int argc, char **argv, char **rest, int *nrest)
{
	const char *policy = pl->policy;
	unsigned long long pid;
	bool is_pid;
	__u32 val = 0;
	int err;

	*nrest = 0;
	pl->n = 0;
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
			err = add_pid(pl, (__u32)pid, val);
		} else {
			err = add_cgroup(pl, argv[1], val);
		}
		if (err)
			return err;
		argc -= 3;
		argv += 3;
	}
	return 0;
}

/* Writes pl into the policy's pids map (normal: no entry). */
static int write_pids(int fd, const struct pid_list *pl)
{
	int i;

	for (i = 0; i < pl->n; i++) {
		const struct pid_entry *e = &pl->e[i];

		if (!is_quota(pl->policy) && e->val == EV_PRIO_NORMAL) {
			if (bpf_map_delete_elem(fd, &e->pid) && errno != ENOENT)
				goto fail;
		} else if (bpf_map_update_elem(fd, &e->pid, &e->val, BPF_ANY)) {
			goto fail;
		}
	}
	return 0;
fail:
	p_err("cannot set pid %u in the %s policy: %s", pl->e[i].pid, pl->policy, strerror(errno));
	return -1;
}

/* The load's setup step: the processes go in before the policy is attached. */
static int evict_setup(void *ctx, const char *policy, struct bpf_object *obj)
{
	const struct pid_list *pl = ctx;
	struct bpf_map *map;

	if (!pl->n)
		return 0;
	map = bpf_object__find_map_by_name(obj, EV_PIDS_MAP);
	if (!map) {
		p_err("built-in policy %s has no pids map", policy);
		return -1;
	}
	return write_pids(bpf_map__fd(map), pl);
}

static void pid_json(__u32 pid, __u32 val, const char *policy)
{
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "pid", pid);
	if (is_quota(policy))
		jsonw_uint_field(json_wtr, "share", val);
	else
		jsonw_string_field(json_wtr, "level",
				   val >= EV_PRIO_LOW && val < EV_PRIO_END ? prio_names[val] : "?");
	jsonw_end_object(json_wtr);
}

static const char *prio_name(__u32 val)
{
	return val >= EV_PRIO_LOW && val < EV_PRIO_END ? prio_names[val] : "?";
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
	snprintf(path, sizeof(path), "%s/" EV_PIDS_MAP, mapdir);
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
			printf("  pid %-10u %s%s\n", key, prio_name(val), pid_exists(key) ? "" : " (exited)");
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
	.ndefs = sizeof(evict_defs) / sizeof(evict_defs[0]),
	.show = evict_show,
};

/* What `load` takes, from the table: for the shell's completion. */
static const char *evict_words[sizeof(evict_defs) / sizeof(evict_defs[0]) + 1];

__attribute__((constructor)) static void evict_words_init(void)
{
	policy_words_fill(&evict_kind, evict_words);
}

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
		"       POLICY := ", bin_name, "evict");
	policy_print_names(&evict_kind, stdout);
	fprintf(stdout,
		"\n"
		"       PROC := { pid PID | cgroup PATH } { LEVEL | PERCENT }\n"
		"       LEVEL := { high | normal | low }\n"
		"\n"
		"load attaches POLICY to the driver's struct uvm_evict_ops and pins it\n"
		"under " GPUCTL_PIN_DIR "/evict; it replaces a running policy\n"
		"atomically. With no policy the driver evicts least recently used\n"
		"chunks first. priority takes a LEVEL per process, quota a PERCENT of\n"
		"GPU memory; 'cgroup PATH' names the processes in that cgroup now.\n"
		"unload with nothing loaded succeeds.\n");
	return EXIT_OK;
}

static int do_load(int argc, char **argv)
{
	LIBBPF_OPTS(policy_load_opts, opts);
	struct pid_list *pl;
	char **args;
	int nrest, ret;

	unsigned int d;

	for (d = 0; argc > 0 && d < evict_kind.ndefs && strcmp(evict_defs[d].name, argv[0]); d++)
		;
	/* file PATH, unknown policies: the engine says what is wrong. */
	if (argc < 1 || d == evict_kind.ndefs) {
		ret = policy_load_args(&evict_kind, argc, argv, &opts);
		return ret ? ret : policy_load(&evict_kind, &opts);
	}
	pl = calloc(1, sizeof(*pl));
	args = calloc(argc + 1, sizeof(*args));
	if (!pl || !args) {
		free(pl);
		free(args);
		p_err("out of memory");
		return EXIT_FAIL;
	}
	pl->policy = argv[0];
	args[0] = argv[0];
	ret = split_args(pl, argc - 1, argv + 1, args + 1, &nrest);
	if (!ret && !pl->n && !strcmp(argv[0], "priority"))
		ret = usage_err("priority needs 'pid PID LEVEL' or 'cgroup PATH LEVEL' (LEVEL: high, normal or low)");
	if (!ret)
		ret = policy_load_args(&evict_kind, nrest + 1, args, &opts);
	if (!ret) {
		opts.setup = evict_setup;
		opts.ctx = pl;
		ret = policy_load(&evict_kind, &opts);
	}
	free(args);
	free(pl);
	return ret;
}

/* set with PROC arguments: the pids of the policy attached now. */
static int set_procs(struct policy_cur *cur, int argc, char **argv)
{
	struct pid_list *pl = calloc(1, sizeof(*pl));
	char **rest = calloc(argc + 1, sizeof(*rest));
	int i, nrest, ret, fd;

	if (!pl || !rest) {
		free(pl);
		free(rest);
		p_err("out of memory");
		return EXIT_FAIL;
	}
	pl->policy = cur->def ? cur->def->name : "";
	ret = split_args(pl, argc, argv, rest, &nrest);
	/* Numeric params first: the engine checks them all before writing. */
	if (!ret && nrest)
		ret = policy_set_params(&evict_kind, cur, nrest, rest);
	if (ret)
		goto out;
	fd = policy_cur_map(cur, EV_PIDS_MAP);
	if (fd < 0) {
		p_err("cannot open the pids of %s: %s", pl->policy, strerror(-fd));
		ret = EXIT_FAIL;
		goto out;
	}
	ret = write_pids(fd, pl) ? EXIT_FAIL : EXIT_OK;
	close(fd);
	if (!ret && json_output && !nrest) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", pl->policy);
		jsonw_name(json_wtr, "pids");
		jsonw_start_array(json_wtr);
		for (i = 0; i < pl->n; i++)
			pid_json(pl->e[i].pid, pl->e[i].val, pl->policy);
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
out:
	free(rest);
	free(pl);
	return ret;
}

static int do_set(int argc, char **argv)
{
	struct policy_cur cur;
	bool procs = false;
	int ret;

	for (int i = 0; i < argc; i++)
		procs |= !strcmp(argv[i], "pid") || !strcmp(argv[i], "cgroup");
	if (!procs)
		return policy_set(&evict_kind, argc, argv);
	if (policy_cur_get(&evict_kind, "evict set", &cur))
		return EXIT_FAIL;
	ret = set_procs(&cur, argc, argv);
	policy_cur_put(&cur);
	return ret;
}

static int do_list(int argc, char **argv)
{
	return policy_list(&evict_kind, argc, argv);
}

static int do_show(int argc, char **argv)
{
	return policy_show(&evict_kind, argc, argv);
}

static int do_unload(int argc, char **argv)
{
	return policy_unload(&evict_kind, argc, argv);
}

static const struct cmd evict_cmds[] = {
	{ "help", do_help },
	{ "list", do_list },
	{ "load", do_load },
	{ "set", do_set },
	{ "show", do_show },
	{ "unload", do_unload },
	{ NULL, NULL },
};

static int do_evict(int argc, char **argv)
{
	return cmd_select(evict_cmds, argc, argv, "evict");
}

const struct object evict_object = {
	"evict", do_evict, evict_cmds, evict_words,
};
