/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - the struct_ops policy engine under prefetch, evict and replay
 * (cmd/policy/): list, load (attach or hot swap), set, show, unload.  The
 * object files describe their policies (struct policy_kind) and call down;
 * nothing here calls up except through what they pass.
 *
 * The pin tree, under <bpffs>/gpuctl/<object> (bpffs: $GPUCTL_BPFFS, else
 * /sys/fs/bpf; each directory checked by pin_dir(): a real directory of
 * root's, writable by nobody else):
 *
 *   link             the struct_ops link
 *   <map id>/        the maps of the policy behind it, by the struct_ops
 *                    map's id: meta params stats ... and link_<prog>, the
 *                    links of its helper (tracing) programs
 *
 * Pinning the link (or swapping the map behind it) is the commit point of
 * a load: a process killed before it leaves nothing attached (its link fd
 * closes) and the previous policy in place; after it, a complete policy.
 * Map directories no link points to are leftovers of an interrupted
 * command: `show` reports them (it changes nothing), the next load or
 * unload removes them.  Under the object's directory gpuctl removes only
 * what it pins: "link", and in directories named by a number the pins
 * (regular files of bpffs) it finds there, then the directory; never
 * recursively, never through a symbolic link.
 *
 * Commands that change an object's pins hold an flock on its directory.
 */
#ifndef GPUCTL_POLICY_POLICY_H
#define GPUCTL_POLICY_POLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "param.h"
#include "policy_abi.h"

struct bpf_object;
struct btf;
struct btf_type;

/* A def's numeric parameters (param.h): params[i] is slot i of the params map. */
struct policy_def {
	const char *name;	/* also the struct_ops variable's name */
	const char *doc;	/* one line for `list` */
	const void *(*elf_bytes)(size_t *sz);
	const struct param *params;	/* params[i] is slot i */
	unsigned int nparams;
	const char *const *stats;	/* names by slot, from STAT_POLICY on; NULL: none */
};

/* A def's params table: POLICY_PARAMS(stride_params) fills params and nparams. */
#define POLICY_PARAMS(t) (t), (unsigned int)(sizeof(t) / sizeof((t)[0]))

struct policy_kind {
	const char *object;	/* "prefetch" */
	const char *st_type;	/* "uvm_gpu_ext" */
	const char *used_for;	/* "prefetch policies (gpuctl prefetch)", for probe */
	const char *const *stats;	/* names of the family's STAT_POLICY slots */
	const struct policy_def *defs;
	unsigned int ndefs;
	/* optional: says why a loaded policy has no effect, or NULL */
	const char *(*inert)(void);
	/* optional: more of `show` (text lines, or JSON members) from mapdir */
	void (*show)(const char *policy, const char *mapdir);
};

#define POLICY_DEFS(t) (t), (unsigned int)(sizeof(t) / sizeof((t)[0]))

/* --- load ------------------------------------------------------------- */

/* What to load, LIBBPF_OPTS style: LIBBPF_OPTS(policy_load_opts, o, ...). */
struct policy_load_opts {
	size_t sz;
	const char *policy;	/* a built-in, by name ... */
	const char *path;	/* ... or a user's object file */
	int nargs;		/* KEY VALUE pairs for the built-in's params */
	char *const *args;
	/*
	 * optional: the last step before anything changes, once every check
	 * passed and the kernel accepted the object (policy: the built-in's
	 * name, NULL for a file): fills maps the numeric params cannot hold,
	 * claims what the caller needs.  p_err and nonzero refuse the load.
	 */
	int (*setup)(void *ctx, const char *policy, struct bpf_object *obj);
	void *ctx;
	__u32 map_id;		/* out: the struct_ops map id now attached */
};

/*
 * "POLICY [KEY VALUE]..." or "file PATH" into opts (policy or path, args):
 * 0, or a usage error's exit code.
 */
int policy_load_args(const struct policy_kind *k, int argc, char **argv,
		     struct policy_load_opts *opts);
/*
 * Checks everything (arguments, capabilities, bpffs, the driver's type,
 * the object, the pin tree), then loads, pins and attaches, or swaps the
 * running policy in one step.  Refused or failed: the state before.
 * Returns the exit code.
 */
int policy_load(const struct policy_kind *k, struct policy_load_opts *opts);

/* --- the other commands (exit codes) -------------------------------------- */

int policy_list(const struct policy_kind *k, int argc, char **argv);
int policy_show(const struct policy_kind *k, int argc, char **argv);
int policy_set(const struct policy_kind *k, int argc, char **argv);
int policy_unload(const struct policy_kind *k, int argc, char **argv);
/* load POLICY [KEY VALUE]... | file PATH, nothing else: policy_load_args, then policy_load. */
int policy_load_plain(const struct policy_kind *k, int argc, char **argv);

/*
 * A command of struct cmd's shape that runs fn (policy_list, policy_show,
 * policy_set, policy_unload, policy_load_plain) on kind k: the families'
 * command files share these instead of each writing its wrappers.
 */
#define POLICY_CMD(name, fn, k) \
	static int name(int argc, char **argv) { return fn(&(k), argc, argv); }

/* "{ a | b | c }": the built-ins' names, for help text. */
void policy_print_names(const struct policy_kind *k, FILE *f);

/*
 * The attached policy, held under the object's lock, for commands that
 * change it in place (set).  policy_cur_get: capabilities (what names the
 * command), bpffs, the pin tree, the lock; p_err and -1 when any fails or
 * no policy is loaded.
 */
struct policy_cur {
	int lock_fd;
	const struct policy_def *def;	/* NULL: loaded from a file */
	char name[64];
	char mapdir[PATH_MAX];
	__u32 map_id;
};
int policy_cur_get(const struct policy_kind *k, const char *what, struct policy_cur *cur);
void policy_cur_put(struct policy_cur *cur);
/* An fd on the pinned map name of cur's policy, or -errno. */
int policy_cur_map(const struct policy_cur *cur, const char *name);
/*
 * Parses KEY VALUE pairs of cur's built-in, all before writing any; writes
 * them; under -j prints {"policy", KEY: VALUE...}.  Exit code.
 */
int policy_set_params(const struct policy_kind *k, const struct policy_cur *cur,
		      int argc, char **argv);

/* --- for a loop that owns the policy it loaded (prefetch adaptive) ------ */

/* The struct_ops map id attached now (0: none); -1 when it cannot be read. */
int policy_attached_map_id(const struct policy_kind *k, __u32 *map_id);
/* An fd on the pinned map name of the policy of struct_ops map map_id, or -errno. */
int policy_map_of(const struct policy_kind *k, __u32 map_id, const char *name);
/* Detaches and unpins the policy of map_id if it is still the one attached. */
int policy_remove(const struct policy_kind *k, __u32 map_id);

/* --- every kind at once (kinds.c, the table in kinds.h), for the exporter --- */

struct policy_snap {
	const char *object;	/* "prefetch" */
	bool loaded;
	char name[64];		/* the policy's name, or the map's */
	char source[224];	/* "built-in" or the object's path ("" unknown) */
	__u64 loaded_at;	/* unix time, 0 unknown */
	__u32 map_id;
	int nstats;
	struct {
		const char *name;
		__u64 value;
	} stats[STAT_MAX];
};
/*
 * What is attached for k, without the pin lock and without changing
 * anything: 0 (s->loaded false when nothing is), or -errno when its pin
 * tree cannot be read (read_attached has said why).
 */
int policy_snapshot(const struct policy_kind *k, struct policy_snap *s);

/* ===================== inside the engine (cmd/policy/) ===================== */

/* Pinned next to every policy's maps: who loaded what, when. */
struct policy_meta {
	__u64 loaded_at;	/* unix time */
	char policy[32];
	char source[224];	/* "built-in" or the object's path */
};

#define LEFTOVERS_MAX 16

/* What is attached now, read back through the pinned link (pins.c). */
struct attached {
	int link_fd;		/* -1: nothing pinned */
	int map_fd;		/* the struct_ops map behind it, -1 if none */
	__u32 link_id;
	__u32 map_id;		/* 0: the link was detached (stale pin) */
	char map_name[16];
	struct policy_meta meta;
	bool have_meta;
};

/* pins.c: the object's directory; create only after the capability check. */
int obj_pin_dir(const struct policy_kind *k, bool create, char *dir, size_t len);
int read_attached(const struct policy_kind *k, const char *dir, struct attached *a);
void attached_close(struct attached *a);
const char *attached_name(const struct attached *a);
const struct policy_def *attached_def(const struct policy_kind *k, const struct attached *a);
/* Map directories other than keep's: their ids (up to max), and how many. */
int leftovers(const char *dir, __u32 keep, __u32 *ids, int max, int *helpers);
/* Removes them (only what gpuctl pins); how many could not be removed. */
int remove_leftovers(const char *dir, __u32 keep);
/* Removes map directory id (only what gpuctl pins); 0 also when it is not there. */
int remove_map_dir(const char *dir, __u32 id);
/* The struct_ops type behind a struct_ops map, from kernel BTF. */
int st_type_of_map(int map_fd, char *buf, size_t len);
const struct policy_def *find_def(const struct policy_kind *k, const char *name);
/*
 * Test hook: GPUCTL_TEST_STOP=STEP makes the process stop itself (SIGSTOP)
 * at STEP, so that a test can kill it exactly there (tests/vm/t_policy_kill.sh).
 */
void policy_step(const char *step);

/* params.c: KEY VALUE pairs of def into vals (param_parse_one); usage errors name the problem. */
int parse_params(const struct policy_kind *k, const struct policy_def *d,
		 int argc, char *const *argv, __u64 *vals, bool *given);
/* params.c: the index of parameter name in d (NULL: a file's policy), or -1. */
int policy_param_index(const struct policy_def *d, const char *name);

/* stvalue.c: the value a struct_ops map is updated with before a swap. */
int st_map_prepare(struct bpf_object *obj, const char *map_name, int map_fd);

/*
 * elfcheck.c: a user's object, its bytes read once (trustfile.h), with
 * libelf and our own BTF walk; path names it in messages.  p_err and -1.
 */
int elf_check_policy(const char *path, const void *bytes, size_t size, const char *st_type);
/*
 * Follows typedef/const/volatile/restrict/type_tag links from type id: the
 * type reached (its id into *res), the links followed into *depth; NULL
 * when an id does not exist or the chain does not end (a loop).
 */
const struct btf_type *btf_resolve(const struct btf *btf, __u32 id, __u32 *res, int *depth);


#endif
