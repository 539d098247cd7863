/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gate_state.h - the gate's state (struct gate) and the rooms that work on
 * it, below gate.c (decisions, the thread, BE TSGs on and off through the
 * run's mechanism), which calls them and none of which calls it:
 * hint_file.c (the hint page and its safety), latency.c (the LC's
 * latencies), target.c (lc-p99), ledger.c (each BE process's share and
 * stall, for share.c).
 */
#ifndef GPUCTL_GATE_STATE_H
#define GPUCTL_GATE_STATE_H

#include <pthread.h>
#include <time.h>

#include "lcbe.h"

#define GATE_IDLE_WAIT_NS	100000000L	/* re-check without a wake: 100 ms */
#define GATE_LAT_SAMPLES	4096		/* call times kept for the summary */
#define GATE_PAGE_SIZE		GPUCTL_HINT_FILE_SIZE
#define GATE_GUARD_NS		5000000ULL	/* a stall's end is planned this early (calls take ~1 ms) */
#define GATE_SHARE_NS		1000000000ULL	/* the share file is written every second */
#define GATE_BUSY_MAX		65536		/* more LC requests in flight: garbage */

#define GATE_TSG_CHANNELS	32

struct gate_tsg {
	struct tsg t;
	int fd;			/* the owner's RM file, borrowed for the gate alone */
	bool lc;		/* an LC TSG: never touched, says its GPU has an LC */
	bool off;		/* what RM was last told */
	bool want;		/* what it should be now */
	bool dead;		/* RM no longer knows it: skipped, dropped by prune */
	__u32 gpu;		/* the GPU it runs on (tsg_gpu) */
	/* be-off channels: its client's subdevice and its channels (0: not yet seen) */
	__u32 subdev;
	int nch, looks;		/* looks: times its channels were looked for */
	__u32 ch[GATE_TSG_CHANNELS];
};

/* A BE process on one GPU: what the floor is kept for (its TSGs go on and off together). */
struct gate_proc {
	__u32 gpu, pid;
	char comm[TSG_COMM_LEN];
	bool on, gone;
	__u64 joined_ns, last_ns, on_ns;
	__u64 off_since;	/* when it last went off (valid while !on) */
	__u64 longest_off_ns;
};

/* Each GPU decides alone: an LC on one never holds BE off another. */
struct gate_gpu {
	__u32 gpu;
	int nlc, nbe;		/* LC processes, BE processes on it now */
	__u32 rot_pid;		/* be-rotate: the BE process whose turn it is */
	__u64 rot_next_ns;	/* when the next one's turn comes */
	__s64 credit_ns;	/* how much longer the hint may keep BE off */
	bool hint_off;		/* BE off for the hint now */
	bool recovering;	/* the hint was cut short: BE on until the credit is full */
	bool was_busy;		/* the hint at the last look */
	__u64 off_ns;		/* when the hint last took BE off */
	__u64 last_ns;
};
#define GATE_GPUS	GPUCTL_MAX_GPUS

struct gate {
	struct gate_opts o;
	bool engaged;		/* hint or be-rotate: the gate may take BE off */
	struct gpuctl_hint_page *page;
	int hint_fd;		/* kept open: a truncated file is put right */
	pthread_t thr;
	bool thr_running;
	pthread_mutex_t mu;	/* v, n, procs, gpus, stats */
	struct gate_tsg *v;
	int n, cap;
	struct gate_proc *procs;
	int nprocs, procs_cap;
	struct gate_gpu gpus[GATE_GPUS];
	int ngpus;
	bool gpus_cut;		/* a GPU past GATE_GPUS was met (and said) */
	int stop;		/* atomic */
	__u32 wake;		/* futex word to wait on without a hint page */
	__u64 share_next_ns;
	bool busy;		/* what the gate saw at its last look */
	struct gate_stats st;
	double lat[GATE_LAT_SAMPLES];	/* µs of each "all BE off" */
	unsigned int nlat;
	/* lc-p99 (target.c): the hint's duty, per mille (GATE_HINT_DUTY without a target) */
	__u32 duty_pm;		/* atomic */
	struct gate_target tgt;
	int be_others;		/* target_be_others: BE processes outside the ledger (-1: not known) */
	/* the LC's latencies (latency.c): the histogram at the last look */
	__u64 lat_prev[GPUCTL_HINT_LAT_BUCKETS];
	__u64 lat_begins;
	/* the last GATE_LAT_SPAN windows' histograms, for the target (latency.c) */
	__u64 lat_span[GATE_LAT_SPAN][GPUCTL_HINT_LAT_BUCKETS];
	unsigned int lat_span_next;
};

/* The latency histogram of g's hint page (gpuctl_hint.h). */
static inline struct gpuctl_hint_lat *hint_lat(struct gate *g)
{
	return (struct gpuctl_hint_lat *)((char *)g->page + GPUCTL_HINT_LAT_OFFSET);
}

/* latency.c: the LC's requests timed since the last call (share's lat_*). */
void gate_lat_window(struct gate *g, struct gate_lat *w);
/* latency.c: those of the last GATE_LAT_SPAN calls of gate_lat_window together. */
void gate_lat_span(struct gate *g, struct gate_lat *w);
/*
 * target.c: the duty at its start; one window's step, judged on the span w
 * (gate_lat_span), none for a quiet last window.  Caller holds mu.
 */
void target_init(struct gate *g);
void target_step(struct gate *g, const struct gate_lat *last, const struct gate_lat *w);

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* hint_file.c */
/* Creates and maps the hint page (a SIGBUS on it is caught): 0, or -1 after p_err. */
int hint_page(struct gate *g);
/* The busy count to believe, after making the page whole; garbage reads 0. */
__u32 hint_read(struct gate *g);
/* The futex word the gate waits on, and its wake. */
__u32 *wait_word(struct gate *g);
void hint_wake(struct gate *g);
/* Lets go of the page (its mapping, its file; unlink: remove it). */
void hint_release(struct gate *g, bool unlink_it);

/* ledger.c: the share file from g's ledger (caller holds mu). */
void gate_share(struct gate *g, __u64 now);

#endif
