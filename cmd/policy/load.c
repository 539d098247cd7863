// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - `OBJECT load`: check everything that can be checked, then load
 * the object into the kernel, pin its maps and attach it, or swap it in
 * behind the running policy's link in one step (policy.h: the commit
 * point).  Whatever fails before the commit leaves the state before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy.h"
#include "trustfile.h"

/* One load's working state, passed down its steps. */
struct load {
	const struct policy_kind *k;
	const struct policy_def *def;	/* NULL: a user's object */
	const char *path;
	struct trusted_file file;	/* a user's object: its bytes, read once */
	const char *name;		/* the policy's name, for messages and meta */
	char dir[PATH_MAX];		/* the object's pin directory */
	char mapdir[PATH_MAX + 16];
	struct attached cur;		/* what runs now */
	struct bpf_object *obj;
	struct bpf_map *st_map;
	__u32 map_id;			/* the new struct_ops map's id */
	__u32 link_id;
};

int policy_load_args(const struct policy_kind *k, int argc, char **argv,
		     struct policy_load_opts *opts)
{
	if (argc < 1)
		return usage_err("'%s load' needs a policy ('gpuctl %s list') or 'file PATH'",
				 k->object, k->object);
	if (is_prefix(argv[0], "file") && !find_def(k, argv[0])) {
		if (argc < 2)
			return usage_err("'%s load file' needs a PATH", k->object);
		if (argc > 2)
			return usage_err("a policy loaded from a file takes no parameters ('%s')",
					 argv[2]);
		opts->path = argv[1];
		return 0;
	}
	if (!find_def(k, argv[0]))
		return usage_err("unknown %s policy '%s' ('gpuctl %s list' shows them)",
				 k->object, argv[0], k->object);
	opts->policy = argv[0];
	opts->nargs = argc - 1;
	opts->args = argv + 1;
	return 0;
}

static int check_driver(const struct policy_kind *k)
{
	char module[64];

	if (probe_struct_ops(k->st_type, module, sizeof(module))) {
		p_err("the running driver has no struct %s: load nvidia-uvm built with "
		      "gpuctl's kernel-patch/ series (see kernel-patch/README.md)", k->st_type);
		return -1;
	}
	return 0;
}

static struct bpf_map *the_struct_ops_map(struct bpf_object *obj)
{
	struct bpf_map *map, *found = NULL;

	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS) {
			if (found)
				return NULL;
			found = map;
		}
	return found;
}

