/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mps.h - NVIDIA's Multi-Process Service as gpuctl talks to it: only
 * through the control program `nvidia-cuda-mps-control` and the commands
 * it documents on its standard input, one command per connection (a
 * command with an empty answer prints nothing, so two on one connection
 * cannot be told apart).  What the real daemon answers is kept in
 * bench/results/mps-facts-2026-11-26-h100/transcripts.txt, and the CI
 * stand-in (tests/mps/nvidia-cuda-mps-control) answers the same.
 *
 * Facts this rests on (H100, driver 580.159.04, MPS binary version 13000):
 *  - a daemon lives in its pipe directory: sockets `control` (0666) and
 *    `control_privileged` (0755), `control_lock`, and
 *    `nvidia-cuda-mps-control.pid`; without a daemon every command exits 1
 *    with "Cannot find MPS control daemon process" on stderr;
 *  - the server (comm nvidia-cuda-mps, one per user) starts on its first
 *    client; its 4 TSGs on its own RM client carry every client's kernels:
 *    their timeslice orders all its clients against other processes,
 *    the clients' own TSGs change nothing;
 *  - client priority and active thread percentage are read at client
 *    start ($CUDA_MPS_CLIENT_PRIORITY, $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE);
 *  - a client of another user waits until the server's clients are gone;
 *  - a server killed under its clients kills their CUDA contexts.
 */
#ifndef GPUCTL_DRV_MPS_H
#define GPUCTL_DRV_MPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MPS_CONTROL_NAME	"nvidia-cuda-mps-control"
#define MPS_SERVER_COMM		"nvidia-cuda-mps"	/* the server's comm (15 chars) */
/* Where a daemon started without $CUDA_MPS_PIPE_DIRECTORY listens: every CUDA process finds it. */
#define MPS_DEFAULT_PIPE_DIR	"/tmp/nvidia-mps"
#define MPS_PID_FILE		"nvidia-cuda-mps-control.pid"
/* $GPUCTL_MPS_CONTROL: the control program, instead of the search below. */
#define MPS_CONTROL_ENV		"GPUCTL_MPS_CONTROL"
#define MPS_MAX_PIDS		64

/* One daemon: its control program and its directories. */
struct mps {
	char bin[PATH_MAX];	/* the control program */
	char dir[PATH_MAX];	/* its pipe directory */
	char logdir[PATH_MAX];	/* its log directory */
};

/*
 * The control program: $GPUCTL_MPS_CONTROL, else the first executable
 * nvidia-cuda-mps-control on $PATH, /usr/local/nvidia/bin, /usr/bin.
 * 0, or -1 with why in err ("not found ..." or an untrusted file).
 * Only a program that root alone can write (file and directories) is run.
 */
int mps_find(char *bin, size_t len, char *err, size_t elen);

/*
 * dir may be a daemon's pipe directory that gpuctl uses: absolute, not
 * MPS_DEFAULT_PIPE_DIR, a directory (or absent when create) owned by root
 * that no one else can write, on a path no one else can write.  create
 * makes it (0755) and dir/../log beside it.  0, or -1 with why in err.
 */
int mps_dir_check(const char *dir, bool create, char *err, size_t len);

/* m for the daemon of pipe directory dir (logs in LOGDIR or dir-less sibling). */
int mps_init(struct mps *m, const char *dir, char *err, size_t len);

/*
 * One command on one connection: its standard output (trailing newline
 * removed) in out.  0 when the program exited 0; -1 with why in err (its
 * standard error's first line, a timeout, no such program).
 */
int mps_cmd(const struct mps *m, const char *line, char *out, size_t len, char *err,
	    size_t elen);

/* The daemon of m's directory (its pid file, the process alive and named so), or 0. */
pid_t mps_daemon_pid(const struct mps *m, uid_t *uid);

/* Starts a daemon on m's directory (`-d`) and waits for its pid file: 0, or -1 with err. */
int mps_start(const struct mps *m, char *err, size_t len);

/* get_server_list: how many pids (at most max), or -1 with err. */
int mps_servers(const struct mps *m, pid_t *pids, int max, char *err, size_t len);
/* get_client_list SERVER: how many pids, or -1 with err ("Server N not found"). */
int mps_clients(const struct mps *m, pid_t server, pid_t *pids, int max, char *err,
		size_t len);
/* get_/set_default_active_thread_percentage: the value the daemon then reports. */
int mps_default_threads(const struct mps *m, int set_pct, double *pct, char *err, size_t len);
/* quit: the daemon ends (its servers with it, once their clients are gone). */
int mps_quit(const struct mps *m, char *err, size_t len);

/* The control program's binary version (its -v: "13000"): 0, or -1 with err. */
int mps_version(const struct mps *m, char *ver, size_t len, char *err, size_t elen);

/* A server's (any process's) real uid, (uid_t)-1 when it is gone. */
uid_t mps_proc_uid(pid_t pid);

/*
 * A process's environment as it started (what MPS read of it: the pipe
 * directory it joined, its client priority, its thread percentage), its
 * first sizeof(buf) - 1 bytes.
 */
struct mps_proc_env {
	char buf[32768];
	size_t n;
};
/* pid's environment into e: 0, or -1 (gone, or not readable). */
int mps_proc_env_read(pid_t pid, struct mps_proc_env *e);
/* The value of name in e (its first), or NULL. */
const char *mps_proc_env_get(const struct mps_proc_env *e, const char *name);

/*
 * pid's part in MPS: "server" (its TSGs carry every client's work),
 * "client" (its environment names the pipe directory of a live daemon: its
 * own TSGs carry nothing), or NULL.
 */
const char *mps_role(pid_t pid);

/* Whether pid is an MPS server (comm nvidia-cuda-mps, not the control daemon). */
bool mps_is_server(pid_t pid);

#endif
