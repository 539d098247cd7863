/* SPDX-License-Identifier: GPL-2.0 */
/*
 * backend.h - the trace room's front: how `gpuctl trace` and `gpuctl stat`
 * get at the driver.  Three back-ends behind one ops table, one file each:
 * bpf (bpf.c: fentry on nvidia-uvm, system-wide), uvm-tools (uvmtools.c:
 * NVIDIA's tools API on one process) and rm (rm.c: TSG events from the RM
 * escapes).  backend.c chooses one, starts the workload (-p PID / -- CMD,
 * cmd/lib/workload.c) around it and delivers its events and counters.
 * `gpuctl probe` asks each back-end's usable() through the same table.
 */
#ifndef GPUCTL_TRACE_BACKEND_H
#define GPUCTL_TRACE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gpuctl.h"
#include "target.h"
#include "trace_uvm.h"	/* struct gt_event */

enum tb_kind { TB_AUTO = 0, TB_BPF, TB_UVM_TOOLS, TB_RM, TB_KINDS };

/* Counters a back-end keeps (gpuctl stat reads them); it marks the ones it has. */
enum tb_ctr {
	TC_GPU_FAULTS, TC_DUPLICATES, TC_BATCHES, TC_BATCH_US, TC_REPLAYS, TC_CPU_FAULTS,
	TC_BYTES_HTOD, TC_BYTES_DTOH, TC_PREFETCH_BYTES, TC_EVICTION_BYTES, TC_EVICTIONS,
	TC_THRASHING, TC_NR
};

struct tb_row {			/* one (pid, gpu) */
	uint32_t pid;
	uint32_t gpu;		/* GT_GPU_NONE: all / none */
	uint64_t v[TC_NR];
};

struct tb_counters {
	bool have[TC_NR];
	uint64_t total[TC_NR];
	struct tb_row *rows;
	int nrows;
};

/*
 * The stock driver's functions the bpf back-end's programs attach to
 * (bpf.c): the one list, which gpuctl probe reports on too.
 */
struct tb_attach {
	const char *func;
	const char *what;
};
#define TB_BPF_ATTACH_NR 7
extern const struct tb_attach tb_bpf_attach[TB_BPF_ATTACH_NR];

typedef void (*tb_event_fn)(const struct gt_event *e, void *arg);

struct tb_opts {
	const char *what;	/* the command, for error lines: "trace faults", "stat" */
	enum tb_kind kind;	/* TB_AUTO: cheapest that can answer */
	struct target target;	/* -p PID, -- CMD ARGS (cmd/lib/target.h); neither: system-wide */
	bool stdout_is_data;	/* a record goes to stdout: CMD's stdout -> stderr (as -j) */
	uint32_t types;		/* 1 << GT_EV_* wanted as events (0: counters only) */
	const char *device;	/* rm: the RM device, or NULL (trace_rm.h) */
	tb_event_fn fn;
	void *arg;
};

/*
 * A running trace: what every back-end shares; priv is the back-end's own.
 * `record all tsg` runs two (pair.c): the UVM events' back-end, and beside
 * it (second) the rm back-end, which shares its workload and delivers
 * through it.
 */
struct tb {
	const struct tb_ops *ops;
	struct tb_opts o;
	struct workload *w;	/* w->pid: the target, 0 system-wide (&own, or the first's) */
	struct workload own;
	void *priv;
	bool failed;		/* failed after starting (p_err done) */
	const char *comm;	/* of the event being delivered, when known */
	struct tb *second;	/* the rm back-end beside this one, or NULL */
	char name[24];		/* "bpf+rm" when there is a second */
};

struct tb_ops {
	const char *name;	/* as --backend takes it */
	const char *scope;	/* what it can trace, for probe */
	unsigned int caps;	/* NEED_* the back-end cannot work without */
	/* Whether it works here at all (loads a program to see); reason: why not. */
	bool (*usable)(char *reason, size_t len);
	/*
	 * Starts on t->o for t->w->pid, before a started command runs: 0, or
	 * -errno with reason set (or left "" after p_err).
	 */
	int (*start)(struct tb *t, char *reason, size_t len);
	/* Delivers events for up to timeout_ms (sleeps that long when none come). */
	void (*poll)(struct tb *t, int timeout_ms);
	/* The counters so far into c (zeroed); NULL: none. */
	void (*counters)(struct tb *t, struct tb_counters *c);
	/* The last events: before the command is reaped, or after (drain_after_exit). */
	void (*stop)(struct tb *t);
	bool drain_after_exit;
	void (*free)(struct tb *t);
	uint64_t (*now_ns)(void);	/* the clock of its timestamps */
};

extern const struct tb_ops tb_bpf_ops, tb_uvm_tools_ops, tb_rm_ops;
/* Indexed by enum tb_kind; [TB_AUTO] is NULL. */
extern const struct tb_ops *const tb_backends[TB_KINDS];

/*
 * pair.c: the rm back-end started beside t (TSG events with UVM events, on
 * t's clock): 0, or -1 after p_err.  Then its share of polling, stopping
 * and freeing (nothing when t has none).
 */
int tb_pair_start(struct tb *t, uint32_t tsg_types);
void tb_pair_poll(struct tb *t);
void tb_pair_stop(struct tb *t, bool after_exit);
void tb_pair_free(struct tb *t);

/* For back-ends: hand an event on (counted, filtered by o.types), or a loss. */
void tb_deliver(struct tb *t, const struct gt_event *e);
void tb_deliver_lost(struct tb *t, uint64_t n);

/* "auto", "bpf", "uvm-tools", "rm" to a kind: 0, or -EINVAL. */
int tb_parse_kind(const char *s, enum tb_kind *out);

/*
 * What can be told before anything starts: a kind that fits the events
 * (EXIT_USAGE), the capabilities (EXIT_FAIL).  0, or the exit code after
 * p_err.  tb_start does it too; a command that creates something first
 * (record's file) asks before.
 */
int tb_check(const struct tb_opts *o);
/*
 * Chooses and starts a backend; starts CMD (held until the backend is ready)
 * or follows pid.  NULL after p_err; *rc gets the exit code to use.
 */
struct tb *tb_start(const struct tb_opts *o, int *rc);
/* Delivers events for up to timeout_ms.  Returns false once the target is gone. */
bool tb_poll(struct tb *t, int timeout_ms);
/* Reads all counters accumulated so far (totals over rows); frees c->rows first. */
void tb_read_counters(struct tb *t, struct tb_counters *c);
/* Final drain; kills a started command that is still running when kill_cmd. */
void tb_stop(struct tb *t, bool kill_cmd);
/* Exit status of the started command (shell convention), -1 if none. */
int tb_cmd_status(const struct tb *t);
/* The backend failed after starting (p_err done): exit 1, no summary. */
bool tb_failed(const struct tb *t);
void tb_free(struct tb *t);
const char *tb_name(const struct tb *t);
pid_t tb_target(const struct tb *t);
uint64_t tb_now_ns(const struct tb *t);	/* the backend's clock */
/* While an event is delivered: its process's name when the backend knows it (rm), else NULL. */
const char *tb_event_comm(const struct tb *t);

/* -j after the object (trace, stat): the same as before it. */
void tb_json_on(void);

#endif