/* Opens and loads the object into the kernel, fills its params; p_err and -1. */
static int load_object(struct load *l, const __u64 *vals)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts);
	const char *what = l->path ? l->path : l->def->name, *warn;
	struct bpf_map *params;
	const void *bytes;
	size_t sz;
	int err;

	libbpf_quiet_begin();
	if (l->path) {
		/* the bytes elf_check_policy checked: never the path again */
		char name[64], *dot;

		snprintf(name, sizeof(name), "%s", strrchr(l->path, '/') ? strrchr(l->path, '/') + 1 :
			 l->path);
		dot = strchr(name, '.');
		if (dot && dot != name)
			*dot = '\0';
		oopts.object_name = name;
		l->obj = bpf_object__open_mem(l->file.data, l->file.size, &oopts);
	} else {
		bytes = l->def->elf_bytes(&sz);
		oopts.object_name = l->def->name;
		l->obj = bpf_object__open_mem(bytes, sz, &oopts);
	}
	err = l->obj ? 0 : -errno;
	warn = libbpf_quiet_end();
	if (err) {
		l->obj = NULL;
		char msg[128];

		if (libbpf_strerror(err, msg, sizeof(msg)))
			snprintf(msg, sizeof(msg), "%s", strerror(-err));
		p_err("cannot open %s: %s%s%s%s", what, msg, *warn ? " (libbpf: " : "",
		      warn, *warn ? ")" : "");
		return -1;
	}
	l->st_map = the_struct_ops_map(l->obj);
	if (!l->st_map) {
		p_err("%s must define exactly one struct_ops map (SEC(\".struct_ops.link\"))", what);
		return -1;
	}
	if (!(bpf_map__map_flags(l->st_map) & BPF_F_LINK)) {
		p_err("%s: the struct_ops map must be in section .struct_ops.link so gpuctl can pin and swap it",
		      what);
		return -1;
	}
	libbpf_quiet_begin();
	err = bpf_object__load(l->obj);
	warn = libbpf_quiet_end();
	if (err) {
		p_err("the kernel rejected %s policy %s: %s%s%s%s%s", l->k->object, what,
		      strerror(-err), *warn ? " (libbpf: " : "", warn, *warn ? ")" : "",
		      debug_output ? "" : "; -d shows the verifier log");
		return -1;
	}
	l->name = l->def ? l->def->name : bpf_map__name(l->st_map);
	params = bpf_object__find_map_by_name(l->obj, POLICY_MAP_PARAMS);
	if (l->def && l->def->nparams) {
		if (!params) {
			p_err("built-in policy %s has no params map", l->def->name);
			return -1;
		}
		for (__u32 i = 0; i < PARAM_MAX; i++)
			if (bpf_map_update_elem(bpf_map__fd(params), &i, &vals[i], BPF_ANY)) {
				p_err("cannot set parameters: %s", strerror(errno));
				return -1;
			}
	}
	/* The map's value, programs by fd: a swap needs it written first. */
	err = st_map_prepare(l->obj, bpf_map__name(l->st_map), bpf_map__fd(l->st_map));
	if (err && err != -EBUSY) {
		p_err("cannot prepare the struct_ops map of %s: %s", what, strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * Attaches the policy's other programs (tracing programs that feed its
 * maps) and pins their links next to its maps, so they live and die with
 * the policy.
 */
static int attach_helpers(struct load *l)
{
	char path[PATH_MAX + 80];
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	bpf_object__for_each_program(prog, l->obj) {
		if (bpf_program__type(prog) == BPF_PROG_TYPE_STRUCT_OPS)
			continue;
		libbpf_quiet_begin();
		link = bpf_program__attach(prog);
		err = link ? 0 : -errno;
		libbpf_quiet_end();
		if (err) {
			p_err("cannot attach %s (%s): %s; 'gpuctl probe' lists the driver's attach points",
			      bpf_program__name(prog), bpf_program__section_name(prog), strerror(-err));
			return err;
		}
		snprintf(path, sizeof(path), "%s/link_%s", l->mapdir, bpf_program__name(prog));
		err = bpf_link__pin(link, path) ? -errno : 0;
		bpf_link__destroy(link);
		if (err) {
			p_err("cannot pin %s: %s", path, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Pins meta and the maps under <dir>/<map id>, attaches the helpers. */
static int pin_policy(struct load *l)
{
	struct policy_meta meta = {};
	struct bpf_map_info minfo = {};
	__u32 mlen = sizeof(minfo), zero = 0;
	char path[PATH_MAX + 40];
	struct bpf_map *map;
	int meta_fd, err;

	if (bpf_map_get_info_by_fd(bpf_map__fd(l->st_map), &minfo, &mlen)) {
		p_err("cannot read the policy's map id: %s", strerror(errno));
		return -1;
	}
	l->map_id = minfo.id;
	meta.loaded_at = (__u64)time(NULL);
	snprintf(meta.policy, sizeof(meta.policy), "%s", l->name);
	snprintf(meta.source, sizeof(meta.source), "%s", l->path ? l->path : "built-in");
	meta_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gpuctl_meta", sizeof(__u32),
				 sizeof(meta), 1, NULL);
	if (meta_fd < 0 || bpf_map_update_elem(meta_fd, &zero, &meta, BPF_ANY)) {
		p_err("cannot create the policy's meta map: %s", strerror(errno));
		if (meta_fd >= 0)
			close(meta_fd);
		return -1;
	}
	/* A directory of this id left by a killed load of a freed map: not ours now. */
	remove_map_dir(l->dir, l->map_id);
	snprintf(l->mapdir, sizeof(l->mapdir), "%s/%u", l->dir, l->map_id);
	err = mkdir(l->mapdir, 0700) ? -errno : 0;
	snprintf(path, sizeof(path), "%s/meta", l->mapdir);
	if (!err && bpf_obj_pin(meta_fd, path))
		err = -errno;
	close(meta_fd);
	bpf_object__for_each_map(map, l->obj) {
		if (err)
			break;
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS || bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", l->mapdir, bpf_map__name(map));
		if (bpf_obj_pin(bpf_map__fd(map), path))
			err = -errno;
	}
	if (err) {
		p_err("cannot pin maps in %s: %s", l->mapdir, strerror(-err));
		return -1;
	}
	policy_step("pinned");
	if (attach_helpers(l))
		return -1;
	policy_step("helpers");
	return 0;
}

/* Hot swap: one .update in the driver, no moment without a policy. */
static int commit_swap(struct load *l)
{
	LIBBPF_OPTS(bpf_link_update_opts, uo, .flags = BPF_F_REPLACE);

	if (l->cur.map_fd < 0) {
		p_err("cannot open map %u of the running policy %s: %s", l->cur.map_id,
		      attached_name(&l->cur), strerror(ENOENT));
		return -1;
	}
	/* BPF_F_REPLACE: the swap fails if another swap won the race. */
	uo.old_map_fd = l->cur.map_fd;
	if (bpf_link_update(l->cur.link_fd, bpf_map__fd(l->st_map), &uo)) {
		p_err("cannot replace %s with %s: %s", attached_name(&l->cur), l->name,
		      strerror(errno));
		return -1;
	}
	l->link_id = l->cur.link_id;
	policy_step("committed");
	return 0;
}

/* The link attached outside gpuctl that holds the type, for the error. */
static __u32 foreign_link_id(const struct policy_kind *k)
{
	__u32 id = 0;
	char type[64];

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id), map_fd;
		bool match = false;

		if (fd < 0)
			continue;
		if (!bpf_link_get_info_by_fd(fd, &info, &len) &&
		    info.type == BPF_LINK_TYPE_STRUCT_OPS && info.struct_ops.map_id) {
			map_fd = bpf_map_get_fd_by_id(info.struct_ops.map_id);
			if (map_fd >= 0) {
				match = !st_type_of_map(map_fd, type, sizeof(type)) &&
					!strcmp(type, k->st_type);
				close(map_fd);
			}
		}
		close(fd);
		if (match)
			return id;
	}
	return 0;
}

/* Nothing attached: a new link, committed by pinning it. */
static int commit_attach(struct load *l)
{
	struct bpf_link_info info = {};
	__u32 ilen = sizeof(info);
	char linkpath[PATH_MAX + 8];
	struct bpf_link *link;
	int err;

	libbpf_quiet_begin();
	link = bpf_map__attach_struct_ops(l->st_map);
	err = link ? 0 : -errno;
	libbpf_quiet_end();
	if (err == -EBUSY) {
		__u32 id = foreign_link_id(l->k);

		if (id)
			p_err("another struct %s policy is attached outside gpuctl (link %u; 'bpftool link show id %u')",
			      l->k->st_type, id, id);
		else
			p_err("another struct %s policy is attached outside gpuctl", l->k->st_type);
		return -1;
	} else if (err) {
		p_err("cannot attach %s: %s", l->name, strerror(-err));
		return -1;
	}
	policy_step("attached");
	snprintf(linkpath, sizeof(linkpath), "%s/link", l->dir);
	if (l->cur.link_fd >= 0)	/* a stale pin (detached link) goes first */
		unlink(linkpath);
	if (bpf_link__pin(link, linkpath)) {
		p_err("cannot pin the link at %s: %s", linkpath, strerror(errno));
		bpf_link__destroy(link);
		return -1;
	}
	bpf_link__disconnect(link);
	if (!bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &ilen))
		l->link_id = info.id;
	bpf_link__destroy(link);
	policy_step("committed");
	return 0;
}

static void report_load(const struct load *l, const char *replaced)
{
	const char *why = l->k->inert ? l->k->inert() : NULL;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", l->name);
		if (replaced)
			jsonw_string_field(json_wtr, "replaced", replaced);
		else
			jsonw_null_field(json_wtr, "replaced");
		jsonw_uint_field(json_wtr, "link_id", l->link_id);
		jsonw_uint_field(json_wtr, "map_id", l->map_id);
		if (why)
			jsonw_string_field(json_wtr, "warning", why);
		jsonw_end_object(json_wtr);
		return;
	}
	if (replaced)
		printf("%s: %s replaced %s (link %u, map %u)\n", l->k->object, l->name, replaced,
		       l->link_id, l->map_id);
	else
		printf("%s: %s attached (link %u, map %u)\n", l->k->object, l->name, l->link_id,
		       l->map_id);
	if (why)
		fprintf(stderr, "Warning: %s\n", why);
}

