/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tsgw.h - the TSG watcher (bpf/tsg_watch.bpf.c) and its table, the one
 * room that loads, pins, opens and reads it: gpuctl sched (cmd/sched/),
 * trace tsg and the exporter call down into it.
 *
 *   watcher.c   its life: loaded privately (trace tsg) or pinned under
 *               <bpffs>/gpuctl/sched (sched watch), the lock on that
 *               directory, opening and removing the pins.
 *   table.c     the TSG table (one walk for every reader), the policy
 *               class names and counter names of tsg_watch.h.
 *   share.c     the ledger file sched run lc-be writes (each BE process's
 *               share and stall per GPU), read by sched status and the
 *               exporter: its format, writer and reader.
 */
#ifndef GPUCTL_TSGW_H
#define GPUCTL_TSGW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tsg_watch.h"

/* ------------------------------------------------------------ watcher.c */

#define SCHED_OBJECT	"sched"	/* its pin directory: <bpffs>/gpuctl/sched */

struct tsg_watch;

/* A watcher's maps; a private one also owns its BPF object. */
struct watcher {
	int tsgs, policy, meta, stats, events;	/* map fds, -1 when not open */
	struct tsg_watch *skel;			/* private: NULL for a pinned one */
};
#define WATCHER_INIT { -1, -1, -1, -1, -1, NULL }

/*
 * Loads and attaches a private watcher (nothing pinned) filtering device
 * rdev: 0, or -errno with the reason in reason.  trace tsg uses it.
 */
int watcher_private(struct watcher *w, dev_t rdev, char *reason, size_t len);
void watcher_close(struct watcher *w);
__u64 watcher_meta(const struct watcher *w, __u32 slot);

/*
 * Locks the sched pin directory (pin_dir() checks it; create: make it),
 * its path into dir.  Returns the lock's fd (close it to unlock), -ENOENT
 * (quiet) when it is missing and !create, or -1 after p_err.  Every command
 * that changes the watcher or a policy holds it.  made (may be NULL): the
 * SCHED_MADE_* directories this call created, for sched_unmake.
 */
int sched_lock(bool create, char *dir, size_t len, unsigned int *made);
#define SCHED_MADE_TOP	1u	/* <bpffs>/gpuctl */
#define SCHED_MADE_DIR	2u	/* <bpffs>/gpuctl/sched */
/* A failed start: removes the directories sched_lock made, when still empty. */
void sched_unmake(const char *dir, unsigned int made);
/*
 * Before a command may start a watcher: 0 when one is pinned or dev is a
 * character device; else -1 after p_err.  Creates nothing.
 */
int watcher_dev_check(const char *dev);
/* Every pin of a working watcher is in dir. */
bool watcher_pinned(const char *dir);
/*
 * Opens the pinned maps: 0; -ENOENT when no watcher is pinned; -EPROTO
 * (quiet) when it is another gpuctl version's, whose layouts differ
 * (watcher_version_err says what to do); else -errno after p_err.
 */
int watcher_open(const char *dir, struct watcher *w);
void watcher_version_err(const char *dir);
/*
 * Loads, attaches and pins a watcher for the RM device dev under dir, which
 * the caller holds locked: 0, or -1 after p_err with nothing left pinned.
 */
int watcher_pin(const char *dir, const char *dev);
/* Unlinks the names sched pins in dir (nothing else), then dir: 0 or -errno. */
int watcher_unpin(const char *dir);

/* ------------------------------------------------------------- table.c */

/* One TSG of the table. */
struct tsg {
	struct tsg_key key;
	struct tsg_info info;
};

/* What a walk does with the entry it was shown. */
enum tsg_walk { TSG_KEEP, TSG_DELETE };
typedef enum tsg_walk (*tsg_walk_fn)(const struct tsg_key *key, const struct tsg_info *info,
				     void *arg);
/*
 * The one walk of a TSG table (the pinned one or a private one): fn sees
 * every entry.  Keys are read first, so deleting does not restart the walk.
 * 0, or -ENOMEM.
 */
