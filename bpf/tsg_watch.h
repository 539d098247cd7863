/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsg_watch.h - the ABI of the TSG watcher (tsg_watch.bpf.c): its pinned TSG
 * table, the scheduling policy rules, the ring buffer events and the slots
 * of its meta and stats arrays.  Included by the BPF program and by gpuctl
 * (cmd/sched/, cmd/trace_rm.c) as "tsg_watch.h": plain fixed-width types,
 * sizes asserted, every slot and code named by an enum.
 *
 * The map key and value layouts are an ABI between a pinned watcher and any
 * later gpuctl: gpuctl refuses a pinned table whose value size differs from
 * sizeof(struct tsg_info) (cmd/tsgw/watcher.c).
 */
#ifndef TSG_WATCH_H
#define TSG_WATCH_H

#include <linux/types.h>

enum {
	TSG_COMM_LEN = 16,
	TSG_MAX = 4096,		/* entries of the TSG table */
	POLICY_RULES = 16,	/* rules of the one policy */
	TSG_WATCH_RINGBUF = 256 * 1024,
};

/* The TSG table's key: handles are per client, clients per process. */
struct tsg_key {
	__u32 pid;		/* tgid of the process that allocated it */
	__u32 hClient;
	__u32 hTsg;
};

/* What gpuctl sched run changed on a TSG: bits of tsg_info.orig_flags. */
enum {
	ORIG_TIMESLICE = 1 << 0,	/* orig_timeslice holds the value to put back */
	ORIG_INTERLEAVE = 1 << 1,	/* orig_interleave holds the level to put back */
	ORIG_LEVEL_KNOWN = 1 << 2,	/* RM reported it (else the assumed default) */
	ORIG_SCHEDULE = 1 << 3,		/* the hint gate may take it off its runlist: put back on */
	ORIG_CHANNELS = 1 << 4,		/* the gate may disable its channels: enable them */
};

struct tsg_info {
	__u32 id;		/* gpuctl's TSG ID: a sequence number */
	__u32 pid;
	__u32 tid;
	__u32 uid;
	__s32 fd;		/* the RM file the client was allocated through */
	__u32 hClient;
	__u32 hTsg;
	__u32 hParent;		/* the device/subdevice it was allocated under */
	__u64 cgroup;
	__u64 created_ns;	/* CLOCK_BOOTTIME */
	char comm[TSG_COMM_LEN];
	__u32 alloc_form;	/* 21, 64, or 21+100 / 64+100 through XFER */
	__u32 app_controls;	/* scheduling controls the process issued itself */
	__u64 app_timeslice;	/* last timeslice it set itself (0: never) */
	__u32 app_interleave;	/* last level it set itself, +1 (0: never) */
	/* The policy's decision at creation (0: none). */
	__u32 want_class;	/* POLICY_CLASS_* */
	__u64 want_timeslice;
	__u32 want_interleave;	/* level + 1 */
	__u32 set_interleave;	/* last level gpuctl set, + 1 (0: never) */
	/*
	 * The values before gpuctl sched run first changed this TSG, written
	 * before that change (the watcher zeroes them): a run killed with
	 * SIGKILL leaves them here for the next run, stop or unload to restore.
	 */
	__u64 orig_timeslice;
	__u32 orig_interleave;	/* level, not + 1 */
	__u32 orig_flags;	/* ORIG_* */
	__u32 orig_by;		/* pid of the run that changed it; 0: nothing to restore */
	__u32 orig_mech;	/* the mechanism that changed it: its place in cmd/sched/mech.c's table */
};

enum {
	POLICY_MATCH_NONE = 0,
	POLICY_MATCH_COMM = 1,
	POLICY_MATCH_PID = 2,
	POLICY_MATCH_UID = 3,
	POLICY_MATCH_CGROUP = 4,
	POLICY_MATCH_ANY = 5,
	POLICY_MATCH_TREE = 6,	/* id: a cgroup's id, cg_level its level: it or below */
	POLICY_MATCH_POD = 7,	/* the same for a pod's cgroup; id 0: not on this node yet */
	POLICY_MATCH_NR,
};

enum {
	POLICY_CLASS_NONE = 0,
	POLICY_CLASS_LC = 1,	/* latency-critical */
	POLICY_CLASS_BE = 2,	/* best-effort */
	POLICY_CLASS_FIXED = 3,
	POLICY_CLASS_NR,
};

struct policy_rule {
	__u32 match;		/* POLICY_MATCH_* */
	__u32 cls;		/* POLICY_CLASS_* it assigns */
	__u64 id;		/* pid, uid or cgroup id */
	char comm[TSG_COMM_LEN];	/* MATCH_POD: the pod's UID, 16 bytes */
	__u64 timeslice;	/* 0: leave as is */
	__u32 interleave;	/* level + 1, 0: leave as is */
	__u32 cg_level;		/* MATCH_TREE, MATCH_POD: id's level (root 0); | CG_LEVEL_* */
};

/* Flags in cg_level above the level (MATCH_POD): how the UID was written. */
enum {
	CG_LEVEL_MASK = 0xffff,
	CG_LEVEL_UID_PLAIN = 1u << 31,	/* 32 hex digits (a static pod's), not 8-4-4-4-12 */
};

/* The one entry of the policy map: rules are tried in order, first match wins. */
struct policy {
	__u32 active;
	__u32 nrules;
	struct policy_rule rules[POLICY_RULES];
};

enum {
	TSG_EV_NEW = 1,		/* a TSG was allocated */
	TSG_EV_APP_SET = 2,	/* its process set a scheduling value itself */
	TSG_EV_FREE = 3,	/* it was freed */
	TSG_EV_CLIENT_FREE = 4,	/* its client was freed (all its TSGs) */
};

struct tsg_event {
	__u32 type;		/* TSG_EV_* */
	__u32 cmd;		/* TSG_EV_APP_SET: the control */
	__u64 value;		/* TSG_EV_APP_SET: timeslice or level */
	struct tsg_info info;
};

/* Slots of the meta array. */
enum {
	META_NEXT_ID = 0,	/* last TSG ID handed out */
	META_STARTED = 1,	/* CLOCK_BOOTTIME ns when the watcher attached */
	META_RDEV = 2,		/* the device it filters on (major << 20 | minor) */
	META_ANY_MINOR = 3,	/* 1: any minor of that major */
	META_NR,
};

/* Counters in the stats array. */
enum {
	STAT_IOCTLS = 0,	/* RM escapes seen on the device */
	STAT_TSG_NEW = 1,	/* TSGs recorded */
	STAT_TSG_FREE = 2,	/* TSGs freed */
	STAT_APP_SET = 3,	/* scheduling controls processes issued themselves */
	STAT_TABLE_FULL = 4,	/* TSGs not recorded: table full */
	STAT_RB_FULL = 5,	/* events lost: ring buffer full */
	STAT_DECIDED = 6,	/* decisions the policy took */
	STAT_NR,
};

/* The sizes both sides must agree on (pinned maps outlive a gpuctl binary). */
_Static_assert(sizeof(struct tsg_key) == 12, "tsg_key is the table's 12-byte key");
_Static_assert(sizeof(struct tsg_info) == 128, "tsg_info is the table's 128-byte value");
_Static_assert(sizeof(struct policy_rule) == 48, "policy_rule is 48 bytes");
_Static_assert(sizeof(struct policy) == 8 + POLICY_RULES * 48, "policy is 776 bytes");
_Static_assert(sizeof(struct tsg_event) == 16 + sizeof(struct tsg_info),
	       "tsg_event is a 16-byte header and a tsg_info");

#endif
