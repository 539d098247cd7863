/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svg_axes.h - the pieces of the heat map that are text and lines (svg_axes.c):
 * escaping, the time axis's ticks, an allocation's offset ticks, the
 * colour ramps and their key.  Numbers on ticks are exact: a tick's label is
 * its value in the axis's one unit with as many decimals as the step needs.
 */
#ifndef GPUCTL_TRACE_SVG_AXES_H
#define GPUCTL_TRACE_SVG_AXES_H

#include <stdint.h>
#include <stdio.h>

/* Layout, in pixels (user units). */
#define SV_CW 4			/* a cell's width ... */
#define SV_CH 4			/* ... and height */
#define SV_X0 100		/* the grid's left edge */
#define SV_GW (200 * SV_CW)	/* the grid's width (HM_COLS columns) */
#define SV_RIGHT 290		/* labels right of the grid */
#define SV_WIDTH (SV_X0 + SV_GW + SV_RIGHT)
#define SV_LINE 14		/* a line of text */

/* s[n] as SVG text: XML specials as entities, bytes outside ASCII as \xNN. */
void sv_esc(FILE *o, const char *s, size_t n);

/*
 * The time axis: [tmin, tmin + span] (ns after the record's start), labelled
 * from the record's start when the events begin within one span of it,
 * else from the first event (origin = tmin); the axis's title says which.
 */
struct sv_time {
	uint64_t tmin, span, origin, step, unit;
	int decimals;
	const char *uname;	/* as SVG text: "ns", "&#181;s", "ms", "s" */
};
void sv_time_axis(struct sv_time *t, uint64_t tmin, uint64_t span);
/* "12.5 ms" (SVG text) for v ns after the origin. */
void sv_time_label(const struct sv_time *t, uint64_t v, char *buf, size_t len);
/* The x of time v (ns after the record's start). */
double sv_time_x(const struct sv_time *t, uint64_t v);
/* A label row of the time axis at y. */
void sv_time_ticks(FILE *o, const struct sv_time *t, double y);
/* Light vertical lines at the ticks, from y0 to y1. */
void sv_time_grid(FILE *o, const struct sv_time *t, double y0, double y1);

/*
 * Offset ticks for [0, len - 1] (len_m1 = len - 1) drawn over px pixels
 * from y: "+0", "+16 MiB", ... right-aligned left of the grid.
 */
void sv_offset_ticks(FILE *o, uint64_t len_m1, double y, double px);

/* The fill for a count of peak in kind's hue (levels: at most SV_LEVELS). */
#define SV_LEVELS 7
void sv_fill(int kind, uint32_t count, uint32_t peak, char *buf, size_t len);
/* The colour key of kind for peak, one row from x at y: swatches and their counts. */
void sv_key(FILE *o, int kind, uint32_t peak, double x, double y);

#endif
