// SPDX-License-Identifier: GPL-2.0
/* json_writer.c - streaming JSON writer; see json_writer.h for the rules. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"
#include "text.h"

#define INDENT_WIDTH 4

struct level {
	bool is_object;
	unsigned int members;	/* values (arrays) or names (objects) so far */
};

struct json_writer {
	FILE *f;
	bool pretty;
	bool no_autoflush;
	bool name_pending;
	struct level *stack;
	unsigned int depth;
	unsigned int cap;
	unsigned long count;
	const char *stamp_name;	/* jsonw_stamp() */
	uint64_t stamp_val;
};

json_writer_t *jsonw_new(FILE *f)
{
	json_writer_t *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = f;
	return w;
}

void jsonw_destroy(json_writer_t **wp)
{
	json_writer_t *w = wp ? *wp : NULL;

	if (!w)
		return;
	jsonw_close_to(w, 0);
	fflush(w->f);
	free(w->stack);
	free(w);
	*wp = NULL;
}

void jsonw_stamp(json_writer_t *w, const char *name, uint64_t val)
{
	w->stamp_name = name;
	w->stamp_val = val;
}

void jsonw_pretty(json_writer_t *w, bool on)
{
	w->pretty = on;
}

void jsonw_flush(json_writer_t *w)
{
	fflush(w->f);
}

void jsonw_autoflush(json_writer_t *w, bool on)
{
	w->no_autoflush = !on;
}

unsigned int jsonw_depth(const json_writer_t *w)
{
	return w->depth;
}

bool jsonw_in_object(const json_writer_t *w)
{
	return w->depth && w->stack[w->depth - 1].is_object;
}

bool jsonw_name_pending(const json_writer_t *w)
{
	return w->name_pending;
}

unsigned long jsonw_count(const json_writer_t *w)
{
	return w->count;
}

static void newline_indent(json_writer_t *w, unsigned int depth)
{
	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (unsigned int i = 0; i < depth * INDENT_WIDTH; i++)
		fputc(' ', w->f);
}

/* Escaped by the helper every writer uses (text.c): invalid UTF-8 as \\ufffd. */
static void write_quoted(json_writer_t *w, const char *str)
{
	fputc('"', w->f);
	fput_escaped(w->f, str, SIZE_MAX, TXT_JSON);
	fputc('"', w->f);
}

/* Separator, indentation and name bookkeeping before any value. */
static void begin_value(json_writer_t *w)
{
	w->count++;
	if (!w->depth)
		return;
	struct level *top = &w->stack[w->depth - 1];

	if (top->is_object) {
		if (!w->name_pending) {
			fprintf(stderr, "json_writer: value in an object without a name\n");
			jsonw_name(w, "");
		}
		w->name_pending = false;
		return;
	}
	if (top->members)
		fputc(',', w->f);
	newline_indent(w, w->depth);
	top->members++;
}

/* After a value: a finished top-level document ends its line. */
static void end_value(json_writer_t *w)
{
	if (!w->depth) {
		fputc('\n', w->f);
		if (!w->no_autoflush)
			fflush(w->f);
	}
}

void jsonw_name(json_writer_t *w, const char *name)
{
	if (!jsonw_in_object(w)) {
		fprintf(stderr, "json_writer: name '%s' outside an object\n",
			name ? name : "");
		return;
	}
	if (w->name_pending)
		jsonw_null(w);
	struct level *top = &w->stack[w->depth - 1];

	if (top->members)
		fputc(',', w->f);
	newline_indent(w, w->depth);
	top->members++;
	write_quoted(w, name ? name : "");
	fputs(w->pretty ? ": " : ":", w->f);
	w->name_pending = true;
}

static void start_container(json_writer_t *w, bool is_object)
{
	begin_value(w);
	if (w->depth == w->cap) {
		unsigned int cap = w->cap ? w->cap * 2 : 16;
		struct level *st = realloc(w->stack, cap * sizeof(*st));

		if (!st) {
			/* Cannot track it: write an empty container instead. */
			fputs(is_object ? "{}" : "[]", w->f);
			end_value(w);
			return;
		}
		w->stack = st;
		w->cap = cap;
	}
	w->stack[w->depth].is_object = is_object;
	w->stack[w->depth].members = 0;
	w->depth++;
	fputc(is_object ? '{' : '[', w->f);
}

