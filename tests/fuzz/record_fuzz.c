// SPDX-License-Identifier: GPL-2.0
/*
 * record_fuzz - libFuzzer target for `gpuctl trace report`: the record
 * reader and everything report prints from it (cmd/trace/report.c: the
 * summary, event lines, the SVG, the model trace), text and JSON, run
 * in-process on each input.  Any input must give a report or exactly one
 * error, exit code 0 or 1, output bounded by the input's size, and no
 * control byte in the output; never a crash, a hang or a sanitizer report.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Icmd -Icmd/lib -Icmd/drv -Ibpf \
 *       tests/fuzz/record_fuzz.c \
 *       cmd/trace/{record,summary,events,report,recload,heat,svg,svg_axes,export}.c \
 *       cmd/lib/{output,json_writer,text,safefile,units}.c cmd/drv/rm.c -o record_fuzz
 * Seeds: tests/fuzz/record_gen corpus (tests/unit/test_record_fuzz.sh).
 * p_err's lines go to stderr: run it with -close_fd_mask=2 (libFuzzer keeps
 * its own reports).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "trace/record.h"
#include "trace/report.h"

/* The modes report runs in; the SVG goes nowhere or to the text output. */
static const struct {
	bool json;
	struct report_opts o;
	unsigned int factor;	/* output bound: factor x input + 64 KiB */
} modes[] = {
	{ false, { "summary", "faults", 10, NULL }, 8 },
	{ false, { "events", "bytes", 3, "/dev/null" }, 8 },
	{ false, { "model", "address", 10, NULL }, 8 },
	{ true, { "summary", "address", 10, "/dev/null" }, 8 },
	{ true, { "events", "faults", 10, NULL }, 8 },
	{ false, { "csv", "faults", 10, NULL }, 8 },
	/* a new process or track is named once: a GPU name (256 bytes) escaped */
	{ false, { "chrome", "faults", 10, NULL }, 32 },
	/* the SVG: a cell a fault, at most rows x columns of each kind */
	{ false, { "summary", "faults", 10, "-" }, 4096 },
};

/*
 * Newlines, printable ASCII and valid UTF-8 characters other than C1
 * controls and bidi controls: what text.c's escapes let through (a record
 * names its host and processes in UTF-8, and a reader sees them so).
 */
static bool term_safe(const unsigned char *p, size_t n)
{
	unsigned int cp = n == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu) :
			  n == 3 ? (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu) :
				   (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 |
				   (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);

	return !((cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || (cp >= 0x200e && cp <= 0x200f) ||
		 (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069));
}

static void check_bytes(const char *buf, size_t len)
{
	for (size_t i = 0; i < len;) {
		const unsigned char *p = (const unsigned char *)buf + i;
		size_t n = utf8_seq_len(p, len - i);

		if (n == 1 && *p != '\n' && (*p < 0x20 || *p > 0x7e))
			__builtin_trap();
		if (n != 1 && (!n || !term_safe(p, n)))
			__builtin_trap();
		i += n;
	}
}

static void run(const uint8_t *data, size_t size, int m)
{
	char *text = NULL, *json = NULL;
	size_t text_len = 0, json_len = 0;
	/* An empty input is an empty file (fmemopen wants a size). */
	FILE *in = size ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
	FILE *out = open_memstream(&text, &text_len);
	FILE *jout = open_memstream(&json, &json_len);
	unsigned long errs = p_err_count;
	int rc;

	if (!in || !out || !jout)
		abort();
	json_output = modes[m].json;
	json_wtr = json_output ? jsonw_new(jout) : NULL;
	rc = tr_report(in, "fuzz", &modes[m].o, out);
	if (json_wtr)
		jsonw_destroy(&json_wtr);
	json_output = false;
	fclose(in);
	fclose(out);
	fclose(jout);
	if (rc != 0 && rc != 1)
		__builtin_trap();	/* exit codes 0 and 1 only: 2 is the command line's */
	if (p_err_count - errs != (rc ? 1u : 0u))
		__builtin_trap();	/* a failure says why, once; a success says nothing */
	/* Event lines are some hundred bytes per event of at least 56; the rest is fixed. */
	if (text_len + json_len > modes[m].factor * size + 65536)
		__builtin_trap();
	check_bytes(text, text_len);
	check_bytes(json, json_len);
	free(text);
	free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		run(data, size, (int)m);
	return 0;
}