/* Everything checkable, before anything changes; an exit code or -1 to go on. */
static int check_load(struct load *l, const struct policy_load_opts *opts, __u64 *vals)
{
	char what[64];
	int err;

	if (!opts || opts->sz != sizeof(*opts) || (!opts->policy == !opts->path)) {
		p_err("internal error: bad policy_load_opts");
		return EXIT_FAIL;
	}
	l->path = opts->path;
	l->def = opts->policy ? find_def(l->k, opts->policy) : NULL;
	if (opts->policy && !l->def)
		return usage_err("unknown %s policy '%s' ('gpuctl %s list' shows them)",
				 l->k->object, opts->policy, l->k->object);
	for (unsigned int i = 0; l->def && i < l->def->nparams; i++)
		vals[i] = l->def->params[i].def;
	err = parse_params(l->k, l->def, opts->nargs, opts->args, vals, NULL);
	if (err)
		return err;
	snprintf(what, sizeof(what), "%s load", l->k->object);
	if (need_caps(what, NEED_BPF) || bpffs_check() || check_driver(l->k) ||
	    (l->path && (trust_file_read(l->path, &l->file, false) ||
			 elf_check_policy(l->path, l->file.data, l->file.size, l->k->st_type))))
		return EXIT_FAIL;
	return -1;
}

