/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_writer.h - a small streaming JSON writer.
 *
 * Values are written as they come; the writer keeps a stack of the open
 * objects and arrays so that separators, names and indentation come out
 * right.  Whatever the caller does, the output stays valid JSON:
 *   - strings are escaped (quotes, backslash, control characters) and bytes
 *     that are not valid UTF-8 become U+FFFD;
 *   - NaN and infinities are written as null;
 *   - a value inside an object without a name gets the name "" (and a
 *     warning on stderr), a name inside an array is dropped;
 *   - closing with a name pending writes null for it; jsonw_destroy() closes
 *     everything still open.
 * Each complete top-level value ends with a newline, so a writer can carry
 * several documents in a row (one per line when not pretty).
 */
#ifndef GPUCTL_JSON_WRITER_H
#define GPUCTL_JSON_WRITER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_writer json_writer_t;

json_writer_t *jsonw_new(FILE *f);
/* Closes whatever is still open, flushes, frees, and sets *w to NULL. */
void jsonw_destroy(json_writer_t **w);
void jsonw_pretty(json_writer_t *w, bool on);
/*
 * name: val as the last member of every document: each top-level object,
 * and each object that is an element of a top-level array (a list's rows,
 * batch's results).  name NULL: none (the default).
 */
void jsonw_stamp(json_writer_t *w, const char *name, uint64_t val);
void jsonw_flush(json_writer_t *w);
/*
 * Whether each complete top-level document is flushed at once (the
 * default).  A stream of many small documents turns it off and flushes
 * when it has written a batch.
 */
void jsonw_autoflush(json_writer_t *w, bool on);

void jsonw_start_object(json_writer_t *w);
void jsonw_end_object(json_writer_t *w);
void jsonw_start_array(json_writer_t *w);
void jsonw_end_array(json_writer_t *w);
void jsonw_name(json_writer_t *w, const char *name);

void jsonw_string(json_writer_t *w, const char *val);	/* NULL writes null */
void jsonw_stringf(json_writer_t *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void jsonw_vstringf(json_writer_t *w, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void jsonw_uint(json_writer_t *w, uint64_t val);
void jsonw_int(json_writer_t *w, int64_t val);
void jsonw_u64(json_writer_t *w, uint64_t val);
void jsonw_float(json_writer_t *w, double val);
void jsonw_bool(json_writer_t *w, bool val);
void jsonw_null(json_writer_t *w);
/*
 * One whole JSON document another writer made (gpuctl's own, from a child),
 * as a value; the trailing newline dropped; null when it is empty or more
 * than one line.  The caller vouches that it is JSON.
 */
void jsonw_raw(json_writer_t *w, const char *json, size_t len);

/* name + value in one call. */
void jsonw_string_field(json_writer_t *w, const char *name, const char *val);
void jsonw_stringf_field(json_writer_t *w, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void jsonw_uint_field(json_writer_t *w, const char *name, uint64_t val);
void jsonw_int_field(json_writer_t *w, const char *name, int64_t val);
void jsonw_u64_field(json_writer_t *w, const char *name, uint64_t val);
void jsonw_float_field(json_writer_t *w, const char *name, double val);
void jsonw_bool_field(json_writer_t *w, const char *name, bool val);
void jsonw_null_field(json_writer_t *w, const char *name);

/* State, for callers that must keep the output valid across errors. */
unsigned int jsonw_depth(const json_writer_t *w);	/* 0: top level */
bool jsonw_in_object(const json_writer_t *w);	/* innermost is an object */
bool jsonw_name_pending(const json_writer_t *w);	/* a name waits for its value */
/* Counts values started so far (containers and scalars); never goes down. */
unsigned long jsonw_count(const json_writer_t *w);
/* Closes open containers until depth is reached (null for a pending name). */
void jsonw_close_to(json_writer_t *w, unsigned int depth);

#endif
