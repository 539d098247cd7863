/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgtree.h - cgroup v2 subtrees as the kernel numbers them (cgtree.c): a
 * directory under the cgroup mount as an (id, level) pair, the cgroup of
 * a pod found by its UID in either kubelet layout (as cgroup.c reads
 * them), and the ancestor of a process's cgroup at a level.  The BPF side
 * compares the same pair with bpf_get_current_ancestor_cgroup_id().
 */
#ifndef GPUCTL_CGTREE_H
#define GPUCTL_CGTREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_MOUNT	"/sys/fs/cgroup"
#define CG_UID_HEX	32	/* a pod UID without its dashes */

/* 0 when CG_MOUNT is the host's cgroup v2 root; else -1 with the reason in err. */
int cg_v2_root(char *err, size_t len);

/*
 * PATH of a cgroup: relative to CG_MOUNT, or absolute (under CG_MOUNT, or
 * taken as relative to it).  No "." or ".." part, nothing outside the
 * mount, a cgroup directory: 0 with its id and level (the root is 0), or
 * -1 with the reason in err.
 */
int cg_tree_at(const char *path, uint64_t *id, unsigned int *level, char *err, size_t len);
/* cg_tree_at's checks of the text alone: 0, or -1 with the reason in err. */
int cg_tree_syntax(const char *path, char *err, size_t len);

/*
 * A pod UID as the API writes it (8-4-4-4-12 hex digits), or a static
 * pod's 32 hex digits: its CG_UID_HEX lowercase digits in hex (with the
 * NUL), and 1 (dashed) or 2 (plain); -1 when it is neither.
 */
int cg_uid_norm(const char *s, char hex[CG_UID_HEX + 1]);

/*
 * The pod cgroup of the UID hex (cg_uid_norm's form) under CG_MOUNT, in
 * either kubelet layout (cg_classify): 1 with its path (relative to the
 * mount), id and level; 0 when this node has none now.
 */
int cg_pod_find(const char *hex, char *path, size_t plen, uint64_t *id, unsigned int *level);

/* The id of the cgroup at level above (or of) pid's cgroup v2; 0: none, or gone. */
uint64_t cg_ancestor_id(pid_t pid, unsigned int level);

#endif