int policy_load(const struct policy_kind *k, struct policy_load_opts *opts)
{
	struct load l = { .k = k, .cur = { .link_fd = -1, .map_fd = -1 } };
	__u64 vals[PARAM_MAX] = {};
	char replaced[64] = "";
	int lock_fd, ret;
	bool swap;

	ret = check_load(&l, opts, vals);
	if (ret >= 0) {
		trust_file_free(&l.file);
		return ret;
	}
	ret = EXIT_FAIL;
	lock_fd = obj_pin_dir(k, true, l.dir, sizeof(l.dir)) ? -1 : pin_lock(l.dir);
	if (lock_fd < 0) {
		trust_file_free(&l.file);
		return EXIT_FAIL;
	}
	policy_step("locked");
	if (read_attached(k, l.dir, &l.cur) || load_object(&l, vals) ||
	    (opts->setup && opts->setup(opts->ctx, l.def ? l.def->name : NULL, l.obj)))
		goto out;
	policy_step("loaded");

	/* From here on the state changes: undone on failure until the commit. */
	swap = l.cur.link_fd >= 0 && l.cur.map_id;
	if (swap)
		snprintf(replaced, sizeof(replaced), "%s", attached_name(&l.cur));
	if (pin_policy(&l) || (swap ? commit_swap(&l) : commit_attach(&l))) {
		if (l.map_id)
			remove_map_dir(l.dir, l.map_id);
		goto out;
	}
	remove_leftovers(l.dir, l.map_id);
	opts->map_id = l.map_id;
	report_load(&l, swap ? replaced : NULL);
	ret = EXIT_OK;
out:
	attached_close(&l.cur);
	bpf_object__close(l.obj);
	trust_file_free(&l.file);
	close(lock_fd);
	return ret;
}
