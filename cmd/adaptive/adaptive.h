/* SPDX-License-Identifier: GPL-2.0 */
/*
 * adaptive.h - prefetch adaptive's user-space half (adaptive.c): the loop
 * that maps host-to-device throughput (throughput.h) to the threshold of
 * the attached policy, in the foreground or detached as a daemon.  Sits
 * beside the policy layer (cmd/policy/) and calls down into it.
 */
#ifndef GPUCTL_ADAPTIVE_H
#define GPUCTL_ADAPTIVE_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

struct bpf_object;

/* One `load adaptive`, passed down to the load's setup step. */
struct adaptive {
	bool detach;
	const char *pid_file;
	int pid_fd;	/* the claimed pid file, -1 */
	int go_fd;	/* the daemon waits for the map id on this pipe, -1 */
	pid_t daemon;
};

#define ADAPTIVE_PID_FILE "/run/gpuctl-prefetch-adaptive.pid"

/*
 * The load's last step before anything changes (policy_load_opts.setup,
 * ctx: struct adaptive): throughput must be readable; with detach the pid
 * file is claimed and the daemon forked.
 */
int adaptive_setup(void *ctx, const char *policy, struct bpf_object *obj);
/* After the load: the daemon goes on (committed) or ends; the pid file with it. */
int adaptive_finish(struct adaptive *ad, int ret, __u32 map_id);
/*
 * Maps throughput to the threshold of the policy of map_id until stopped
 * (then unloads it) or until another policy replaces it (then just ends).
 */
int adaptive_loop(__u32 map_id);

#endif
