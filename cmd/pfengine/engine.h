/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine.h - running the engine on a process (loop.c), its registry of
 * running engines (registry.c), and the one-shot migrate/advise (oneshot.c):
 * what cmd/prefetch.c calls.
 */
#ifndef GPUCTL_PFENGINE_ENGINE_H
#define GPUCTL_PFENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pfengine.h"

struct pfe_opts {
	pid_t pid;		/* -p, or 0 */
	char **cmd;		/* -- CMD..., or NULL */
	const struct pfe_policy *pol;
	int nargs;		/* KEY VALUE... */
	char **args;
	bool detach;
	bool async;		/* UVM_MIGRATE_FLAG_ASYNC */
	const char *gpu;	/* --gpu UUID, or NULL: the process's (first) GPU */
	uint64_t max_bytes;	/* --max-bytes: most one call may move, 0: none given */
	double duration;	/* --duration S, 0: as long as the process */
};

/* --- the budget: one rule for the engine and the one-shot migrate ------- */

#define PFE_RESERVE_BYTES (256ull << 20)	/* left free on the GPU, always */
/*
 * The most one call may move: --max-bytes (0: none given) and, when
 * have_free, the GPU's free memory less PFE_RESERVE_BYTES and less what was
 * moved since it was read (used).  UINT64_MAX: no limit.
 */
uint64_t pfe_budget(uint64_t max_bytes, bool have_free, uint64_t free_bytes, uint64_t used);

/* Whether the engine can run here; why (or why not) into why. */
bool pfe_engine_usable(char *why, size_t len);
/* Runs the engine (foreground, or detached): the command's exit code. */
int pfe_engine_main(const struct pfe_opts *o);

/* --- registry.c: one pid file and one stats file per target ------------- */

/* <run dir>/prefetch: $GPUCTL_RUN_DIR or /run/gpuctl.  create: make it. */
int pfe_reg_dir(char *buf, size_t len, bool create);
/* The paths of target's files (kind "pid" or "stats"). */
void pfe_reg_path(char *buf, size_t len, const char *dir, pid_t target, const char *kind);
/* Every engine: prints (or JSON) them; how many there are, -1 on error. */
int pfe_reg_show(bool print);
/*
 * A counter's value for people, by its name's unit (stats.c): bytes
 * (..._bytes, ..._bytes.gpuN, ..._bytes_htod) as "1.0 GiB", microseconds
 * (..._us) and nanoseconds (..._ns) as "2.1 ms", into buf[len] (UNITS_BUF);
 * NULL for a count.  Text only: -j and the stats file keep the exact count.
 */
const char *stats_human(const char *name, uint64_t v, char *buf, size_t len);
/* Ends the engine of target: EXIT_OK / EXIT_FAIL. */
int pfe_reg_unload(pid_t target);
/* <bpffs>/gpuctl/engine/<target>: where its maps are pinned (create: made). 0, -1 after p_err. */
int pfe_reg_pins(char *buf, size_t len, pid_t target, bool create);
/* Removes the pins of engines that are not running (killed with -9). */
void pfe_reg_sweep(void);
/* --- claim.c: one engine per process, whatever its run directory ---------- */

#define PFE_CLAIM_DIR "/run/gpuctl-engines"
/* Claims target (pid and start time) for this engine: 0, or -1 after p_err (one runs). */
int pfe_claim(pid_t target);
/* Gives this engine's claim up (at its end). */
void pfe_claim_release(void);
/* Whether an engine runs on target now (true when that cannot be told). */
bool pfe_claimed(pid_t target);
/* Removes the lock files no engine holds. */
void pfe_claim_sweep(void);

/* prefetch set -p PID KEY VALUE: the parameter KEY of the engine on process pid. */
int pfe_set_main(pid_t pid, const char *key, const char *value);

/* --- oneshot.c ------------------------------------------------------------ */

/* prefetch migrate / advise: their whole command lines after the word. */
int pfe_migrate_main(int argc, char **argv);
int pfe_advise_main(int argc, char **argv);

/* A size in units.h's grammar (4096, 64K, 2MiB, 0x1000): 0, or -1 after p_err. */
int pfe_parse_size(const char *what, const char *arg, uint64_t *out);

#endif
