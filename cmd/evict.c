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
#include "target.h"
#include "policy/policy.h"
#include "policy/kinds.h"
#include "evict.h"



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

static int parse_value(const char *policy, const char *arg, __u32 *val)
{
	unsigned long long v;

	if (evict_is_quota(policy)) {
		if (parse_u64("share", arg, 1, 100, &v))
			return EXIT_USAGE;
		*val = (__u32)v;
		return 0;
	}
	for (__u32 i = EV_PRIO_LOW; i < EV_PRIO_END; i++)
		if (!strcmp(arg, evict_prio_names[i])) {
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

/* "priority and quota": the built-ins that take per-process values, from the catalogue. */
static const char *pid_policies(void)
{
	static char buf[128];
	unsigned int n = 0, k = 0;
	size_t at = 0;

	for (unsigned int i = 0; i < evict_kind.ndefs; i++)
		n += evict_takes_pids(evict_kind.defs[i].name);
	for (unsigned int i = 0; i < evict_kind.ndefs && at < sizeof(buf); i++) {
		if (!evict_takes_pids(evict_kind.defs[i].name))
			continue;
		at += snprintf(buf + at, sizeof(buf) - at, "%s%s",
			       !k ? "" : k + 1 == n ? " and " : ", ", evict_kind.defs[i].name);
		k++;
	}
	return buf;
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
		if (!evict_takes_pids(policy))
			return usage_err("'%s' is not a parameter of %s (%s take '%s %s VALUE')",
					 argv[0], policy && *policy ? policy : "a policy loaded from a file",
					 pid_policies(), argv[0], is_pid ? "PID" : "PATH");
		if (argc < 3)
			return usage_err("'%s' needs %s and %s", argv[0], is_pid ? "PID" : "PATH",
					 evict_is_quota(policy) ? "a share in %" : "a level (high, normal or low)");
		err = parse_value(policy, argv[2], &val);
		if (err)
			return err;
		if (is_pid) {
			pid_t p;

			if (target_parse_pid(argv[1], &p))	/* the one PID parser */
				return EXIT_USAGE;
			pid = (unsigned long long)p;
			if (!evict_pid_exists((__u32)pid))
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

		if (!evict_is_quota(pl->policy) && e->val == EV_PRIO_NORMAL) {
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

	for (d = 0; argc > 0 && d < evict_kind.ndefs && strcmp(evict_kind.defs[d].name, argv[0]); d++)
		;
	/* file PATH, unknown policies: the engine says what is wrong. */
	if (argc < 1 || d == evict_kind.ndefs)
		return policy_load_plain(&evict_kind, argc, argv);
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
			evict_pid_json(pl->e[i].pid, pl->e[i].val, pl->policy);
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

POLICY_CMD(do_list, policy_list, evict_kind)
POLICY_CMD(do_show, policy_show, evict_kind)
POLICY_CMD(do_unload, policy_unload, evict_kind)

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
	"evict", do_evict, evict_cmds, &evict_kind,
};
