// SPDX-License-Identifier: GPL-2.0
/* policy.c - load, swap, show and unload struct_ops policies (see policy.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/capability.h>

#include "gpuctl.h"
#include "policy.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

#define PARAM_MAX 8
#define STAT_MAX 8

/* Pinned next to every policy's maps: who loaded what, when. */
struct policy_meta {
	__u64 loaded_at;	/* unix time */
	char policy[32];
	char source[224];	/* "built-in" or the object's path */
};

/* What is attached now, read back through the pinned link. */
struct attached {
	int link_fd;		/* -1: nothing pinned */
	__u32 link_id;
	__u32 map_id;		/* 0: the link was detached (stale pin) */
	char map_name[BPF_OBJ_NAME_LEN];
	struct policy_meta meta;
	bool have_meta;
};

static void obj_dir(const struct policy_kind *k, char *buf, size_t len)
{
	snprintf(buf, len, GPUCTL_PIN_DIR "/%s", k->object);
}

/*
 * Serialises the commands that change an object's pins (load, show's
 * clean-up, unload) across processes; released when the fd closes.
 */
static int lock_object(const struct policy_kind *k)
{
	char dir[PATH_MAX];
	int fd;

	obj_dir(k, dir, sizeof(dir));
	if ((mkdir(GPUCTL_PIN_DIR, 0700) && errno != EEXIST) ||
	    (mkdir(dir, 0700) && errno != EEXIST)) {
		p_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		p_err("cannot lock %s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static const struct policy_def *find_def(const struct policy_kind *k, const char *name)
{
	const struct policy_def *d;

	for (d = k->defs; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

static const struct policy_param *find_param(const struct policy_def *d, const char *name)
{
	const struct policy_param *p;

	for (p = d ? d->params : NULL; p && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/* --- preconditions -------------------------------------------------- */

static int check_bpffs(void)
{
	struct statfs st;

	if (statfs(BPFFS_ROOT, &st) || st.f_type != BPF_FS_MAGIC) {
		p_err("bpffs is not mounted at " BPFFS_ROOT
		      ": mount it with 'mount -t bpf bpf " BPFFS_ROOT "'");
		return -1;
	}
	return 0;
}

/* Names the capabilities a load needs and this process lacks. */
static int check_caps(const char *what)
{
	static const struct { cap_value_t cap; const char *name; } need[] = {
		{ CAP_BPF, "CAP_BPF" }, { CAP_PERFMON, "CAP_PERFMON" },
	};
	char missing[64] = "";
	cap_flag_value_t v;
	cap_t caps;
	size_t i;
	bool admin;

	caps = cap_get_proc();
	if (!caps)
		return 0;	/* cannot tell: let the kernel answer */
	admin = !cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v) && v == CAP_SET;
	for (i = 0; i < sizeof(need) / sizeof(need[0]) && !admin; i++)
		if (cap_get_flag(caps, need[i].cap, CAP_EFFECTIVE, &v) || v != CAP_SET)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", missing[0] ? " and " : "", need[i].name);
	cap_free(caps);
	if (missing[0]) {
		p_err("%s needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); this process lacks %s",
		      what, missing);
		return -1;
	}
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

/* --- reading what is attached ----------------------------------------- */

/* Name of the struct_ops type behind a struct_ops map, from kernel BTF. */
static int st_type_of_map(int map_fd, char *buf, size_t len)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info);
	struct btf *vmlinux, *btf;
	const char *name;

	if (bpf_map_get_info_by_fd(map_fd, &info, &ilen))
		return -errno;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -errno;
	btf = info.btf_vmlinux_id ? btf__load_from_kernel_by_id_split(info.btf_vmlinux_id, vmlinux)
				  : vmlinux;
	if (!btf) {
		btf__free(vmlinux);
		return -ENOENT;
	}
	name = btf__name_by_offset(btf, btf__type_by_id(btf, info.btf_vmlinux_value_type_id)->name_off);
	/* the value type is "bpf_struct_ops_<type>" */
	snprintf(buf, len, "%s", name && !strncmp(name, "bpf_struct_ops_", 15) ? name + 15 : "?");
	if (btf != vmlinux)
		btf__free(btf);
	btf__free(vmlinux);
	return 0;
}

static int read_meta(const char *dir, __u32 map_id, struct policy_meta *meta)
{
	char path[PATH_MAX];
	__u32 zero = 0;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%u/meta", dir, map_id);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	err = bpf_map_lookup_elem(fd, &zero, meta);
	close(fd);
	meta->policy[sizeof(meta->policy) - 1] = 0;
	meta->source[sizeof(meta->source) - 1] = 0;
	return err;
}

/* "link", "map" or "prog": what kind of BPF object fd refers to. */
static int fd_kind(int fd, char *buf, size_t len)
{
	char proc[64], target[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = 0;
	if (strncmp(target, "anon_inode:bpf-", 15))
		return -1;
	snprintf(buf, len, "%s", target + 15);
	return 0;
}

/*
 * Fills *a from the pinned link.  0 with a->link_fd == -1 when nothing is
 * pinned; -1 (after p_err) when the pin is not a link of our type.
 */
static int read_attached(const struct policy_kind *k, struct attached *a)
{
	struct bpf_link_info info = {};
	__u32 ilen = sizeof(info);
	char dir[PATH_MAX], path[PATH_MAX], type[64], kind[16] = "";
	int map_fd;

	memset(a, 0, sizeof(*a));
	a->link_fd = -1;
	obj_dir(k, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/link", dir);
	if (access(path, F_OK))
		return 0;

	a->link_fd = bpf_obj_get(path);
	if (a->link_fd < 0) {
		p_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fd_kind(a->link_fd, kind, sizeof(kind)) || strcmp(kind, "link") ||
	    bpf_link_get_info_by_fd(a->link_fd, &info, &ilen)) {
		p_err("%s is not a BPF link but a BPF %s pinned by something else: remove it with 'rm %s'",
		      path, kind[0] ? kind : "object", path);
		goto fail;
	}
	if (info.type != BPF_LINK_TYPE_STRUCT_OPS) {
		p_err("%s is a link of type %u, not a struct_ops link: remove it with 'rm %s'",
		      path, info.type, path);
		goto fail;
	}
	a->link_id = info.id;
	a->map_id = info.struct_ops.map_id;
	if (!a->map_id)
		return 0;	/* detached: a stale pin */

	map_fd = bpf_map_get_fd_by_id(a->map_id);
	if (map_fd >= 0) {
		struct bpf_map_info minfo = {};
		__u32 mlen = sizeof(minfo);

		if (!bpf_map_get_info_by_fd(map_fd, &minfo, &mlen))
			snprintf(a->map_name, sizeof(a->map_name), "%s", minfo.name);
		if (!st_type_of_map(map_fd, type, sizeof(type)) && strcmp(type, k->st_type)) {
			p_err("%s holds a struct %s policy, not struct %s: remove it with 'rm %s'",
			      path, type, k->st_type, path);
			close(map_fd);
			goto fail;
		}
		close(map_fd);
	}
	a->have_meta = !read_meta(dir, a->map_id, &a->meta);
	return 0;
fail:
	close(a->link_fd);
	a->link_fd = -1;
	return -1;
}

/* Removes map directories of policies no longer behind the link. */
static void remove_stale_dirs(const struct policy_kind *k, __u32 keep_id)
{
	char dir[PATH_MAX], sub[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *e, *f;
	DIR *d, *sd;
	char *end;

	obj_dir(k, dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		unsigned long id = strtoul(e->d_name, &end, 10);

		if (*end || end == e->d_name || id == keep_id)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		sd = opendir(sub);
		if (!sd)
			continue;
		while ((f = readdir(sd)))
			if (f->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", sub, f->d_name);
				unlink(path);
			}
		closedir(sd);
		rmdir(sub);
	}
	closedir(d);
}

/* --- list ------------------------------------------------------------ */

int policy_list(const struct policy_kind *k, int argc, char **argv)
{
	const struct policy_def *d;
	const struct policy_param *p;

	(void)argv;
	if (argc)
		return usage_err("'%s list' takes no arguments", k->object);
	if (json_output)
		jsonw_start_array(json_wtr);
	for (d = k->defs; d->name; d++) {
		if (!json_output) {
			printf("%-14s %s\n", d->name, d->doc);
			for (p = d->params; p && p->name; p++)
				printf("%-14s   %s %llu (%llu..%llu): %s\n", "", p->name,
				       (unsigned long long)p->def, (unsigned long long)p->min,
				       (unsigned long long)p->max, p->doc);
			continue;
		}
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", d->name);
		jsonw_string_field(json_wtr, "description", d->doc);
		jsonw_name(json_wtr, "params");
		jsonw_start_array(json_wtr);
		for (p = d->params; p && p->name; p++) {
			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "name", p->name);
			jsonw_uint_field(json_wtr, "default", p->def);
			jsonw_uint_field(json_wtr, "min", p->min);
			jsonw_uint_field(json_wtr, "max", p->max);
			jsonw_string_field(json_wtr, "description", p->doc);
			jsonw_end_object(json_wtr);
		}
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	return EXIT_OK;
}

/* --- load ------------------------------------------------------------ */

/* Parses KEY VALUE pairs of def into vals; usage errors name the problem. */
static int parse_params(const struct policy_kind *k, const struct policy_def *d,
			int argc, char **argv, __u64 *vals, bool *given)
{
	const struct policy_def *other;
	const struct policy_param *p;
	unsigned long long v;

	for (; argc > 0; argc -= 2, argv += 2) {
		p = find_param(d, argv[0]);
		if (!p) {
			if (!d)
				return usage_err("a policy loaded from a file takes no parameters ('%s')",
						 argv[0]);
			for (other = k->defs; other->name; other++)
				if (find_param(other, argv[0]))
					return usage_err("'%s' is not a parameter of %s (it is one of %s)",
							 argv[0], d->name, other->name);
			return usage_err("unknown parameter '%s' of %s policy %s ('gpuctl %s list' shows them)",
					 argv[0], k->object, d->name, k->object);
		}
		if (argc < 2)
			return usage_err("parameter '%s' needs a value", argv[0]);
		if (parse_u64(p->name, argv[1], p->min, p->max, &v))
			return EXIT_USAGE;
		vals[p->idx] = v;
		if (given)
			given[p->idx] = true;
	}
	return 0;
}

static int pin_maps(struct bpf_object *obj, const char *dir, int meta_fd)
{
	char path[PATH_MAX];
	struct bpf_map *map;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/meta", dir);
	if (bpf_obj_pin(meta_fd, path) && errno != EEXIST)
		return -errno;
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS || bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(map));
		if (bpf_obj_pin(bpf_map__fd(map), path) && errno != EEXIST)
			return -errno;
	}
	return 0;
}

/*
 * Attaches the policy's other programs (tracing programs that feed its
 * maps) and pins their links next to its maps, so they live and die with
 * the policy.
 */
static int attach_helpers(struct bpf_object *obj, const char *mapdir)
{
	char path[PATH_MAX];
	struct bpf_program *prog;
	struct bpf_link *l;
	int err;

	bpf_object__for_each_program(prog, obj) {
		if (bpf_program__type(prog) == BPF_PROG_TYPE_STRUCT_OPS)
			continue;
		l = bpf_program__attach(prog);
		if (!l) {
			err = -errno;
			p_err("cannot attach %s (%s): %s; 'gpuctl probe' lists the driver's attach points",
			      bpf_program__name(prog), bpf_program__section_name(prog), strerror(-err));
			return err;
		}
		snprintf(path, sizeof(path), "%s/link_%s", mapdir, bpf_program__name(prog));
		err = bpf_link__pin(l, path) ? -errno : 0;
		bpf_link__destroy(l);
		if (err) {
			p_err("cannot pin %s: %s", path, strerror(-err));
			return err;
		}
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

static void report_load(const struct policy_kind *k, const char *name, const char *replaced,
			__u32 link_id, __u32 map_id)
{
	const char *why = k->inert ? k->inert() : NULL;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", name);
		if (replaced)
			jsonw_string_field(json_wtr, "replaced", replaced);
		else
			jsonw_null_field(json_wtr, "replaced");
		jsonw_uint_field(json_wtr, "link_id", link_id);
		jsonw_uint_field(json_wtr, "map_id", map_id);
		if (why)
			jsonw_string_field(json_wtr, "warning", why);
		jsonw_end_object(json_wtr);
		return;
	}
	if (replaced)
		printf("%s: %s replaced %s (link %u, map %u)\n", k->object, name, replaced,
		       link_id, map_id);
	else
		printf("%s: %s attached (link %u, map %u)\n", k->object, name, link_id, map_id);
	if (why)
		fprintf(stderr, "Warning: %s\n", why);
}

int policy_load(const struct policy_kind *k, int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts);
	const struct policy_def *def = NULL;
	__u64 vals[PARAM_MAX] = {};
	const struct policy_param *p;
	struct policy_meta meta = {};
	struct attached cur;
	struct bpf_object *obj = NULL;
	struct bpf_map *st_map, *params;
	struct bpf_link *link = NULL;
	struct bpf_map_info minfo = {};
	__u32 mlen = sizeof(minfo), i;
	char dir[PATH_MAX], mapdir[PATH_MAX], linkpath[PATH_MAX];
	const char *path = NULL, *name;
	char oldname[64] = "";
	int meta_fd = -1, lock_fd, ret = EXIT_FAIL, err;
	const void *bytes;
	size_t sz;

	if (argc < 1)
		return usage_err("'%s load' needs a policy ('gpuctl %s list') or 'file PATH'",
				 k->object, k->object);
	if (is_prefix(argv[0], "file") && !find_def(k, argv[0])) {
		if (argc < 2)
			return usage_err("'%s load file' needs a PATH", k->object);
		path = argv[1];
		NEXT_ARG();
		NEXT_ARG();
	} else {
		def = find_def(k, argv[0]);
		if (!def)
			return usage_err("unknown %s policy '%s' ('gpuctl %s list' shows them)",
					 k->object, argv[0], k->object);
		NEXT_ARG();
	}
	for (p = def ? def->params : NULL; p && p->name; p++)
		vals[p->idx] = p->def;
	err = parse_params(k, def, argc, argv, vals, NULL);
	if (err)
		return err;

	if (path && elf_check_policy(path, k->st_type))
		return EXIT_FAIL;
	if (check_caps("loading a policy") || check_bpffs() || check_driver(k))
		return EXIT_FAIL;
	lock_fd = lock_object(k);
	if (lock_fd < 0)
		return EXIT_FAIL;
	if (read_attached(k, &cur)) {
		close(lock_fd);
		return EXIT_FAIL;
	}

	if (path) {
		obj = bpf_object__open_file(path, &oopts);
	} else {
		bytes = def->elf_bytes(&sz);
		oopts.object_name = def->name;
		obj = bpf_object__open_mem(bytes, sz, &oopts);
	}
	if (!obj) {
		p_err("cannot open %s: %s", path ? path : def->name, strerror(errno));
		goto out;
	}
	st_map = the_struct_ops_map(obj);
	if (!st_map) {
		p_err("%s must define exactly one struct_ops map (SEC(\".struct_ops.link\"))",
		      path ? path : def->name);
		goto out;
	}
	if (!(bpf_map__map_flags(st_map) & BPF_F_LINK)) {
		p_err("%s: the struct_ops map must be in section .struct_ops.link so gpuctl can pin and swap it",
		      path);
		goto out;
	}
	err = bpf_object__load(obj);
	if (err) {
		p_err("the kernel rejected %s policy %s: %s%s", k->object,
		      path ? path : def->name, strerror(-err),
		      debug_output ? "" : " (-d shows the verifier log)");
		goto out;
	}
	name = bpf_map__name(st_map);

	params = bpf_object__find_map_by_name(obj, "params");
	if (def && def->params && def->params->name) {
		if (!params) {
			p_err("built-in policy %s has no params map", def->name);
			goto out;
		}
		for (i = 0; i < PARAM_MAX; i++)
			if (bpf_map_update_elem(bpf_map__fd(params), &i, &vals[i], BPF_ANY)) {
				p_err("cannot set parameters: %s", strerror(errno));
				goto out;
			}
	}
	if (k->setup && k->setup(def ? def->name : NULL, obj))
		goto out;

	/* Pin this policy's maps under its struct_ops map id. */
	if (bpf_map_get_info_by_fd(bpf_map__fd(st_map), &minfo, &mlen)) {
		p_err("cannot read the policy's map id: %s", strerror(errno));
		goto out;
	}
	meta.loaded_at = (__u64)time(NULL);
	snprintf(meta.policy, sizeof(meta.policy), "%s", def ? def->name : name);
	snprintf(meta.source, sizeof(meta.source), "%s", path ? path : "built-in");
	meta_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gpuctl_meta", sizeof(__u32),
				 sizeof(meta), 1, NULL);
	i = 0;
	if (meta_fd < 0 || bpf_map_update_elem(meta_fd, &i, &meta, BPF_ANY)) {
		p_err("cannot create the policy's meta map: %s", strerror(errno));
		goto out;
	}
	obj_dir(k, dir, sizeof(dir));
	snprintf(mapdir, sizeof(mapdir), "%s/%u", dir, minfo.id);
	err = pin_maps(obj, mapdir, meta_fd);
	if (err) {
		p_err("cannot pin maps in %s: %s", mapdir, strerror(-err));
		goto out_unpin;
	}

	err = attach_helpers(obj, mapdir);
	if (err)
		goto out_unpin;

	snprintf(linkpath, sizeof(linkpath), "%s/link", dir);
	if (cur.link_fd >= 0 && cur.map_id) {
		/* Hot swap: one .update in the driver, no window without a policy. */
		snprintf(oldname, sizeof(oldname), "%s",
			 cur.have_meta ? cur.meta.policy : cur.map_name);
		link = bpf_link__open(linkpath);
		err = link ? bpf_link__update_map(link, st_map) : -errno;
		if (link)
			bpf_link__disconnect(link);
		if (err) {
			p_err("cannot replace %s with %s: %s", oldname, name, strerror(-err));
			goto out_unpin;
		}
		remove_stale_dirs(k, minfo.id);
		report_load(k, meta.policy, oldname, cur.link_id, minfo.id);
		ret = EXIT_OK;
		goto out;
	}

	link = bpf_map__attach_struct_ops(st_map);
	if (!link) {
		err = -errno;
		if (err == -EBUSY) {
			__u32 id = foreign_link_id(k);

			if (id)
				p_err("another struct %s policy is attached outside gpuctl (link %u; 'bpftool link show id %u')",
				      k->st_type, id, id);
			else
				p_err("another struct %s policy is attached outside gpuctl", k->st_type);
		} else {
			p_err("cannot attach %s: %s", name, strerror(-err));
		}
		goto out_unpin;
	}
	/* Commit: pinning the link.  A stale pin (detached link) goes first. */
	if (cur.link_fd >= 0)
		unlink(linkpath);
	if (bpf_link__pin(link, linkpath)) {
		p_err("cannot pin the link at %s: %s", linkpath, strerror(errno));
		goto out_unpin;
	}
	bpf_link__disconnect(link);
	{
		struct bpf_link_info linfo = {};
		__u32 llen = sizeof(linfo);

		bpf_link_get_info_by_fd(bpf_link__fd(link), &linfo, &llen);
		remove_stale_dirs(k, minfo.id);
		report_load(k, meta.policy, NULL, linfo.id, minfo.id);
	}
	ret = EXIT_OK;
	goto out;

out_unpin:
	remove_stale_dirs(k, cur.map_id);
out:
	if (link)
		bpf_link__destroy(link);
	if (meta_fd >= 0)
		close(meta_fd);
	if (cur.link_fd >= 0)
		close(cur.link_fd);
	bpf_object__close(obj);
	close(lock_fd);
	return ret;
}

/* --- set, show, unload ------------------------------------------------ */

static int open_policy_map(const struct policy_kind *k, const struct attached *a,
			   const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX];

	obj_dir(k, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%u/%s", dir, a->map_id, name);
	return bpf_obj_get(path);
}

static int need_attached(const struct policy_kind *k, struct attached *a)
{
	if (check_bpffs() || read_attached(k, a))
		return -1;
	if (a->link_fd < 0 || !a->map_id) {
		p_err("no %s policy is loaded%s%s%s", k->object,
		      a->link_fd >= 0 ? " (a stale pin remains: 'gpuctl " : "",
		      a->link_fd >= 0 ? k->object : "",
		      a->link_fd >= 0 ? " unload' removes it)" : "");
		return -1;
	}
	return 0;
}

int policy_set(const struct policy_kind *k, int argc, char **argv)
{
	const struct policy_def *def;
	__u64 vals[PARAM_MAX] = {};
	bool given[PARAM_MAX] = {};
	struct attached a;
	int fd, ret = EXIT_FAIL, err;
	__u32 i;

	if (argc < 2 || argc % 2)
		return usage_err("'%s set' needs KEY VALUE [KEY VALUE]...", k->object);
	if (need_attached(k, &a))
		goto out;
	def = a.have_meta && !strcmp(a.meta.source, "built-in") ? find_def(k, a.meta.policy) : NULL;
	if (!def) {
		p_err("%s policy %s was loaded from a file: gpuctl knows no parameters of it",
		      k->object, a.have_meta ? a.meta.policy : a.map_name);
		goto out;
	}
	err = parse_params(k, def, argc, argv, vals, given);
	if (err) {
		ret = err;
		goto out;
	}
	fd = open_policy_map(k, &a, "params");
	if (fd < 0) {
		p_err("cannot open the parameters of %s: %s", def->name, strerror(errno));
		goto out;
	}
	ret = EXIT_OK;
	for (i = 0; i < PARAM_MAX; i++)
		if (given[i] && bpf_map_update_elem(fd, &i, &vals[i], BPF_EXIST)) {
			p_err("cannot set parameter %u: %s", i, strerror(errno));
			ret = EXIT_FAIL;
			break;
		}
	close(fd);
	if (ret == EXIT_OK && json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", def->name);
		for (i = 0; i + 1 < (__u32)argc; i += 2)
			jsonw_uint_field(json_wtr, argv[i], vals[find_param(def, argv[i])->idx]);
		jsonw_end_object(json_wtr);
	}
out:
	if (a.link_fd >= 0)
		close(a.link_fd);
	return ret;
}

static void show_params(const struct policy_kind *k, const struct attached *a,
			const struct policy_def *def)
{
	const struct policy_param *p;
	__u64 v;
	int fd = open_policy_map(k, a, "params");

	if (json_output) {
		jsonw_name(json_wtr, "params");
		jsonw_start_object(json_wtr);
	}
	for (p = def ? def->params : NULL; fd >= 0 && p && p->name; p++) {
		if (bpf_map_lookup_elem(fd, &p->idx, &v))
			continue;
		if (json_output)
			jsonw_uint_field(json_wtr, p->name, v);
		else
			printf("  param %-16s %llu\n", p->name, (unsigned long long)v);
	}
	if (json_output)
		jsonw_end_object(json_wtr);
	if (fd >= 0)
		close(fd);
}

static void show_stats(const struct policy_kind *k, const struct attached *a,
		       const struct policy_def *def)
{
	int ncpu = libbpf_num_possible_cpus(), fd = open_policy_map(k, a, "stats"), c;
	__u64 *vals, sum;
	const char *name;
	__u32 i;

	if (json_output) {
		jsonw_name(json_wtr, "counters");
		jsonw_start_object(json_wtr);
	}
	vals = ncpu > 0 ? calloc(ncpu, sizeof(*vals)) : NULL;
	for (i = 0; fd >= 0 && vals && i < STAT_MAX; i++) {
		name = i < 4 ? k->stats[i] : def && def->stats ? def->stats[i - 4] : NULL;
		if (!name)
			break;
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (sum = 0, c = 0; c < ncpu; c++)
			sum += vals[c];
		if (json_output)
			jsonw_uint_field(json_wtr, name, sum);
		else
			printf("  count %-16s %llu\n", name, (unsigned long long)sum);
	}
	free(vals);
	if (json_output)
		jsonw_end_object(json_wtr);
	if (fd >= 0)
		close(fd);
}

static int show_locked(const struct policy_kind *k);

int policy_show(const struct policy_kind *k, int argc, char **argv)
{
	int lock_fd, ret;

	(void)argv;
	if (argc)
		return usage_err("'%s show' takes no arguments", k->object);
	if (check_bpffs())
		return EXIT_FAIL;
	lock_fd = lock_object(k);
	if (lock_fd < 0)
		return EXIT_FAIL;
	ret = show_locked(k);
	close(lock_fd);
	return ret;
}

static int show_locked(const struct policy_kind *k)
{
	const struct policy_def *def;
	struct attached a;
	char since[32] = "";
	const char *why;
	time_t t;

	if (read_attached(k, &a))
		return EXIT_FAIL;
	if (a.link_fd < 0 || !a.map_id) {
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_null_field(json_wtr, "policy");
			jsonw_bool_field(json_wtr, "stale_pin", a.link_fd >= 0);
			jsonw_end_object(json_wtr);
		} else {
			printf("%s: no policy loaded\n", k->object);
		}
		if (a.link_fd >= 0) {
			if (!json_output)
				printf("  stale pin: detached link %u ('gpuctl %s unload' removes it)\n",
				       a.link_id, k->object);
			close(a.link_fd);
		}
		return EXIT_OK;
	}
	remove_stale_dirs(k, a.map_id);
	def = a.have_meta && !strcmp(a.meta.source, "built-in") ? find_def(k, a.meta.policy) : NULL;
	if (a.have_meta) {
		t = (time_t)a.meta.loaded_at;
		strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
	}
	why = k->inert ? k->inert() : NULL;
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", a.have_meta ? a.meta.policy : a.map_name);
		jsonw_string_field(json_wtr, "source", a.have_meta ? a.meta.source : "unknown");
		jsonw_string_field(json_wtr, "struct_ops", k->st_type);
		jsonw_uint_field(json_wtr, "loaded_at", a.have_meta ? a.meta.loaded_at : 0);
		jsonw_uint_field(json_wtr, "link_id", a.link_id);
		jsonw_uint_field(json_wtr, "map_id", a.map_id);
		if (why)
			jsonw_string_field(json_wtr, "warning", why);
	} else {
		printf("%s: %s (%s)\n", k->object, a.have_meta ? a.meta.policy : a.map_name,
		       a.have_meta ? a.meta.source : "unknown source");
		printf("  struct %s, link %u, map %u%s%s\n", k->st_type, a.link_id, a.map_id,
		       since[0] ? ", since " : "", since);
		if (why)
			printf("  warning: %s\n", why);
	}
	show_params(k, &a, def);
	show_stats(k, &a, def);
	if (k->show) {
		char dir[PATH_MAX], mapdir[PATH_MAX + 16];

		obj_dir(k, dir, sizeof(dir));
		snprintf(mapdir, sizeof(mapdir), "%s/%u", dir, a.map_id);
		k->show(def ? def->name : "", mapdir);
	}
	if (json_output)
		jsonw_end_object(json_wtr);
	close(a.link_fd);
	return EXIT_OK;
}

int policy_attached_dir(const struct policy_kind *k, char *dir, size_t len,
			char *policy, size_t plen)
{
	const struct policy_def *def;
	char odir[PATH_MAX];
	struct attached a = { .link_fd = -1 };

	if (need_attached(k, &a)) {
		if (a.link_fd >= 0)
			close(a.link_fd);
		return -1;
	}
	def = a.have_meta && !strcmp(a.meta.source, "built-in") ? find_def(k, a.meta.policy) : NULL;
	obj_dir(k, odir, sizeof(odir));
	snprintf(dir, len, "%s/%u", odir, a.map_id);
	snprintf(policy, plen, "%s", def ? def->name : "");
	close(a.link_fd);
	return 0;
}

/* Detaches and unpins the attached policy; name it in *name. */
static int detach_policy(const struct policy_kind *k, struct attached *a, const char **name)
{
	char dir[PATH_MAX], path[PATH_MAX];

	*name = a->have_meta ? a->meta.policy : a->map_id ? a->map_name : "stale pin";
	/* Detach now (the driver's .unreg runs before we return), then unpin. */
	if (a->map_id && bpf_link_detach(a->link_fd) && errno != ENOLINK) {
		p_err("cannot detach %s: %s", *name, strerror(errno));
		return EXIT_FAIL;
	}
	obj_dir(k, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/link", dir);
	if (unlink(path) && errno != ENOENT) {
		p_err("detached %s but cannot remove %s: %s", *name, path, strerror(errno));
		return EXIT_FAIL;
	}
	remove_stale_dirs(k, 0);
	return EXIT_OK;
}

int policy_remove(const struct policy_kind *k)
{
	struct attached a;
	const char *name;
	int lock_fd, ret = EXIT_OK;

	lock_fd = lock_object(k);
	if (lock_fd < 0)
		return EXIT_FAIL;
	if (read_attached(k, &a)) {
		ret = EXIT_FAIL;
	} else if (a.link_fd >= 0) {
		ret = detach_policy(k, &a, &name);
		close(a.link_fd);
	}
	close(lock_fd);
	return ret;
}

static int unload_locked(const struct policy_kind *k);

int policy_unload(const struct policy_kind *k, int argc, char **argv)
{
	int lock_fd, ret;

	(void)argv;
	if (argc)
		return usage_err("'%s unload' takes no arguments", k->object);
	if (check_bpffs())
		return EXIT_FAIL;
	lock_fd = lock_object(k);
	if (lock_fd < 0)
		return EXIT_FAIL;
	ret = unload_locked(k);
	close(lock_fd);
	return ret;
}

static int unload_locked(const struct policy_kind *k)
{
	struct attached a;
	const char *name;
	int ret;

	if (read_attached(k, &a))
		return EXIT_FAIL;
	if (a.link_fd < 0) {
		/* Idempotent: nothing attached is the state asked for. */
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_null_field(json_wtr, "unloaded");
			jsonw_end_object(json_wtr);
		} else {
			printf("%s: no policy loaded\n", k->object);
		}
		remove_stale_dirs(k, 0);
		return EXIT_OK;
	}
	if (check_caps("unloading a policy")) {
		close(a.link_fd);
		return EXIT_FAIL;
	}
	ret = detach_policy(k, &a, &name);
	close(a.link_fd);
	if (ret)
		return ret;
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "unloaded", name);
		jsonw_end_object(json_wtr);
	} else {
		printf("%s: %s unloaded\n", k->object, name);
	}
	return EXIT_OK;
}

int policy_attached_map_id(const struct policy_kind *k, __u32 *map_id)
{
	struct attached a;

	if (read_attached(k, &a))
		return -1;
	*map_id = a.link_fd >= 0 ? a.map_id : 0;
	if (a.link_fd >= 0)
		close(a.link_fd);
	return 0;
}

int policy_open_map(const struct policy_kind *k, const char *name, __u32 *map_id)
{
	struct attached a;
	int fd;

	if (read_attached(k, &a))
		return -EINVAL;
	if (a.link_fd < 0 || !a.map_id) {
		if (a.link_fd >= 0)
			close(a.link_fd);
		return -ENOENT;
	}
	close(a.link_fd);
	fd = open_policy_map(k, &a, name);
	if (fd < 0)
		return -errno;
	*map_id = a.map_id;
	return fd;
}

/* --- the object command ------------------------------------------------- */

/* The object being run; one command at a time runs in a process. */
static const struct policy_kind *cur_kind;
static const struct policy_cmds *cur_own;

static int cmd_help(int argc, char **argv)
{
	return cur_own->help(argc, argv);
}

static int cmd_list(int argc, char **argv)
{
	return policy_list(cur_kind, argc, argv);
}

static int cmd_load(int argc, char **argv)
{
	return cur_own->load ? cur_own->load(argc, argv) : policy_load(cur_kind, argc, argv);
}

static int cmd_set(int argc, char **argv)
{
	return cur_own->set ? cur_own->set(argc, argv) : policy_set(cur_kind, argc, argv);
}

static int cmd_show(int argc, char **argv)
{
	return policy_show(cur_kind, argc, argv);
}

static int cmd_unload(int argc, char **argv)
{
	return policy_unload(cur_kind, argc, argv);
}

const struct cmd policy_cmds[] = {
	{ "help", cmd_help },
	{ "list", cmd_list },
	{ "load", cmd_load },
	{ "set", cmd_set },
	{ "show", cmd_show },
	{ "unload", cmd_unload },
	{ NULL, NULL },
};

int policy_command(const struct policy_kind *k, const struct policy_cmds *own,
		   int argc, char **argv)
{
	cur_kind = k;
	cur_own = own;
	return cmd_select(policy_cmds, argc, argv, k->object);
}
