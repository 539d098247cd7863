// SPDX-License-Identifier: GPL-2.0
/*
 * cmds.c - the commands that change a loaded policy or remove it: `set`
 * (parameters, and whatever an object writes through policy_cur), `unload`,
 * and the removal by a loop that owns its policy.  Each checks the
 * capabilities first and holds the object's lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "policy.h"

static void no_policy(const struct policy_kind *k, const struct attached *a)
{
	p_err("no %s policy is loaded%s%s%s", k->object,
	      a && a->link_fd >= 0 ? " (a stale pin remains: 'gpuctl " : "",
	      a && a->link_fd >= 0 ? k->object : "",
	      a && a->link_fd >= 0 ? " unload' removes it)" : "");
}

int policy_cur_get(const struct policy_kind *k, const char *what, struct policy_cur *cur)
{
	struct attached a;
	char dir[PATH_MAX];
	int err;

	memset(cur, 0, sizeof(*cur));
	cur->lock_fd = -1;
	if (need_caps(what, NEED_BPF) || bpffs_check())
		return -1;
	err = obj_pin_dir(k, false, dir, sizeof(dir));
	if (err) {
		if (err == -ENOENT)
			no_policy(k, NULL);
		return -1;
	}
	cur->lock_fd = pin_lock(dir);
	if (cur->lock_fd < 0 || read_attached(k, dir, &a))
		goto fail;
	if (a.link_fd < 0 || !a.map_id) {
		no_policy(k, &a);
		attached_close(&a);
		goto fail;
	}
	cur->def = attached_def(k, &a);
	cur->map_id = a.map_id;
	snprintf(cur->name, sizeof(cur->name), "%s", attached_name(&a));
	snprintf(cur->mapdir, sizeof(cur->mapdir), "%s/%u", dir, a.map_id);
	attached_close(&a);
	return 0;
fail:
	policy_cur_put(cur);
	return -1;
}

void policy_cur_put(struct policy_cur *cur)
{
	if (cur->lock_fd >= 0)
		close(cur->lock_fd);
	cur->lock_fd = -1;
}

int policy_cur_map(const struct policy_cur *cur, const char *name)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cur->mapdir, name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int policy_set_params(const struct policy_kind *k, const struct policy_cur *cur,
		      int argc, char **argv)
{
	__u64 vals[PARAM_MAX] = {};
	bool given[PARAM_MAX] = {};
	int fd, ret, err;

	if (!cur->def) {
		p_err("%s policy %s was loaded from a file: gpuctl knows no parameters of it",
		      k->object, cur->name);
		return EXIT_FAIL;
	}
	err = parse_params(k, cur->def, argc, argv, vals, given);
	if (err)
		return err;
	fd = policy_cur_map(cur, POLICY_MAP_PARAMS);
	if (fd < 0) {
		p_err("cannot open the parameters of %s: %s", cur->name, strerror(-fd));
		return EXIT_FAIL;
	}
	ret = EXIT_OK;
	for (__u32 i = 0; i < cur->def->nparams; i++)
		if (given[i] && bpf_map_update_elem(fd, &i, &vals[i], BPF_EXIST)) {
			p_err("cannot set parameter %s: %s", cur->def->params[i].name, strerror(errno));
			ret = EXIT_FAIL;
			break;
		}
	close(fd);
	if (ret == EXIT_OK && json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", cur->def->name);
		for (int i = 0; i + 1 < argc; i += 2)
			jsonw_uint_field(json_wtr, argv[i], vals[policy_param_index(cur->def, argv[i])]);
		jsonw_end_object(json_wtr);
	}
	return ret;
}

int policy_set(const struct policy_kind *k, int argc, char **argv)
{
	struct policy_cur cur;
	char what[64];
	int ret;

	if (argc < 2 || argc % 2)
		return usage_err("'%s set' needs KEY VALUE [KEY VALUE]...", k->object);
	snprintf(what, sizeof(what), "%s set", k->object);
	if (policy_cur_get(k, what, &cur))
		return EXIT_FAIL;
	ret = policy_set_params(k, &cur, argc, argv);
	policy_cur_put(&cur);
	return ret;
}

/* Detaches and unpins the attached policy and every map directory. */
static int detach_policy(const char *dir, const struct attached *a)
{
	char path[PATH_MAX + 8];

	/* Detach now (the driver's .unreg runs before we return), then unpin. */
	if (a->map_id && bpf_link_detach(a->link_fd) && errno != ENOLINK) {
		p_err("cannot detach %s: %s", attached_name(a), strerror(errno));
		return EXIT_FAIL;
	}
	policy_step("detached");
	snprintf(path, sizeof(path), "%s/link", dir);
	if (unlink(path) && errno != ENOENT) {
		p_err("detached %s but cannot remove %s: %s", attached_name(a), path, strerror(errno));
		return EXIT_FAIL;
	}
	policy_step("unpinned");
	remove_leftovers(dir, 0);
	return EXIT_OK;
}

