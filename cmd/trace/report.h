/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what gpuctl trace prints: event lines, live and from a record
 * (events.c), and the report of a record: summary, events, the fault
 * heatmap and the model trace (report.c).  Text goes to a FILE, JSON to
 * json_wtr (one document per event line); anything that came from outside
 * (a record, a process name) is escaped before it reaches a terminal.
 */
#ifndef GPUCTL_TRACE_REPORT_H
#define GPUCTL_TRACE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_uvm.h"

/* The column header of event lines (text only: nothing under -j). */
void tr_print_header(FILE *out, bool tsg);
/*
 * One event, its time relative to t0: a text line on out, or one JSON
 * document under -j.  comm: its process's name when known, else NULL.
 */
void tr_print_event(FILE *out, const struct gt_event *e, uint64_t t0, const char *comm);

struct report_opts {
	const char *format;	/* "summary", "events", "model", "chrome", "csv" */
	const char *sort;	/* hot ranges by "faults", "bytes", "address" */
	unsigned int top;	/* how many hot ranges */
	const char *svg;	/* the heatmap's file ("-": out), or NULL */
};

/*
 * Reads the record in (name: how errors call it) and prints what o asks on
 * out.  Under -j, model output and an SVG on out cannot be had (the caller
 * refuses them).  An exit code, after p_err when it is not 0.
 */
int tr_report(FILE *in, const char *name, const struct report_opts *o, FILE *out);
/*
 * The same for n records (at most RL_MAX_INPUTS, recload.h) read one after
 * the other: summed together; the pictures and open formats merge them on
 * their real-time starts.
 */
int tr_report_many(FILE *const *in, const char *const *names, int n,
		   const struct report_opts *o, FILE *out);
/* The same for the files at paths ("-": standard input, once): opened, read, closed. */
int tr_report_files(const char *const *paths, int n, const struct report_opts *o, FILE *out);

#endif
