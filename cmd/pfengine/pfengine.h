/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pfengine.h - the per-process prefetch engine for the stock driver.
 *
 * A policy is a BPF program (bpf/pfengine_abi.h): built in (bpf/engine_*.bpf.c,
 * embedded as skeletons) or a user's own object file.  It sees batches of a
 * process's GPU fault events, completions of its earlier requests and the
 * process's new managed allocations, and answers with requests: ranges to
 * move to a GPU of the process or to the CPU.  The runner (bpfrun.c) loads
 * it as BPF_PROG_TYPE_SYSCALL and runs it with BPF_PROG_TEST_RUN over the
 * batch it wrote into the program's mmap'ed global data, so the unit test
 * drives the programs on the host.
 *
 * The engine (loop.c, feed.c, act.c, stats.c) runs one policy on one
 * process: faults from a uvm-tools queue on the process's borrowed
 * /dev/nvidia-uvm file, its allocations from the host's allocation
 * watcher (allocw.c, allocs.c), requests
 * carried out with UVM_MIGRATE on that same file (cmd/drv/uvm.c), each capped
 * by the GPU memory that is free (cmd/drv/nvml.c).  The command line lives in
 * cli.c, prefetch's engine back-end (cmd/prefetch/backend.h).
 */
#ifndef GPUCTL_PFENGINE_H
#define GPUCTL_PFENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "param.h"
#include "pfengine_abi.h"

#define PFE_MAX_PARAMS 16
#define PFE_MAX_CTRS 32
#define PFE_MAX_GPUS GPUCTL_MAX_GPUS

/* An engine object, checked but not loaded: a built-in one or a user's file. */
struct pfe_policy {
	char name[64];		/* "stream"; a file's base name without .bpf.o/.o */
	char doc[160];
	const void *elf;	/* built in: the skeleton's bytes */
	size_t elf_size;
	char path[256];		/* a user's file, "" for built-ins */
	bool allow_helpers;	/* a user's file: --allow-helpers given */
	bool never_migrates;	/* asks for no migration: needs no cap (--max-bytes) */
	uint32_t wants;		/* PFE_WANTS (PFE_W_ALL when it says nothing) */
	struct param params[PFE_MAX_PARAMS];	/* name, doc: in the storage below */
	int nparams;
	char pname[PFE_MAX_PARAMS][48];
	char pdoc[PFE_MAX_PARAMS][104];
};

/* The built-in policies, i = 0.. (NULL past the last). */
const struct pfe_policy *pfe_builtin(int i);
const struct pfe_policy *pfe_policy_find(const char *name);

enum pfe_file_kind { PFE_FILE_ENGINE, PFE_FILE_STRUCT_OPS, PFE_FILE_OTHER };
/*
 * A user's object, read once (trustfile.h: a regular file only root or the
 * user who ran sudo can write) into pol->elf, from which everything after
 * checks and loads: 0 with *pol filled; -1 after one p_err line (the file,
 * not BPF, no SEC("syscall") program, ABI version, no pfe_io, a helper it
 * may not call unless allow_helpers, maps too large).  kind (may be NULL):
 * what the object is, even when it is refused.  pol: zeroed, or filled by
 * an earlier call (its bytes are freed).
 */
int pfe_policy_file(const char *path, bool allow_helpers, struct pfe_policy *pol,
		    enum pfe_file_kind *kind);
/* What the object at path is (quiet; PFE_FILE_OTHER when it cannot be read). */
enum pfe_file_kind pfe_file_kind(const char *path);

/* --- objcheck.c: what a user's object may do --------------------------- */
/* What an engine object's maps may take of the kernel's memory in all (mapcost.c). */
#define PFE_OBJ_MAX_BYTES (64ull << 20)
/*
 * --- mapcost.c: the kernel bytes a map of type (BPF_MAP_TYPE_*) with these
 * sizes, entries and map_flags takes with ncpu possible CPUs (rounded up).
 */
unsigned long long pfe_map_cost(unsigned int type, unsigned int key_size, unsigned int value_size,
				unsigned int max_entries, unsigned int flags, unsigned int ncpu);
struct bpf_object;
/*
 * The maps of obj within PFE_OBJ_MAX_BYTES, and (unless allow_helpers) no
 * program in the ELF bytes calls a helper outside the engine's list or a
 * kfunc: 0, or -1 with why (one line).
 */
