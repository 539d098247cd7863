/* SPDX-License-Identifier: GPL-2.0 */
/*
 * units.h - the one grammar of sizes, durations and percentages (units.c):
 * what every option of kind size, duration or percent takes, and how text
 * output, reports and pictures print them for people.  gpuctl(8), UNITS,
 * is the user's side of this header.
 *
 * Parsing (a whole word; a space between number and unit is allowed):
 *   size      a whole number of bytes, or a decimal number and a unit:
 *             B; K M G T P (also k m g t p), KiB MiB GiB TiB PiB and
 *             Ki Mi Gi Ti Pi: powers of 1024;  kB KB MB GB TB PB: powers of
 *             1000 (as dd(1) reads them).  0x... (hex) is a bare byte count.
 *             "4GiB" "512M" "1.5G" "4096" "0x1000".
 *   duration  a decimal number and a unit: ns, us (also µs, μs), ms, s, m or
 *             min, h; a bare number is in the unit the option declares
 *             (bare_ns; 0: the option wants a unit).  "500ms" "2s" "1.5m".
 *   percent   a decimal number, '%' optional: "10%" "12.5" "100%".
 * A fraction must come to a whole byte (nanosecond): "0.5K" is 512 bytes,
 * "0.1K" is refused.  No sign, no exponent, no spaces around the word.
 *
 * Printing: UNITS_HUMAN (the default) rounds to the largest unit that keeps
 * the number at 1 or more: one decimal below 10, whole above ("1.0 MiB",
 * "512 MiB", "2.1 s", "70 us"); UNITS_EXACT writes the largest unit that
 * divides the value with no space ("4KiB", "100ms": the parser reads it
 * back), used for bounds in error lines.  Microseconds are "us" (ASCII:
 * safe in every locale, CSV and log, and what the parser takes back);
 * UNITS_MICRO_SIGN asks for "µs" (UTF-8), for pictures.
 */
#ifndef GPUCTL_LIB_UNITS_H
#define GPUCTL_LIB_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull

/* Long enough for every string the printers write. */
#define UNITS_BUF 32

enum units_flags {
	UNITS_HUMAN = 0,
	UNITS_EXACT = 1,	/* exact, no space: parseable back */
	UNITS_MICRO_SIGN = 2,	/* "µs" instead of "us" */
};

/*
 * The parsers: 0 with the value, or -EINVAL (not this grammar) / -ERANGE
 * (past 2^64 - 1 bytes or nanoseconds) with why[len] saying what is wrong
 * ("unknown unit 'Q' (sizes take B, K, M, G, T, KiB, ...)").  Nothing printed.
 */
int units_size(const char *arg, uint64_t *bytes, char *why, size_t len);
int units_duration(const char *arg, uint64_t bare_ns, uint64_t *ns, char *why, size_t len);
int units_percent(const char *arg, double *pct, char *why, size_t len);

/* The printers: into buf[len] (UNITS_BUF is enough), returned. */
const char *units_fmt_size(uint64_t bytes, unsigned int flags, char *buf, size_t len);
const char *units_fmt_duration(uint64_t ns, unsigned int flags, char *buf, size_t len);
const char *units_fmt_percent(double pct, char *buf, size_t len);

/*
 * The same for a command line: 0, or one error line ("invalid WHAT 'ARG':
 * WHY", "invalid WHAT 'ARG': must be between MIN and MAX" with the bounds
 * in exact units) and -EINVAL or -ERANGE.  parse_duration's bare_ns as
 * above.
 */
int parse_size(const char *what, const char *arg, uint64_t min, uint64_t max, uint64_t *out);
int parse_duration(const char *what, const char *arg, uint64_t bare_ns, uint64_t min_ns,
		   uint64_t max_ns, uint64_t *out_ns);
int parse_percent(const char *what, const char *arg, double min, double max, double *out);

#endif