static void report_unload(const struct policy_kind *k, const char *name)
{
	if (json_output) {
		jsonw_start_object(json_wtr);
		if (name)
			jsonw_string_field(json_wtr, "unloaded", name);
		else
			jsonw_null_field(json_wtr, "unloaded");
		jsonw_end_object(json_wtr);
	} else if (name) {
		printf("%s: %s unloaded\n", k->object, name);
	} else {
		printf("%s: no policy loaded\n", k->object);
	}
}

int policy_unload(const struct policy_kind *k, int argc, char **argv)
{
	struct attached a;
	char dir[PATH_MAX], what[64], name[64];
	int lock_fd, ret = EXIT_OK, err;

	(void)argv;
	if (argc)
		return usage_err("'%s unload' takes no arguments", k->object);
	snprintf(what, sizeof(what), "%s unload", k->object);
	if (need_caps(what, NEED_BPF) || bpffs_check())
		return EXIT_FAIL;
	err = obj_pin_dir(k, false, dir, sizeof(dir));
	if (err == -ENOENT) {
		/* Idempotent: nothing attached is the state asked for. */
		report_unload(k, NULL);
		return EXIT_OK;
	}
	if (err)
		return EXIT_FAIL;
	lock_fd = pin_lock(dir);
	if (lock_fd < 0)
		return EXIT_FAIL;
	policy_step("locked");
	if (read_attached(k, dir, &a)) {
		close(lock_fd);
		return EXIT_FAIL;
	}
	if (a.link_fd < 0) {
		remove_leftovers(dir, 0);
		report_unload(k, NULL);
	} else {
		snprintf(name, sizeof(name), "%s", attached_name(&a));
		ret = detach_policy(dir, &a);
		if (ret == EXIT_OK)
			report_unload(k, name);
	}
	attached_close(&a);
	close(lock_fd);
	return ret;
}

int policy_attached_map_id(const struct policy_kind *k, __u32 *map_id)
{
	struct attached a;
	char dir[PATH_MAX];
	int err;

	*map_id = 0;
	err = obj_pin_dir(k, false, dir, sizeof(dir));
	if (err)
		return err == -ENOENT ? 0 : -1;
	if (read_attached(k, dir, &a))
		return -1;
	*map_id = a.link_fd >= 0 ? a.map_id : 0;
	attached_close(&a);
	return 0;
}

int policy_map_of(const struct policy_kind *k, __u32 map_id, const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int err, fd;

	err = obj_pin_dir(k, false, dir, sizeof(dir));
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%u/%s", dir, map_id, name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int policy_remove(const struct policy_kind *k, __u32 map_id)
{
	struct attached a;
	char dir[PATH_MAX];
	int lock_fd, ret = EXIT_OK, err;

	err = obj_pin_dir(k, false, dir, sizeof(dir));
	if (err)
		return err == -ENOENT ? EXIT_OK : EXIT_FAIL;
	lock_fd = pin_lock(dir);
	if (lock_fd < 0)
		return EXIT_FAIL;
	if (read_attached(k, dir, &a)) {
		ret = EXIT_FAIL;
	} else {
		if (a.link_fd >= 0 && a.map_id == map_id)
			ret = detach_policy(dir, &a);
		attached_close(&a);
	}
	close(lock_fd);
	return ret;
}

int policy_load_plain(const struct policy_kind *k, int argc, char **argv)
{
	LIBBPF_OPTS(policy_load_opts, opts);
	int ret = policy_load_args(k, argc, argv, &opts);

	return ret ? ret : policy_load(k, &opts);
}
