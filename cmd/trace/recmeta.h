/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recmeta.h - what `trace record` writes beside the driver's events
 * (record format version 2, record.h): each process's name and its managed
 * allocations the first time one of its events comes, allocations again when
 * a fault lands outside every one known (the maps read at most every
 * 100 ms a process), and each GPU's UUID and name the first time an event
 * names its index (uvm-tools: nvidia-smi's index, RM's list).  Allocations come from /proc/PID/maps (uvm_maps.c): an
 * ALLOC's time is when the recorder saw it (GT_F_FROM_MAPS), not when the
 * process made it.
 */
#ifndef GPUCTL_TRACE_RECMETA_H
#define GPUCTL_TRACE_RECMETA_H

#include <stdbool.h>
#include <stdio.h>

#include "trace_uvm.h"

struct recmeta;

/*
 * gpu_names: the back-end's GPU index is nvidia-smi's (uvm-tools), so RM's
 * list names it; the bpf back-end's is UVM's own and stays unnamed.
 */
struct recmeta *recmeta_new(bool gpu_names);
void recmeta_free(struct recmeta *m);
/*
 * Before event e goes to out: the tables it needs first.  comm: its
 * process's name when the back-end knows it, else NULL (/proc is read).
 * 0 or -errno (a write failed).
 */
int recmeta_before(struct recmeta *m, FILE *out, const struct gt_event *e, const char *comm);

#endif