int tsg_table_walk(int fd, tsg_walk_fn fn, void *arg);
/* The process is gone (its TSGs with it). */
bool tsg_proc_gone(__u32 pid);

/*
 * The watcher's counters (tsg_watch.h's STAT_*) as words: their one list,
 * for sched status and the exporter's event label.
 */
extern const char *const tsgw_stat_names[STAT_NR];

/* tsg_watch.h's POLICY_CLASS_* as words ("-" for none or unknown). */
extern const char *const policy_class_names[POLICY_CLASS_NR];
const char *policy_class_name(__u32 cls);
/* The same for JSON: NULL (null) for no class, not "-". */
const char *policy_class_json(__u32 cls);

/* ---------------------------------------------------------------- gpu.c */

struct gpu_info;
/*
 * The GPU the TSG of i runs on, asked of RM through rm_fd (the process's
 * own RM file, borrowed): NULL when RM cannot tell.  Remembered.
 */
const struct gpu_info *tsgw_gpu(int rm_fd, const struct tsg_info *i);
/* The same, borrowing the process's RM file for the question (the exporter). */
const struct gpu_info *tsgw_gpu_of(const struct tsg_info *i);

/* -------------------------------------------------------------- share.c */

/*
 * The ledger the running policy writes every second (RUN_SHARE), written by sched run (cmd/sched/lcbe/ledger.c,
 * share.c), read by sched status and the exporter: per GPU, each BE process's share and stall.
 */
struct gate_share_row {
	__u32 gpu, pid;
	char comm[TSG_COMM_LEN];
	double on_pct;		/* of its time under the policy, its TSGs on their runlist */
	double share_pct;	/* the GPU share that leaves it while an LC is busy (a floor) */
	double floor_pct;	/* what be-floor promises it (split among the GPU's BE) */
	double longest_off_ms;	/* the longest it was held off the runlist (measured) */
	double rm_wait_ms;	/* on, the most it waits for LC/BE timeslices (by construction) */
	double stall_ms;	/* longest_off_ms + rm_wait_ms */
	double age_s;
	bool kept;		/* share_pct >= floor_pct */
	bool stall_kept;	/* longest_off_ms within be-stall */
};
/* The LC's request latencies over the last second, as libgpuctl-hint.so reports them. */
struct gate_lat {
	__u64 begun;		/* requests begun (the page's begins counter grew by) */
	__u64 count;		/* requests timed (0 with begun > 0: a library that times none) */
	double p50_us, p99_us, max_us;
};
/* a warning line of sched status: the longest share_floor_problem says is ~240 bytes */
#define SHARE_WARN_LEN 320
struct gate_share {
	pid_t pid;		/* the policy process that wrote it */
	__u32 floor_pct, stall_ms, rotate_ms;
	int hint;		/* the policy has a hint gate */
	__u64 lc_ts, be_ts;
	/* the hint gate's switches (sched.h's struct gate_stats says each) */
	__u32 min_off_ms;
	__u64 switches, suppressed, calls, busy_turns, reported;
	struct gate_lat lat;	/* with a hint file */
	/* lc-p99 (target_us 0: none): the last window's P99, kept or not, the knob */
	__u32 target_us, duty_pm, be_threads, be_priority;
	__u32 rung;		/* the TSGs' rung (lcbe.h's TARGET_RUNG_*: RM's, levels, lc-be's) */
	double target_p99_us, unreachable_us;	/* unreachable: P99 at the largest duty, above */
	int target_kept;
	__u64 target_windows, target_kept_windows, target_moves;
	/* a miss on RM's values being confirmed: the windows since it, counting it (0: none) */
	__u64 target_confirm;
	int n;
	struct gate_share_row rows[64];
	int nwarn;
	char warn[8][SHARE_WARN_LEN];	/* floors or bounds that are not kept, said */
};
#define RUN_SHARE	"/run/gpuctl/sched-share"
/* The ledger file as written (warnings left empty): 0, or -ENOENT when none is. */
int share_file_read(struct gate_share *s);
/* Writes it whole (warnings not written); a failure leaves the last one. */
void share_file_write(const struct gate_share *s);

#endif
