/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liveproc.h - the one live-process check: a process is named by more than
 * its number.  A gpuctl pid file holds "PID STARTTIME BOOT_ID DEV:INO"
 * (start time: field 22 of /proc/PID/stat, in clock ticks since boot; boot
 * id: /proc/sys/kernel/random/boot_id; the executable's device and inode,
 * from /proc/PID/exe), written by pidfile_write().  It names a live process
 * only while a process with that pid, start time, boot id and executable
 * exists: a pid reused by another program (even within the same clock
 * tick), a file from an earlier boot, or one in another format names none.  Signals go through a pidfd
 * opened first and verified after, so the process checked is the process
 * signalled.
 */
#ifndef GPUCTL_LIVEPROC_H
#define GPUCTL_LIVEPROC_H

#include <stdbool.h>
#include <sys/types.h>

/* Process pid's start time (field 22 of /proc/PID/stat): 0, or -errno. */
int proc_start_time(pid_t pid, unsigned long long *start);
/* This boot's id into buf (37 bytes): 0, or -errno. */
int proc_boot_id(char *buf, size_t len);

/*
 * What the pid file at path says: 1 a gpuctl pid file (pid and identity
 * filled; an earlier gpuctl's bare "PID" line: boot "", never live), 0
 * empty, -EINVAL not a gpuctl pid file, other -errno.
 */
struct pidfile_rec {
	pid_t pid;
	unsigned long long start;
	char boot[40];
	unsigned long long exe_dev, exe_ino;
};
/* Process pid's executable (device, inode): 0, or -errno. */
int proc_exe_id(pid_t pid, unsigned long long *dev, unsigned long long *ino);
int pidfile_read(const char *path, struct pidfile_rec *rec);
/* Whether rec names a process alive now (same pid, start time, boot, executable). */
bool pidfile_rec_live(const struct pidfile_rec *rec);

/*
 * A pidfd of the process the pid file at path names, verified after it was
 * opened (so it cannot be a process that reused the pid): fd (pid in *pid),
 * or -ESRCH when none lives, or another -errno.
 */
int pidfile_pidfd(const char *path, pid_t *pid);
/*
 * Sends sig through that verified pidfd and waits up to wait_ms for the
 * process to end: 0 (*pid: the process, 0 when none lived), -ETIMEDOUT,
 * or -errno of the signal.
 */
int pidfile_stop(const char *path, int sig, int wait_ms, pid_t *pid);

#endif