/* Closes the innermost container, whichever kind it is. */
static void end_container(json_writer_t *w)
{
	if (!w->depth)
		return;
	if (w->name_pending)
		jsonw_null(w);
	if (w->stamp_name && w->stack[w->depth - 1].is_object &&
	    (w->depth == 1 || (w->depth == 2 && !w->stack[0].is_object))) {
		const char *name = w->stamp_name;

		w->stamp_name = NULL;	/* not again inside its own value */
		jsonw_uint_field(w, name, w->stamp_val);
		w->stamp_name = name;
	}
	struct level *top = &w->stack[w->depth - 1];

	if (top->members)
		newline_indent(w, w->depth - 1);
	fputc(top->is_object ? '}' : ']', w->f);
	w->depth--;
	end_value(w);
}

void jsonw_start_object(json_writer_t *w)
{
	start_container(w, true);
}

void jsonw_start_array(json_writer_t *w)
{
	start_container(w, false);
}

void jsonw_end_object(json_writer_t *w)
{
	end_container(w);
}

void jsonw_end_array(json_writer_t *w)
{
	end_container(w);
}

void jsonw_close_to(json_writer_t *w, unsigned int depth)
{
	while (w->depth > depth)
		end_container(w);
	if (w->depth == depth && w->name_pending && jsonw_in_object(w))
		jsonw_null(w);
}

void jsonw_string(json_writer_t *w, const char *val)
{
	if (!val) {
		jsonw_null(w);
		return;
	}
	begin_value(w);
	write_quoted(w, val);
	end_value(w);
}

void jsonw_vstringf(json_writer_t *w, const char *fmt, va_list ap)
{
	char *buf = NULL;

	if (vasprintf(&buf, fmt, ap) < 0) {
		jsonw_null(w);
		return;
	}
	jsonw_string(w, buf);
	free(buf);
}

void jsonw_stringf(json_writer_t *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	jsonw_vstringf(w, fmt, ap);
	va_end(ap);
}

void jsonw_raw(json_writer_t *w, const char *json, size_t len)
{
	while (len && (json[len - 1] == '\n' || json[len - 1] == ' '))
		len--;
	if (!len || memchr(json, '\n', len)) {	/* nothing, or more than one document */
		jsonw_null(w);
		return;
	}
	begin_value(w);
	fwrite(json, 1, len, w->f);
	end_value(w);
}

void jsonw_uint(json_writer_t *w, uint64_t val)
{
	begin_value(w);
	fprintf(w->f, "%" PRIu64, val);
	end_value(w);
}

void jsonw_u64(json_writer_t *w, uint64_t val)
{
	jsonw_uint(w, val);
}

void jsonw_int(json_writer_t *w, int64_t val)
{
	begin_value(w);
	fprintf(w->f, "%" PRId64, val);
	end_value(w);
}

void jsonw_float(json_writer_t *w, double val)
{
	char buf[64];

	if (!isfinite(val)) {
		jsonw_null(w);
		return;
	}
	/* The shortest of the usual precisions that reads back the same. */
	snprintf(buf, sizeof(buf), "%.15g", val);
	if (strtod(buf, NULL) != val)
		snprintf(buf, sizeof(buf), "%.17g", val);
	begin_value(w);
	fputs(buf, w->f);
	end_value(w);
}

void jsonw_bool(json_writer_t *w, bool val)
{
	begin_value(w);
	fputs(val ? "true" : "false", w->f);
	end_value(w);
}

void jsonw_null(json_writer_t *w)
{
	begin_value(w);
	fputs("null", w->f);
	end_value(w);
}

void jsonw_string_field(json_writer_t *w, const char *name, const char *val)
{
	jsonw_name(w, name);
	jsonw_string(w, val);
}

void jsonw_stringf_field(json_writer_t *w, const char *name, const char *fmt, ...)
{
	va_list ap;

	jsonw_name(w, name);
	va_start(ap, fmt);
	jsonw_vstringf(w, fmt, ap);
	va_end(ap);
}

void jsonw_uint_field(json_writer_t *w, const char *name, uint64_t val)
{
	jsonw_name(w, name);
	jsonw_uint(w, val);
}

void jsonw_int_field(json_writer_t *w, const char *name, int64_t val)
{
	jsonw_name(w, name);
	jsonw_int(w, val);
}

void jsonw_u64_field(json_writer_t *w, const char *name, uint64_t val)
{
	jsonw_name(w, name);
	jsonw_u64(w, val);
}

void jsonw_float_field(json_writer_t *w, const char *name, double val)
{
	jsonw_name(w, name);
	jsonw_float(w, val);
}

void jsonw_bool_field(json_writer_t *w, const char *name, bool val)
{
	jsonw_name(w, name);
	jsonw_bool(w, val);
}

void jsonw_null_field(json_writer_t *w, const char *name)
{
	jsonw_name(w, name);
	jsonw_null(w);
}