int pfe_obj_limits(struct bpf_object *obj, const void *elf, size_t size, bool allow_helpers,
		   char *why, size_t len);

/* The engine's own counters (the program's are named by its BTF). */
enum pfe_ctr {
	PFE_C_SEEN,		/* events the program was given (DONE/ALLOC included) */
	PFE_C_FAULTS,		/* GPU faults among them (not duplicates) */
	PFE_C_REQUESTS,		/* requests it made */
	PFE_C_REQ_BYTES,	/* bytes they asked for */
	PFE_C_IOCTLS,		/* UVM_MIGRATE calls made (engine) */
	PFE_C_BYTES,		/* bytes those calls asked to move, after capping */
	PFE_C_ERRORS,		/* calls the driver refused */
	PFE_C_CAPPED,		/* requests cut to the GPU's free memory */
	PFE_C_LOST,		/* events the queue dropped */
	PFE_C_CPU_US,		/* the engine's own CPU time */
	PFE_C_DRV_FAULTS,	/* the driver's GPU fault counter for the process */
	PFE_C_DRV_HTOD,		/* the driver's host-to-device bytes for the process */
	PFE_C_CALLS,		/* program runs */
	PFE_C_RUN_NS,		/* their time, BPF_PROG_TEST_RUN syscall included */
	PFE_C_BAD_REQS,		/* requests dropped: a GPU the process lacks or --gpu excludes */
	PFE_C_MAPS_READS,	/* /proc/PID/maps read (each takes the process's mmap lock) */
	PFE_C_WATCHER,		/* 1: allocations from the watcher as made; 0: maps read on demand */
	PFE_C_ALLOCS,		/* managed allocations made (ALLOC) */
	PFE_C_FREES,		/* managed memory freed (FREE) */
	PFE_C_GAPS,		/* GAP events: the queue or the watcher lost events */
	PFE_C_WATCH_LOST,	/* watcher events lost (its ring was full) */
	PFE_C_FAULTS_ON,	/* the driver's fault recording turned on (interest switch) */
	PFE_C_FAULTS_OFF,	/* ... and off */
	PFE_C_SAMPLES,		/* fault samples started by the driver's counter */
	PFE_C_SERVED,		/* allocations a UVM_MIGRATE served */
	PFE_C_MISSED,		/* allocations faulted on and freed (or left) unserved */
	PFE_C_AGE_P50,		/* served allocations' age at service, µs: median */
	PFE_C_AGE_P99,		/* ... 99th percentile */
	PFE_C_MAX,
};
extern const char *const pfe_ctr_names[PFE_C_MAX];

/* A policy loaded: what the engine and tests run. */
struct pfe_run {
	const struct pfe_policy *pol;
	uint64_t params[PFE_MAX_PARAMS];	/* the command line's values */
	uint64_t ctr[PFE_C_MAX];
	struct bpf_object *obj;
	int prog_fd;
	struct pfe_io *io;			/* the batch: mmap'ed global data */
	uint64_t *pv[PFE_MAX_PARAMS];		/* the parameters, live */
	int nctrs;
	char ctr_name[PFE_MAX_CTRS][48];
	uint64_t *cv[PFE_MAX_CTRS];		/* the program's counters, live */
	void *mm[8];
	size_t mmlen[8];
	int nmm;
	char pin_dir[256];			/* "" when not pinned */
};

/* Defaults, then KEY VALUE pairs (nothing loaded): 0, -1 after p_err. */
int pfe_run_init(struct pfe_run *r, const struct pfe_policy *pol, int argc, char **argv);
/* Loads the program, maps its data and sets the parameters: 0, -1 after one p_err line. */
int pfe_run_load(struct pfe_run *r);
/* The next free event slot of the batch, NULL when the batch is full (run it). */
struct pfe_event *pfe_run_slot(struct pfe_run *r);
/* Runs the program over the batch: requests in r->io->req[0..nreq); the batch emptied. 0 or -errno. */
int pfe_run_batch(struct pfe_run *r);
/* Pins the object's maps in dir (made): 0, -1 after p_err. */
int pfe_run_pin(struct pfe_run *r, const char *dir);
void pfe_run_free(struct pfe_run *r);

/* --- a pinned engine's data, by BTF name (prefetch set / show) ---------- */
/* Sets parameter key of the engine pinned in dir: EXIT_OK, else p_err. */
int pfe_pinned_set(const char *dir, const char *key, const char *value);

#endif
