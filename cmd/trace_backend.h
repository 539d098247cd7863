/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_backend.h - how `gpuctl trace` and `gpuctl stat` get at the UVM
 * driver: choosing a backend (bpf, uvm-tools; rm for TSG events), starting a
 * command or attaching to a pid, and delivering events and counters.
 */
#ifndef GPUCTL_TRACE_BACKEND_H
#define GPUCTL_TRACE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"
#include "uvm_tools.h"

enum tb_kind { TB_AUTO = 0, TB_BPF, TB_UVM_TOOLS, TB_RM };

/* Counters gpuctl stat prints; a backend marks the ones it has. */
enum {
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

typedef void (*tb_event_fn)(const struct gt_event *e, void *arg);

struct tb_opts {
	enum tb_kind kind;	/* TB_AUTO: cheapest that can answer */
	pid_t pid;		/* -p, or 0 */
	char **cmd;		/* -- CMD ARGS, or NULL */
	bool stdout_is_data;	/* a record goes to stdout (-j implies it): CMD's stdout -> stderr */
	uint32_t types;		/* 1 << GT_EV_* wanted as events (0: counters only) */
	const char *device;	/* rm: the RM device, or NULL (trace_rm.h) */
	tb_event_fn fn;
	void *arg;
};

struct tb;

extern const char *const tb_kind_names[];	/* "auto", "bpf", "uvm-tools", "rm" */
int tb_parse_kind(const char *s, enum tb_kind *out);

/*
 * Chooses and starts a backend; starts CMD (held until the backend is ready)
 * or attaches to pid.  NULL after p_err.  *rc gets the exit code to use.
 */
struct tb *tb_start(const struct tb_opts *o, int *rc);
/* Delivers events for up to timeout_ms.  Returns false once the target is gone. */
bool tb_poll(struct tb *t, int timeout_ms);
/* Reads all counters accumulated so far (totals over rows). */
void tb_read_counters(struct tb *t, struct tb_counters *c);
/* Final drain; kills a started command that is still running when kill_cmd. */
void tb_stop(struct tb *t, bool kill_cmd);
/* Exit status of the started command (shell convention), -1 if none. */
int tb_cmd_status(struct tb *t);
/* The backend failed after starting (p_err done): exit 1, no summary. */
bool tb_failed(const struct tb *t);
void tb_free(struct tb *t);
const char *tb_name(const struct tb *t);
pid_t tb_target(const struct tb *t);
uint64_t tb_now_ns(const struct tb *t);	/* the backend's clock */
/* While an event is delivered: its process's name when the backend knows it (rm), else NULL. */
const char *tb_event_comm(const struct tb *t);

/*
 * Which backends work here, for gpuctl probe: reason gets why bpf does
 * not (or ""), and the one auto would choose system-wide / for a pid.
 */
bool tb_bpf_usable(char *reason, size_t len);

#endif
