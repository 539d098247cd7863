/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trustfile.h - the one way gpuctl reads a file whose contents it runs as
 * root's kernel code (a user's BPF object): opened once, never following a
 * final symbolic link, never blocking (a FIFO, a device), refused unless it
 * is a regular file that only root or the user who ran sudo can write —
 * through its own owner and mode or any directory on its real path — and
 * read whole into memory.  Every check and the load then use those bytes:
 * a file swapped after the check is not the one loaded.
 */
#ifndef GPUCTL_TRUSTFILE_H
#define GPUCTL_TRUSTFILE_H

#include <stdbool.h>
#include <stddef.h>

/* The largest file read (a BPF object of a policy is a few hundred KiB). */
#define TRUST_FILE_MAX (16u << 20)

struct trusted_file {
	void *data;		/* malloc'ed, size bytes (+ a NUL) */
	size_t size;
};

/*
 * Reads path as above: 0 with *tf filled (free with trust_file_free), or
 * -1 after one p_err line naming the path and why (quiet: no line).
 */
int trust_file_read(const char *path, struct trusted_file *tf, bool quiet);
void trust_file_free(struct trusted_file *tf);

#endif
