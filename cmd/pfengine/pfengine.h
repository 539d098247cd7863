/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfengine.h - the per-process prefetch engine for the stock driver.
 *
 * A policy (policies.c) is pure decision code: it sees a process's GPU
 * fault and migration events (struct gt_event, as the uvm-tools back-end
 * decodes them: cmd/drv/ut.h) and answers with migrate requests, ranges
 * of the process's VA to move to the GPU.  It knows nothing of fds or
 * ioctls, so the unit test drives it with crafted streams on the host.
 *
 * The engine (engine.c) runs one policy on one process: events from a
 * uvm-tools queue on the process's borrowed /dev/nvidia-uvm file, requests
 * carried out with UVM_MIGRATE on that same file (cmd/drv/uvm.c), each capped by
 * the GPU memory that is free (cmd/drv/nvml.c).  The command line lives in
 * cli.c, prefetch's engine back-end (cmd/prefetch/backend.h).
 */
#ifndef GPUCTL_PFENGINE_H
#define GPUCTL_PFENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "param.h"
#include "trace_uvm.h"	/* struct gt_event */

#define PFE_BLOCK_SHIFT 21	/* UVM's VA block: 2 MiB */
#define PFE_BLOCK (1ull << PFE_BLOCK_SHIFT)
#define PFE_MAX_PARAMS 8
#define PFE_MAX_REQS 64		/* requests one event may produce */

/* One request: move [addr, addr + len) of the process to the GPU. */
struct pfe_req {
	uint64_t addr;
	uint64_t len;
};

/* Where a policy's requests go (the engine, or a test). */
struct pfe_out {
	struct pfe_req req[PFE_MAX_REQS];
	int n;
};

/*
 * What a policy may ask of its surroundings: the managed allocation
 * (a /dev/nvidia-uvm mapping of the process) around addr.  0 and the
 * extent, or -1 when addr is in none.
 */
struct pfe_env {
	int (*extent)(void *ctx, uint64_t addr, uint64_t *start, uint64_t *end);
	void *ctx;
	/*
	 * Managed allocations that appeared since the last call (the engine
	 * learns them when it reads the maps again): up to max into
	 * start[]/end[], how many.  NULL: not known.
	 */
	int (*fresh)(void *ctx, uint64_t *start, uint64_t *end, int max);
};

/* Counters every policy has; the engine fills the last ones. */
enum pfe_ctr {
	PFE_C_SEEN,		/* events the policy was given */
	PFE_C_FAULTS,		/* GPU faults among them (not duplicates) */
	PFE_C_REQUESTS,		/* migrate requests it made */
	PFE_C_REQ_BYTES,	/* bytes they asked for */
	PFE_C_IOCTLS,		/* UVM_MIGRATE calls made (engine) */
	PFE_C_BYTES,		/* bytes those calls asked to move, after capping */
	PFE_C_ERRORS,		/* calls the driver refused */
	PFE_C_CAPPED,		/* requests cut to the GPU's free memory */
	PFE_C_LOST,		/* events the queue dropped */
	PFE_C_CPU_US,		/* the engine's own CPU time */
	PFE_C_DRV_FAULTS,	/* the driver's GPU fault counter for the process */
	PFE_C_DRV_HTOD,		/* the driver's host-to-device bytes for the process */
	PFE_C_POLICY,		/* first policy-specific counter */
	PFE_C_MAX = PFE_C_POLICY + 4,
};

struct pfe_policy {
	const char *name;
	const char *doc;
	const struct param *params;
	int nparams;
	const char *const *ctr_names;	/* [PFE_C_MAX]: the policy's own from PFE_C_POLICY */
	size_t state_size;
	void (*init)(void *st, const uint64_t *params);
	/* One event: requests appended to out. */
	void (*event)(void *st, const uint64_t *params, const struct pfe_env *env,
		      const struct gt_event *e, struct pfe_out *out, uint64_t *ctr);
	/* A request was carried out (or refused: ok false) at end_ts (event clock). */
	void (*done)(void *st, const uint64_t *params, const struct pfe_req *r, bool ok,
		     uint64_t end_ts);
};

extern const struct pfe_policy *const pfe_policies[];	/* NULL-terminated */
extern const char *const pfe_ctr_names[PFE_C_POLICY];

const struct pfe_policy *pfe_policy_find(const char *name);

/* A policy with its parameters and state: what the engine and tests run. */
struct pfe_run {
	const struct pfe_policy *pol;
	uint64_t params[PFE_MAX_PARAMS];
	uint64_t ctr[PFE_C_MAX];
	void *state;
};

/* Defaults, then KEY VALUE pairs; -1 after p_err (usage). */
int pfe_run_init(struct pfe_run *r, const struct pfe_policy *pol, int argc, char **argv);
/* One event through the policy: counts it, appends requests to out. */
void pfe_run_event(struct pfe_run *r, const struct pfe_env *env, const struct gt_event *e,
		   struct pfe_out *out);
void pfe_run_done(struct pfe_run *r, const struct pfe_req *q, bool ok, uint64_t end_ts);
void pfe_run_free(struct pfe_run *r);

/* Appends [addr, addr + len) to out, merged with the last one when they touch. */
void pfe_out_add(struct pfe_out *out, uint64_t addr, uint64_t len);

#endif
