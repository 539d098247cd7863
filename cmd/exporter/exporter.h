/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exporter.h - the exporter engine under gpuctl exporter (cmd/exporter.c):
 * Prometheus text exposition of what gpuctl knows, in four rooms:
 *
 *   procs.c    the GPU processes: found by their /dev/nvidia-uvm files,
 *              each attached through the uvm-tools back-end's session
 *              (cmd/drv/ut.h, counters only), dropped when it exits.
 *   sources.c  the TSG watcher's table (cmd/sched/) and the loaded
 *              prefetch/evict/replay policies (cmd/policy/), opened per
 *              scrape and closed after it: nothing is held between scrapes.
 *   render.c   the exposition: families with HELP/TYPE, label escaping,
 *              the exporter's own health.
 *   gpus.c     the GPUs (RM's list, cmd/drv/gpus.h): gpuctl_gpu_info and
 *              memory, the gpu/UUID labels (dcgm-exporter's names, so that
 *              a PromQL join on UUID works), a counter tracker per GPU per
 *              process.
 *   attr.c     whom a process runs for: hostname, and from its cgroup
 *              pod_uid/container_id or unit (--pod-names: namespace, pod).
 *   http.c     the HTTP server (libmicrohttpd, one polling thread);
 *              health.c what /healthz and /readyz answer; httplog.c
 *              its errors as logfmt lines.
 *
 * Label cardinality is bounded: per-process series exist only for processes
 * that have a GPU context, at most max_procs of them (the others are counted
 * as reason="limit"); TSG series at most EXP_MAX_TSGS; policy series are
 * three objects times STAT_MAX counters; reasons are the enums below.
 */
#ifndef GPUCTL_EXPORTER_H
#define GPUCTL_EXPORTER_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "cgroup.h"
#include "gpus.h"
#include "ut.h"

#define EXP_DEFAULT_PORT	9471	/* not dcgm-exporter's 9400 nor node_exporter's 9100 */
#define EXP_DEFAULT_MAX_PROCS	256
#define EXP_MAX_TSGS		1024
#define EXP_MAX_GPUS		GPUCTL_MAX_GPUS	/* per-GPU series for so many GPUs */
#define EXP_GPU_REFRESH_S	10.0	/* RM's free memory read again at most this often */

/* Why a GPU process has no counters: the reason label, by enum. */
enum exp_fail {
	EF_NONE,		/* attached */
	EF_NO_TOOLS,		/* /dev/nvidia-uvm-tools missing: driver not loaded */
	EF_PERM,		/* borrowing its file was refused */
	EF_NOT_READY,		/* its UVM file is not initialized yet (retried) */
	EF_GONE,		/* exited while being attached */
	EF_LIMIT,		/* more GPU processes than max_procs */
	EF_REFUSED,		/* the driver refused the counter tracker */
	EF_NR
};
extern const char *const exp_fail_names[EF_NR];

/* The state of each source of metrics: the reason label of gpuctl_exporter_source_up. */
enum exp_src { SRC_UVM_TOOLS, SRC_SCHED_WATCHER, SRC_POLICIES, SRC_NR };
enum exp_src_state {
	SS_OK,
	SS_NO_DRIVER,		/* uvm-tools: no /dev/nvidia-uvm-tools */
	SS_BPFFS_ABSENT,	/* bpffs is not mounted (any more) */
	SS_NOT_RUNNING,		/* no watcher pinned / no policy loaded */
	SS_OTHER_VERSION,	/* a watcher of another gpuctl version */
	SS_ERROR,		/* anything else: see the exporter's log */
	SS_NR
};
extern const char *const exp_src_names[SRC_NR];
extern const char *const exp_src_state_names[SS_NR];

/* One GPU process. */
struct exp_proc {
	pid_t pid;
	unsigned long long start;	/* starttime in /proc/PID/stat: tells pid reuse */
	char comm[16];
	struct cg_attr cg;		/* read once, when found (attr.c) */
	struct ut_session s;
	int pidfd;			/* readable once it exits (attached only), else -1 */
	bool attached;
	bool seen;			/* in the current walk of /proc */
	enum exp_fail fail;
	char why[160];			/* the last attach error, for the log */
	/* --events: counted from its event queue (s.queue_fd >= 0) */
	uint64_t replays, evictions, evicted_bytes, thrashing, dropped;
	/* a counter tracker per GPU of e->gpus (0..ngpu-1; fd -1: refused) */
	int ngpu;
	int gfd[EXP_MAX_GPUS];
	void *gmem[EXP_MAX_GPUS];
	bool gshown[EXP_MAX_GPUS];	/* counted once: its series stays */
};

struct exp_stats {
	uint64_t scrapes, rescans;
	uint64_t attached_total, dropped_total;
	uint64_t fail_total[EF_NR];
	double scrape_s, scrape_cpu_s;	/* the last scrape */
	double rescan_s, rescan_cpu_s;	/* the last walk of /proc */
	double rescan_cpu_total_s;
	double started;			/* unix time */
};

/* A pod the kubelet's log directories name (--pod-names). */
struct exp_pod {
	char uid[CG_POD_UID_LEN];
	char ns[64];
	char name[254];
};

struct exp_health;	/* health.h */

struct exporter {
	pthread_mutex_t lock;		/* the HTTP thread's scrape vs the rescan loop */
	struct exp_proc *procs;
	int nprocs, cap;
	unsigned int max_procs;
	bool attach;			/* serve: attach (counters); textfile: only list */
	bool events;			/* --events: an event queue per process too */
	enum exp_src_state src[SRC_NR];
	struct exp_stats st;
	/* gpus.c: RM's GPUs, read at start and every EXP_GPU_REFRESH_S */
	const struct gpu_info *gpus;
	int ngpus;			/* -1: RM did not answer (gpus_why) */
	double gpus_at;
	const char *gpus_why;
	/* attr.c */
	char hostname[256];
	bool pod_names;			/* --pod-names */
	struct exp_pod *pods;
	int npods, podcap;
	struct exp_health *health;	/* serve: what /healthz and /readyz answer; else NULL */
};

/* procs.c */
void exp_init(struct exporter *e, unsigned int max_procs, bool attach);
/* Walks /proc: attaches new GPU processes, retries failed ones, drops exited ones. */
void exp_rescan(struct exporter *e);
/*
 * Sleeps up to ms, and drops at once each attached process that exits
 * meanwhile: the file borrowed from it keeps its UVM state (and its GPU
 * memory) alive until closed.  Reads an event queue the driver says is
 * half full.  Takes e->lock itself.
 */
void exp_wait(struct exporter *e, int ms);
/* --events: reads every queue (the driver's per-CPU buffers flushed first). */
void exp_drain(struct exporter *e);
/* Drops every process (closes every fd it holds). */
void exp_free(struct exporter *e);

/* attr.c */
/* The host's name ($NODE_NAME, else uname's); pod_names: --pod-names. */
void exp_attr_init(struct exporter *e, bool pod_names);
/* Reads a newly found process's cgroup (and the pod names, when one is new). */
void exp_attr_proc(struct exporter *e, struct exp_proc *p);
/* ,hostname="..."[,pod_uid=...,namespace=...,pod=...,container_id=...][,unit=...] */
void exp_attr_labels(FILE *f, const struct exporter *e, const struct cg_attr *cg);
/* pid="...",comm="..." and the above: every per-process series's labels. */
void exp_proc_labels(FILE *f, const struct exporter *e, const struct exp_proc *p);
/* Any pid's attribution: a known process's, else its cgroup read now. */
void exp_attr_of(const struct exporter *e, pid_t pid, struct cg_attr *cg);
/* exp_attr_labels of exp_attr_of. */
void exp_attr_pid_labels(FILE *f, const struct exporter *e, pid_t pid);

/* sources.c: writes the TSG and policy families (opens and closes what it reads). */
void exp_write_tsgs(struct exporter *e, FILE *f);
/* mps.c: the running policy's MPS daemon, servers and clients (its snapshot file). */
void exp_write_mps(struct exporter *e, FILE *f);
void exp_write_policies(struct exporter *e, FILE *f);

/* gpus.c */
/* Reads RM's GPU list when due (first call, then every EXP_GPU_REFRESH_S). */
void exp_gpus_refresh(struct exporter *e, bool force);
/* Opens a counter tracker per GPU for an attached process (best effort). */
void exp_proc_gpus_open(struct exporter *e, struct exp_proc *p);
void exp_proc_gpus_close(struct exp_proc *p);
/* ,gpu="0",UUID="GPU-..." (first: no leading comma). */
void exp_gpu_labels(FILE *f, const struct gpu_info *g, bool first);
/* gpuctl_gpu_info and the memory gauges. */
void exp_write_gpus(struct exporter *e, FILE *f);
/*
 * A per-process counter family, per GPU where the process has trackers
 * (a series once the GPU counted something), else for all GPUs unlabelled.
 */
void exp_write_proc_gpu_counter(FILE *f, const struct exporter *e, const char *name, int ctr,
				const char *dir);

/* render.c (the pieces it writes with: om.h) */
/* The whole exposition of one scrape into a malloc'd buffer; *len its length. */
char *exp_render(struct exporter *e, size_t *len);

/* httplog.c: one logfmt line on stderr for an HTTP error (libmicrohttpd's or ours) */
void exp_log_mhd(const char *fmt, va_list ap);
void exp_log_http(unsigned int status, const char *method, const char *url, const char *msg);
/* A message of libmicrohttpd's that no error line took as its detail: out now. */
void exp_log_flush(void);

/* http.c */
struct exp_http;
/*
 * A listening socket on addr (bound here, so that the error is ours to
 * tell): the fd, or -errno.  An IPv6 one takes IPv4 too unless v6only.
 */
int exp_listen(const struct sockaddr *addr, socklen_t len, bool v6only);
/* Serves /metrics from e on the listening socket fd (MHD owns it then); NULL on failure. */
struct exp_http *exp_http_start(struct exporter *e, int fd, char *err, size_t len);
void exp_http_stop(struct exp_http *h);

#endif
