/* SPDX-License-Identifier: GPL-2.0 */
/*
 * safefile.h - the one way gpuctl writes a file (it runs as root, often in
 * directories other users can write): an anonymous temporary file
 * (O_TMPFILE; else one created exclusively, never following a link, never
 * truncating what gpuctl did not create) beside the destination, written,
 * fsync'ed, named, and renamed into place only while that name is still
 * gpuctl's file (same device and inode as the open descriptor).  An
 * output that exists and is not a regular file (a symbolic link, a device
 * node, a directory, a FIFO, a socket) is refused with one "Error: ..."
 * line; the command then exits EXIT_FAIL (1).  On failure only the
 * temporary file, which gpuctl created, is removed.
 */
#ifndef GPUCTL_SAFEFILE_H
#define GPUCTL_SAFEFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct safefile {
	FILE *f;		/* write here (buffered) */
	int dirfd;		/* the destination's directory */
	char *dest;		/* as given, for messages */
	char *base;		/* the destination's name in dirfd */
	char tmp[64];		/* the temporary file's name in dirfd, "" when none (yet) */
};

/*
 * Checks path (absent or a regular file), creates the temporary file with
 * mode: 0, or p_err and -1 (nothing created).
 */
int safefile_open(struct safefile *sf, const char *path, mode_t mode);
/*
 * Flushes, fsyncs and renames into place: 0, or p_err ("cannot write
 * PATH: ...") and -1 with the temporary file removed (a name that no longer
 * is gpuctl's file is left alone; a link renamed onto PATH in the race is
 * removed).  Frees sf either way.
 */
int safefile_commit(struct safefile *sf);
/* Removes the temporary file and frees sf (when sf was opened; safe twice). */
void safefile_abort(struct safefile *sf);
/*
 * The check alone: 0 when path is absent or a regular file, else p_err
 * ("refusing to write PATH: it is a symbolic link ...") and -1.
 */
int safefile_check(const char *path);
/*
 * Whether name is the name of a temporary file safefile_open made (one a
 * kill left behind): true with its destination's name in base (len bytes).
 */
bool safefile_tmp_of(const char *name, char *base, size_t len);

#endif
