/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svg.h - the heat map of a record as a plain SVG (svg.c draws, heat.c
 * counts, svg_axes.c writes the axes and labels): a title with the record's
 * host, driver, span and GPUs; per GPU one panel per kind of event (faults
 * read / write, migrations by cause, evictions, CPU faults), address down
 * by time across, with time ticks in units scaled to the span, offset ticks
 * (B..TiB) from each allocation's start, the allocations' boundaries and
 * names, a colour key of counts per cell; strips for replays, thrashing,
 * evictions without an address and lost events; the TSGs' lives on the
 * same time axis; a legend of processes; notes of what was merged.
 * gpuctl-trace(8) explains how to read it.
 */
#ifndef GPUCTL_TRACE_SVG_H
#define GPUCTL_TRACE_SVG_H

#include <stdio.h>

#include "recload.h"

/* The picture of l on out: 0, or -errno (no memory, a write failed). */
int svg_write(FILE *out, const struct rl *l);

#endif
