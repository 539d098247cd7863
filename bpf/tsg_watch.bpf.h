/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsg_watch.bpf.h - what the TSG watcher (tsg_watch.bpf.c) and gpuctl sched share:
 * the pinned TSG table, the scheduling policy rules, and ring buffer events.
 */
#ifndef TSG_WATCH_H
#define TSG_WATCH_H

#include <linux/types.h>

#define TSG_COMM_LEN	16
#define TSG_MAX		4096
#define POLICY_RULES	16

/* The TSG table's key: handles are per client, clients per process. */
struct tsg_key {
	__u32 pid;		/* tgid of the process that allocated it */
	__u32 hClient;
	__u32 hTsg;
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
};

enum {
	POLICY_MATCH_NONE = 0,
	POLICY_MATCH_COMM = 1,
	POLICY_MATCH_PID = 2,
	POLICY_MATCH_UID = 3,
	POLICY_MATCH_CGROUP = 4,
	POLICY_MATCH_ANY = 5,
};

enum {
	POLICY_CLASS_NONE = 0,
	POLICY_CLASS_LC = 1,	/* latency-critical */
	POLICY_CLASS_BE = 2,	/* best-effort */
	POLICY_CLASS_FIXED = 3,
};

struct policy_rule {
	__u32 match;		/* POLICY_MATCH_* */
	__u32 cls;		/* POLICY_CLASS_* it assigns */
	__u64 id;		/* pid, uid or cgroup id */
	char comm[TSG_COMM_LEN];
	__u64 timeslice;	/* 0: leave as is */
	__u32 interleave;	/* level + 1, 0: leave as is */
	__u32 _pad;
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
	__u32 type;
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
	META_NR = 4,
};

/* Counters in the stats array. */
enum {
	STAT_IOCTLS = 0,	/* RM escapes seen on the device */
	STAT_TSG_NEW = 1,
	STAT_TSG_FREE = 2,
	STAT_APP_SET = 3,
	STAT_TABLE_FULL = 4,
	STAT_RB_FULL = 5,
	STAT_DECIDED = 6,
	STAT_NR = 8,
};

#endif
