/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export.h - a record in open formats (export.c):
 *   chrome  the Chrome trace-event JSON (an object with "traceEvents") that
 *           Perfetto's UI and chrome://tracing open: one process per pid
 *           (named "comm pid"), one track per GPU in it ("GPU 0: name"),
 *           "no GPU" for the rest and "TSGs" for rm events; faults, replays,
 *           evictions, allocations and TSG events as instants, migrations
 *           and fault batches as spans of their latency (instants when
 *           unknown); every field of the event in args; each TSG's life a
 *           span from its creation to its free.  More than
 *           EX_CHROME_MAX events: counted per track, kind and time bin, each
 *           bin one span with its count ("merged" in otherData and a
 *           global instant say so), so the file stays bounded.
 *   csv     a header row, then one row an event in the record's order (records
 *           merged: in time order); columns in gpuctl-trace(8).
 * Strings from the record are escaped (JSON, CSV quoting; bytes outside
 * printable ASCII as \xNN).
 */
#ifndef GPUCTL_TRACE_EXPORT_H
#define GPUCTL_TRACE_EXPORT_H

#include <stdio.h>

#include "recload.h"

#define EX_CHROME_MAX 500000

/* 0, or -errno (no memory, a write failed). */
int export_chrome(FILE *out, const struct rl *l);
int export_csv(FILE *out, const struct rl *l);

#endif
