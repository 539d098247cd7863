/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine_priv.h - one engine's state, shared by its parts: loop.c (set-up,
 * the loop, foreground and detached), feed.c (what the policy is given and
 * what the driver is asked to record), act.c (carrying out requests),
 * lane.c (the threads that make the calls) and stats.c (counters, the
 * stats file, the report).
 */
#ifndef GPUCTL_PFENGINE_ENGINE_PRIV_H
#define GPUCTL_PFENGINE_ENGINE_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuctl.h"
#include "engine.h"
#include "allocs.h"
#include "allocw.h"
#include "ut.h"
#include "uvm.h"

#define QUEUE_ENTRIES (1u << 16)
/*
 * The engine looks at its queue every WAIT_MS, and the driver wakes it
 * early only when half the queue waits: each wake is paid by the faulting
 * process (on an H100, a PyTorch step with ~1 M faults: +17 % with a wake
 * per 256 events, +7 % at half the queue, as much as a full trace record;
 * bench/prefetch_engine/watch_cost.sh).  A lone fault waits WAIT_MS at most.
 * The watcher's events (a mapping made) wake it at once.
 */
#define QUEUE_WAKE (QUEUE_ENTRIES / 2)
#define WAIT_MS 2
/*
 * The driver's counters the engine enables: the two it reports (not stat's
 * four), and none for a policy that neither moves nor wants a fault (none):
 * any counter enabled turns the process's tools path on in the driver, a
 * callback on every GPU fault (the fault counter) and on every migration's
 * completion (the byte counters), paid by the watched process.
 */
#define ENGINE_CTR_MASK ((1u << UT_CTR_GPU_FAULTS) | (1u << UT_CTR_BYTES_HTOD))

struct engine {
	const struct pfe_opts *o;
	struct pfe_run run;
	struct ut_session s;
	struct workload w;
	struct allocw aw;		/* the process's mappings as made (or not on: maps on demand) */
	struct allocs al;
	/* the process's GPUs by UVM's index (a zero UUID: none there) */
	struct uvm_uuid gpu[PFE_MAX_GPUS];
	int ngpus, only;		/* only: --gpu's index, or -1 */
	bool use_nvml, capped_said, refused_said, bad_said;
	bool ctr_on;			/* ENGINE_CTR_MASK enabled (not for none) */
	int flush_depth;		/* feed.c's flush: 2 when run again between requests */
	bool poll_in_flush;		/* ... which reads new mappings only in the turn's own flush */
	uint64_t free_bytes[PFE_MAX_GPUS], since_free[PFE_MAX_GPUS], gpu_bytes[PFE_MAX_GPUS];
	uint64_t inflight[PFE_MAX_GPUS];	/* bytes given to the lanes, not reaped yet */
	struct lanes *lanes;		/* lane.c: the threads that move */
	double free_at[PFE_MAX_GPUS], started, stats_at;
	/* the report's times (stats.c): the set-up, begun to started (before `seconds`);
	 * the drain, the exit seen (gone_at) to the lanes stopped (drained_at), its end */
	double begun, gone_at, drained_at;
	uint64_t last_ts, last_page;	/* duplicate faults of a batch */
	uint32_t last_batch;
	/* the interest switch (feed.c) */
	uint32_t wants;			/* the policy's PFE_W_* */
	bool faults_on;			/* the driver records GPU faults for us now */
	bool cpu_on;			/* ... and CPU faults (PFE_W_PULLS) */
	double sample_until;		/* a sample of faults runs until then */
	uint64_t drv_faults_at;		/* the driver's fault counter when last looked */
	uint64_t last_ev_ts;		/* the last event handed on (a gap starts there) */
	int64_t skew;			/* CLOCK_MONOTONIC_RAW less the watcher's CLOCK_MONOTONIC */
	char dir[PATH_MAX], pid_path[PATH_MAX], stats_path[PATH_MAX], pins[PATH_MAX];
	int pid_fd;
};

/* --- feed.c ---------------------------------------------------------------- */
/* The watcher on the process, before it runs on (-- CMD) or before its maps are read: 0. */
int feed_watch(struct engine *g);
/* The maps and the interest switch, once attached: 0, or -1 after p_err. */
int feed_start(struct engine *g);
/* One turn of the loop: waits up to WAIT_MS, hands all that came to the policy. */
void feed_turn(struct engine *g);
void feed_stop(struct engine *g);

/* --- act.c ----------------------------------------------------------------- */
/* The process's GPUs, --gpu checked against them: 0; -1 after p_err (quiet when none yet). */
int act_read_gpus(struct engine *g, bool quiet_if_none);
int act_first_gpu(const struct engine *g);
/* Carries out q; its DONE event goes into a later batch (at once, or when its move ends). */
void act(struct engine *g, const struct pfe_request *q);

/* --- done.c ---------------------------------------------------------------- */
/* q's DONE event, into the next batch: len moved (0: nothing), ok. */
void done_event(struct engine *g, const struct pfe_request *q, uint64_t len, bool ok);
/* The move of len bytes for q to GPU i (-1: the CPU) ended (ret, st), having run [t0, t1]. */
void done_move(struct engine *g, const struct pfe_request *q, int i, uint64_t len, int ret,
	       uint32_t st, uint64_t t0, uint64_t t1);

/* --- lane.c ---------------------------------------------------------------- */
#define LANES 4			/* moves at once */
#define LANE_JOBS 64		/* requests a lane may hold */
struct lanes;
/* The lanes, once attached (the process's UVM file): 0, or -1 with err. */
int lane_start(struct engine *g, char *err, size_t len);
/* Their eventfd (readable: a move ended), or -1. */
int lane_fd(const struct engine *g);
/* Gives a move of len bytes to dst (GPU index gpu, -1 the CPU) to a lane; without lanes, makes it now. */
void lane_submit(struct engine *g, const struct pfe_request *q, int gpu, uint64_t len,
		 const struct uvm_uuid *dst);
/* Ends the moves that ended (done_move). */
void lane_reap(struct engine *g);
/* Waits for the moves under way and ends them, drops those not started, ends the lanes. */
void lane_stop(struct engine *g);

/* --- stats.c --------------------------------------------------------------- */
/* The counters at the engine's end, kept past its resources (the report). */
#define STATS_SNAP_MAX (PFE_C_MAX + 1 + PFE_MAX_CTRS + PFE_MAX_GPUS + 3)	/* + attach, drain, close */
struct stats_snap {
	int n;
	pid_t pid;
	double seconds;
	char policy[64];
	char name[STATS_SNAP_MAX][64];
	uint64_t v[STATS_SNAP_MAX];
	uint32_t age[AGE_BUCKETS];	/* the served allocations' ages (allocs.h) */
};
void stats_write(struct engine *g);
void stats_take(struct engine *g, struct stats_snap *sn);
/* The closing report: text on stderr, or JSON (-j); exit_status < 0: none (-p). */
void stats_print(const struct stats_snap *sn, int exit_status);
/* One more figure for the report, known only after the snapshot (close_us). */
void stats_snap_add(struct stats_snap *sn, const char *name, uint64_t v);

#endif
