/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpsfile.h - the two files a `sched run ... mechanism mps` keeps in
 * /run/gpuctl (mpsfile.c), beside lc-be's ledger (tsgw.h's RUN_SHARE):
 *
 *   RUN_MPS       the run's mechanism and its MPS daemon: what `sched exec`,
 *                 `sched status`, probe and the next run read;
 *   RUN_MPS_SNAP  once a second, the daemon's servers and clients: what
 *                 the exporter reads (a scrape runs no NVIDIA program).
 *
 * Written by the run (cmd/sched/mps/), read by whoever shows them; only
 * root's plain files are believed.
 */
#ifndef GPUCTL_TSGW_MPSFILE_H
#define GPUCTL_TSGW_MPSFILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#define RUN_MPS		"/run/gpuctl/sched-mps"
#define RUN_MPS_SNAP	"/run/gpuctl/sched-mps-clients"
/* gpuctl's own daemon: its pipe directory and its logs beside it. */
#define MPS_GPUCTL_DIR	"/run/gpuctl/mps/pipe"

/* What a run wrote (RUN_MPS): one line "KEY VALUE" each. */
struct mps_state {
	char mech[8];		/* "mps" or "tsg": what the run uses */
	char why[200];		/* why (auto's reason, or "asked for") */
	char dir[PATH_MAX];	/* the daemon's pipe directory ("" under tsg) */
	pid_t daemon;		/* its pid when the run began */
	bool started;		/* gpuctl started it (and quits it) */
	pid_t run;		/* the policy process */
	__u32 be_threads, lc_threads;
	__u32 be_priority;	/* BE clients' CUDA_MPS_CLIENT_PRIORITY: 1 (below the LC) unless lc-p99 moves it */
	__u64 be_mem;
	bool file_ours;		/* not in the file: this process wrote RUN_MPS for its run */
};

int mps_state_write(const struct mps_state *st);
/* 0, -ENOENT when none, -EINVAL when unreadable. */
int mps_state_read(struct mps_state *st);
void mps_state_remove(void);

/*
 * RUN_MPS_SNAP, one line each: "daemon PID PIPE_DIR", "server PID UID
 * CLIENTS", "client PID SERVER PRIORITY THREADS CLASS COMM" (THREADS -1
 * when the client set none; CLASS "-" when sched exec did not start it;
 * COMM the rest of the line).
 */
#define MPS_SNAP_MAX	64
struct mps_snap_client {
	pid_t pid, server;
	int priority, threads;
	char cls[16], comm[64];
};
struct mps_snap {
	pid_t daemon;
	char dir[PATH_MAX];
	int nservers, nclients;
	struct { pid_t pid; uid_t uid; int clients; } servers[MPS_SNAP_MAX];
	struct mps_snap_client clients[MPS_SNAP_MAX];
};
/* Writes s whole (safefile): 0, or -1 (the last one stays). */
int mps_snap_file_write(const struct mps_snap *s);
/* 0, -ENOENT none, -EINVAL not root's plain file. */
int mps_snap_read(struct mps_snap *s);
void mps_snap_remove(void);

#endif
