/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - the struct_ops policy engine behind prefetch, evict and replay:
 * list, load (attach or hot swap), set, show, unload, with one bpffs layout:
 *
 *   /sys/fs/bpf/gpuctl/<object>/link          the struct_ops link
 *   /sys/fs/bpf/gpuctl/<object>/<map id>/     maps of the policy behind it
 *                                 meta params stats ...
 *
 * Pinning the link is the commit point of a load: a process killed before
 * it leaves nothing attached (its link fd closes); after it, a complete
 * policy.  Map directories no link points to are leftovers, removed by the
 * next load, show or unload.
 */
#ifndef GPUCTL_POLICY_H
#define GPUCTL_POLICY_H

#include <stddef.h>
#include <linux/types.h>

struct bpf_object;

struct policy_param {
	const char *name;
	__u32 idx;		/* slot in the params map */
	__u64 def, min, max;
	const char *doc;
};

struct policy_def {
	const char *name;	/* also the struct_ops variable's name */
	const char *doc;	/* one line for `list` */
	const void *(*elf_bytes)(size_t *sz);
	const struct policy_param *params;	/* ends with a NULL name */
	const char *const *stats;	/* names of its counter slots, from 4 */
};

struct policy_kind {
	const char *object;	/* "prefetch" */
	const char *st_type;	/* "uvm_gpu_ext" */
	const char *const *stats;	/* names of the common counter slots */
	const struct policy_def *defs;	/* ends with a NULL name */
	/* optional: says why a loaded policy has no effect, or NULL */
	const char *(*inert)(void);
	/*
	 * optional: fills maps the numeric params cannot hold, once the kernel
	 * accepted the policy and before it is attached (policy: the built-in's
	 * name, NULL for a file); p_err and nonzero abort the load unchanged.
	 */
	int (*setup)(const char *policy, struct bpf_object *obj);
	/* optional: more of `show` (text lines, or JSON members) from mapdir */
	void (*show)(const char *policy, const char *mapdir);
};

/*
 * The object's own commands: help always; load and set when the object
 * parses more than KEY VALUE parameters (NULL: the generic ones).
 */
struct policy_cmds {
	int (*help)(int argc, char **argv);
	int (*load)(int argc, char **argv);
	int (*set)(int argc, char **argv);
};

/* `gpuctl OBJECT { help | list | load | set | show | unload }` */
/* The commands every policy object has (help list load set show unload). */
extern const struct cmd policy_cmds[];
int policy_command(const struct policy_kind *k, const struct policy_cmds *own,
		   int argc, char **argv);

int policy_list(const struct policy_kind *k, int argc, char **argv);
int policy_load(const struct policy_kind *k, int argc, char **argv);
int policy_set(const struct policy_kind *k, int argc, char **argv);
int policy_show(const struct policy_kind *k, int argc, char **argv);
int policy_unload(const struct policy_kind *k, int argc, char **argv);

/*
 * The pinned map directory of the attached policy (.../<object>/<map id>)
 * and its name ("" when loaded from a file); p_err and -1 when none is.
 */
int policy_attached_dir(const struct policy_kind *k, char *dir, size_t len,
			char *policy, size_t plen);

/* Detaches and unpins the attached policy, silently (for loops that own it). */
int policy_remove(const struct policy_kind *k);
/* The struct_ops map id of the attached policy, 0 when none. */
int policy_attached_map_id(const struct policy_kind *k, __u32 *map_id);
/* An fd on the attached policy's pinned map NAME, or -errno. */
int policy_open_map(const struct policy_kind *k, const char *name, __u32 *map_id);

/* Checks a user's object with libelf; p_err and -1 when it cannot be ours. */
int elf_check_policy(const char *path, const char *st_type);

#endif
