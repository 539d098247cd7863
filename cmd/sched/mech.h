/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mech.h - the scheduling mechanisms: how a policy's wish reaches the GPU,
 * one const row (struct sched_mech) each, behind one ops table.  A policy
 * (policy.h) says what it wants for a TSG (struct tsg_info's want_*); the
 * run daemon hands that to a mechanism and knows no RM control itself.
 *
 * A wish can act in three places, and a row fills the ops of those it has
 * (the others NULL; acts says which):
 *
 *   MECH_PER_TSG     on a TSG of a process already running, at any time:
 *                    read its values, apply the wanted ones, put the saved
 *                    originals back, take it off its runlist and back on
 *                    (the hint gate's, many times a second, on the owner's
 *                    RM file that its thread borrowed).  RM does this
 *                    through the TSG controls (mech_rm.c, cmd/drv/rm_ctl.h
 *                    names them), on the owner's RM file.
 *   MECH_PER_CLIENT  on a client process at its start, before it has a TSG:
 *                    what its environment must carry (MPS: the active
 *                    thread percentage, the pinned-memory limit of a
 *                    client of the MPS server).
 *   MECH_PER_SERVER  on a server that runs the work of many clients (the
 *                    MPS control daemon): its settings, set and put back;
 *                    and which TSGs of the table are the server's own (the
 *                    MPS server's), so that the per-TSG ops act on them.
 *
 * Two rows: RM's (every op of MECH_PER_TSG) and MPS's (cmd/sched/mps/: per
 * client, per server, and the per-TSG ops on the TSGs its server owns,
 * through RM's row).  Adding a mechanism: one row, named at the end of
 * mech.c's table, and the policy choosing it.  A TSG's table entry keeps
 * the place of the row that changed it (tsg_info.orig_mech): whoever puts
 * it back, even after the run was killed, does so through that row.
 */
#ifndef GPUCTL_SCHED_MECH_H
#define GPUCTL_SCHED_MECH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tsg_watch.h"

struct sched;
struct tsg;

enum {
	MECH_PER_TSG = 1u << 0,
	MECH_PER_CLIENT = 1u << 1,
	MECH_PER_SERVER = 1u << 2,
};

/* What a policy wants of one client or server (MECH_PER_CLIENT, MECH_PER_SERVER). */
struct mech_want {
	__u32 cls;		/* POLICY_CLASS_* it was given */
	__u32 thread_pct;	/* share of the GPU's SMs (MPS active thread %), 0: as is */
	__u64 mem_limit;	/* bytes of device memory (MPS pinned limit), 0: as is */
	__u64 timeslice;	/* us, for the server's own TSGs; 0: as is */
	__u32 interleave;	/* level + 1; 0: as is */
};

/* A server that runs many clients' work (MPS: its control pipe directory and pid). */
struct mech_server {
	const char *dir;
	pid_t pid;
};

/*
 * How a TSG goes off its runlist and back on (tsg_runlist): ORIG_SCHEDULE,
 * the TSG itself; ORIG_CHANNELS, the channels ch[0..nch) of its client's
 * subdevice subdev (those of several TSGs of one client in one call).
 */
struct mech_runlist {
	__u32 how;
	__u32 subdev;
	const __u32 *ch;
	int nch;
};

/* Every op returns 0, or -1 with the reason (RM status decoded) in err, unless it says otherwise. */
struct sched_mech {
	const char *name;
	unsigned int acts;	/* MECH_PER_* */

	/* --- MECH_PER_TSG: on a TSG that exists --- */
	/* its current values (*lv LEVEL_UNKNOWN: not readable) */
	int (*tsg_read)(struct sched *s, const struct tsg *t, __u64 *ts, __u32 *lv, char *err,
			size_t len);
	/* the wanted values of t->info (want_timeslice, want_interleave; 0: leave) */
	int (*tsg_apply)(struct sched *s, const struct tsg *t, char *err, size_t len);
	/* the originals saved in t->info (orig_*, ORIG_* flags) put back */
	int (*tsg_restore)(struct sched *s, const struct tsg *t, char *err, size_t len);
	/*
	 * t on its runlist (on) or off it, the way rl says, through fd: the
	 * owner's RM file, borrowed by the caller (the hint gate's thread keeps
	 * its own).  0 with RM's answer in *status, or -errno: no answer.
	 */
	int (*tsg_runlist)(int fd, const struct tsg *t, bool on, const struct mech_runlist *rl,
			   __u32 *status);
	/* ORIG_CHANNELS: t's channels (at most max) and their subdevice, through fd: how many, or -errno */
	int (*tsg_channels)(int fd, const struct tsg *t, __u32 *subdev, __u32 *ch, int max);

	/* --- MECH_PER_CLIENT: at a client's start --- */
	/* the environment that carries w, "NAME=VALUE" into env[0..max): how many, or -1 */
	int (*client_env)(const struct mech_want *w, char *env[], int max, char *err, size_t len);

	/* --- MECH_PER_SERVER: a server's settings and its TSGs --- */
	int (*server_set)(const struct mech_server *srv, const struct mech_want *w, char *err,
			  size_t len);
	int (*server_restore)(const struct mech_server *srv, char *err, size_t len);
	/* t is one of the server's own TSGs (the per-TSG ops then act on it) */
	bool (*server_owns)(const struct mech_server *srv, const struct tsg *t);
};

/* The rows. */
extern const struct sched_mech sched_mech_rm;		/* mech_rm.c: RM's TSG controls */
extern const struct sched_mech sched_mech_mps;		/* mps/mech_mps.c: NVIDIA MPS */

/* The mechanism named name, or NULL; sched_mech_default: a policy's that names none. */
const struct sched_mech *sched_mech_find(const char *name);
#define sched_mech_default()	(&sched_mech_rm)
/* m's place in the table (tsg_info.orig_mech), and the row at a place (the default past the end). */
__u32 sched_mech_index(const struct sched_mech *m);
const struct sched_mech *sched_mech_at(__u32 i);

#endif
