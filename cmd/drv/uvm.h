/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uvm.h - acting on another process's UVM va_space through its borrowed
 * /dev/nvidia-uvm file (uvm.c): UVM_MIGRATE, the range hints, the GPUs it
 * uses; its managed allocations from /proc/PID/maps (uvm_maps.c).  The
 * ABI: uvm_ioctl.h.
 */
#ifndef GPUCTL_DRV_UVM_H
#define GPUCTL_DRV_UVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "uvm_ioctl.h"

/* Exit code for "the process cannot be acted on" is EXIT_FAIL; see gpuctl-prefetch(8). */

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (or without GPU-): 0, or -1. */
int uuid_parse(const char *s, struct uvm_uuid *u);
/* The same form into buf[len] (len >= 41); returns buf. */
const char *uuid_format(const struct uvm_uuid *u, char *buf, size_t len);
bool uuid_is_cpu(const struct uvm_uuid *u);
extern const struct uvm_uuid uvm_cpu_uuid;

/* The text for an NV_STATUS the UVM calls answer. */
const char *uvm_status_text(uint32_t st);

/*
 * The GPUs pid's va_space uses (UUID table, V2 then V1): how many, into
 * gpus[max] (parent GPUs, by index), -errno when the table is unreadable.
 */
int uvm_gpus(int uvm_fd, struct uvm_uuid *gpus, int max);

/*
 * The same table by UVM's parent GPU index (the index tools events carry):
 * gpus[i] for i < the returned count, a zero UUID where there is none.
 */
int uvm_gpus_by_index(int uvm_fd, struct uvm_uuid *gpus, int max);

/* UVM_MIGRATE: 0 and *st = the driver's status; -errno when the ioctl failed. */
int uvm_migrate(int uvm_fd, uint64_t base, uint64_t len, const struct uvm_uuid *dst,
		bool async, uint32_t *st);

enum uvm_hint {
	HINT_PREFERRED,		/* preferred location: dst */
	HINT_UNSET_PREFERRED,
	HINT_ACCESSED_BY,	/* mapped for dst */
	HINT_UNSET_ACCESSED_BY,
	HINT_READ_DUP,
	HINT_UNSET_READ_DUP,
	HINT_NR,
};
extern const char *const uvm_hint_names[HINT_NR];
int uvm_hint(int uvm_fd, enum uvm_hint h, uint64_t base, uint64_t len,
	     const struct uvm_uuid *dst, uint32_t *st);

/* --- uvm_maps.c: the process's managed allocations --------------------------- */

struct uvm_extent {
	uint64_t start, end;
};

struct uvm_maps {
	pid_t pid;
	struct uvm_extent *x;
	int n, cap;
	double loaded_s;	/* mono_s() of the last read */
	uint64_t reads;
};

void uvm_maps_init(struct uvm_maps *m, pid_t pid);
/* Reads the lines of a maps file (what load does with /proc/PID/maps). */
int uvm_maps_parse(struct uvm_maps *m, FILE *f);
/*
 * Each /dev/nvidia-uvm mapping of pid, as the kernel lists it (accessible:
 * managed memory; not: CUDA's reservation): fn's first nonzero answer, 0,
 * or -errno when the maps cannot be read.
 */
int uvm_maps_each(pid_t pid, int (*fn)(uint64_t s, uint64_t e, bool accessible, void *arg),
		  void *arg);
/* Reads /proc/PID/maps again: 0, or -errno. */
int uvm_maps_load(struct uvm_maps *m);
/* Whether [base, base + len) lies inside managed memory (one or more touching extents). */
bool uvm_maps_covers(struct uvm_maps *m, uint64_t base, uint64_t len);
void uvm_maps_free(struct uvm_maps *m);

#endif
