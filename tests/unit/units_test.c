// SPDX-License-Identifier: GPL-2.0
/*
 * units_test.c - the grammar of sizes, durations and percentages
 * (cmd/lib/units.c): what parses to what, what is refused and with which
 * words, how values print, and that the exact form parses back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "units.h"

static int pass, fail;
#define CHECK(c) do { if (c) pass++; else { fail++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

/* The error line parse_* would print (gpuctl's p_err escapes and prints it). */
static char last_err[512];
static int nerr;
void p_err(const char *fmt, ...)
{
	va_list ap;

	nerr++;
	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
}

static uint64_t size_ok(const char *s)
{
	char why[160] = "";
	uint64_t v = 12345;

	if (units_size(s, &v, why, sizeof(why))) {
		printf("  size '%s' refused: %s\n", s, why);
		return 12345;
	}
	return v;
}

static int size_bad(const char *s, const char *want)
{
	char why[160] = "";
	uint64_t v = 7;
	int err = units_size(s, &v, why, sizeof(why));

	if (!err || v != 7 || !strstr(why, want)) {
		printf("  size '%s': err %d v %llu why '%s' (wanted '%s')\n", s, err,
		       (unsigned long long)v, why, want);
		return 0;
	}
	return err;
}

static uint64_t dur_ok(const char *s, uint64_t bare)
{
	char why[160] = "";
	uint64_t v = 12345;

	if (units_duration(s, bare, &v, why, sizeof(why))) {
		printf("  duration '%s' refused: %s\n", s, why);
		return 12345;
	}
	return v;
}

static int dur_bad(const char *s, uint64_t bare, const char *want)
{
	char why[160] = "";
	uint64_t v = 7;
	int err = units_duration(s, bare, &v, why, sizeof(why));

	if (!err || v != 7 || !strstr(why, want)) {
		printf("  duration '%s': err %d why '%s' (wanted '%s')\n", s, err, why, want);
		return 0;
	}
	return err;
}

static int fmt_is(const char *got, const char *want)
{
	if (strcmp(got, want)) {
		printf("  printed '%s', wanted '%s'\n", got, want);
		return 0;
	}
	return 1;
}

static void sizes(void)
{
	char b[UNITS_BUF];

	CHECK(size_ok("4096") == 4096);
	CHECK(size_ok("0") == 0);
	CHECK(size_ok("4096B") == 4096);
	CHECK(size_ok("4GiB") == 4ull << 30);
	CHECK(size_ok("4G") == 4ull << 30);
	CHECK(size_ok("4g") == 4ull << 30);
	CHECK(size_ok("4Gi") == 4ull << 30);
	CHECK(size_ok("4GB") == 4000000000ull);
	CHECK(size_ok("512M") == 512ull << 20);
	CHECK(size_ok("512m") == 512ull << 20);
	CHECK(size_ok("512MiB") == 512ull << 20);
	CHECK(size_ok("512 MiB") == 512ull << 20);
	CHECK(size_ok("64k") == 64ull << 10);
	CHECK(size_ok("64K") == 64ull << 10);
	CHECK(size_ok("64kB") == 64000);
	CHECK(size_ok("64KB") == 64000);
	CHECK(size_ok("2T") == 2ull << 40);
	CHECK(size_ok("1PiB") == 1ull << 50);
	CHECK(size_ok("1.5GiB") == 1610612736ull);
	CHECK(size_ok("0.5K") == 512);
	CHECK(size_ok("1.25M") == 1310720);
	CHECK(size_ok("0x1000") == 4096);
	CHECK(size_ok("0XfF") == 255);
	CHECK(size_ok("18446744073709551615") == UINT64_MAX);
	CHECK(size_bad("15.999999999999999999PiB", "whole number of bytes") == -EINVAL);
	CHECK(size_bad("18446744073709551616", "too large") == -ERANGE);
	CHECK(size_bad("16384P", "too large") == -ERANGE);
	CHECK(size_bad("0x10000000000000000", "too large") == -ERANGE);
	CHECK(size_bad("", "empty") == -EINVAL);
	CHECK(size_bad("GiB", "not a number") == -EINVAL);
	CHECK(size_bad("-1", "negative") == -EINVAL);
	CHECK(size_bad("+1", "not a number") == -EINVAL);
	CHECK(size_bad(" 1", "not a number") == -EINVAL);
	CHECK(size_bad("1 ", "unknown unit") == -EINVAL);
	CHECK(size_bad("1  K", "unknown unit") == -EINVAL);
	CHECK(size_bad("4Q", "unknown unit 'Q'") == -EINVAL);
	CHECK(size_bad("4Q", "KiB") == -EINVAL);	/* the refusal names the accepted units */
	CHECK(size_bad("4gib", "unknown unit") == -EINVAL);
	CHECK(size_bad("1e9", "unknown unit 'e9'") == -EINVAL);
	CHECK(size_bad("0.1K", "whole number of bytes") == -EINVAL);
	CHECK(size_bad("1.5", "whole number of bytes") == -EINVAL);
	CHECK(size_bad("1.", "digit must follow") == -EINVAL);
	CHECK(size_bad("1.K", "digit must follow") == -EINVAL);
	CHECK(size_bad("0x", "no digits") == -EINVAL);
	CHECK(size_bad("0x1G", "hexadecimal") == -EINVAL);
	CHECK(size_bad("1.0000000000000000001K", "too many decimals") == -EINVAL);

	CHECK(fmt_is(units_fmt_size(0, 0, b, sizeof(b)), "0 B"));
	CHECK(fmt_is(units_fmt_size(512, 0, b, sizeof(b)), "512 B"));
	CHECK(fmt_is(units_fmt_size(1023, 0, b, sizeof(b)), "1023 B"));
	CHECK(fmt_is(units_fmt_size(1024, 0, b, sizeof(b)), "1.0 KiB"));
	CHECK(fmt_is(units_fmt_size(1 << 20, 0, b, sizeof(b)), "1.0 MiB"));
	CHECK(fmt_is(units_fmt_size(1572864, 0, b, sizeof(b)), "1.5 MiB"));
	CHECK(fmt_is(units_fmt_size(10433331, 0, b, sizeof(b)), "9.9 MiB"));
	CHECK(fmt_is(units_fmt_size(10433332, 0, b, sizeof(b)), "10 MiB"));	/* 9.95 rounds up */
	CHECK(fmt_is(units_fmt_size(512ull << 20, 0, b, sizeof(b)), "512 MiB"));
	CHECK(fmt_is(units_fmt_size((1ull << 30) - 1, 0, b, sizeof(b)), "1.0 GiB"));
	CHECK(fmt_is(units_fmt_size(1048063, 0, b, sizeof(b)), "1023 KiB"));
	CHECK(fmt_is(units_fmt_size(1048064, 0, b, sizeof(b)), "1.0 MiB"));	/* 1023.5 KiB */
	CHECK(fmt_is(units_fmt_size(4ull << 30, 0, b, sizeof(b)), "4.0 GiB"));
	CHECK(fmt_is(units_fmt_size(UINT64_MAX, 0, b, sizeof(b)), "16 EiB"));
	CHECK(fmt_is(units_fmt_size(4096, UNITS_EXACT, b, sizeof(b)), "4KiB"));
	CHECK(fmt_is(units_fmt_size(4097, UNITS_EXACT, b, sizeof(b)), "4097B"));
	CHECK(fmt_is(units_fmt_size(1ull << 30, UNITS_EXACT, b, sizeof(b)), "1GiB"));
	CHECK(fmt_is(units_fmt_size(3ull << 20, UNITS_EXACT, b, sizeof(b)), "3MiB"));
	CHECK(fmt_is(units_fmt_size(0, UNITS_EXACT, b, sizeof(b)), "0B"));
	/* the exact form reads back */
	for (uint64_t v = 1; v && v < (1ull << 62); v = v * 3 + 1024) {
		units_fmt_size(v, UNITS_EXACT, b, sizeof(b));
		if (size_ok(b) != v) {
			CHECK(!"exact size parses back");
			return;
		}
	}
	CHECK(1);
}

static void durations(void)
{
	char b[UNITS_BUF];

	CHECK(dur_ok("500ms", 0) == 500 * NSEC_PER_MSEC);
	CHECK(dur_ok("2s", 0) == 2 * NSEC_PER_SEC);
	CHECK(dur_ok("100us", 0) == 100 * NSEC_PER_USEC);
	CHECK(dur_ok("100\xc2\xb5s", 0) == 100 * NSEC_PER_USEC);	/* micro sign */
	CHECK(dur_ok("100\xce\xbcs", 0) == 100 * NSEC_PER_USEC);	/* Greek mu */
	CHECK(dur_ok("70ns", 0) == 70);
	CHECK(dur_ok("1m", 0) == 60 * NSEC_PER_SEC);
	CHECK(dur_ok("1min", 0) == 60 * NSEC_PER_SEC);
	CHECK(dur_ok("1.5m", 0) == 90 * NSEC_PER_SEC);
	CHECK(dur_ok("2h", 0) == 7200 * NSEC_PER_SEC);
	CHECK(dur_ok("2.5s", 0) == 2500 * NSEC_PER_MSEC);
	CHECK(dur_ok("0.001s", 0) == NSEC_PER_MSEC);
	CHECK(dur_ok("2 s", 0) == 2 * NSEC_PER_SEC);
	/* a bare number is in the option's unit */
	CHECK(dur_ok("100", NSEC_PER_MSEC) == 100 * NSEC_PER_MSEC);
	CHECK(dur_ok("5", NSEC_PER_SEC) == 5 * NSEC_PER_SEC);
	CHECK(dur_ok("1.5", NSEC_PER_SEC) == 1500 * NSEC_PER_MSEC);
	CHECK(dur_ok("5s", NSEC_PER_MSEC) == 5 * NSEC_PER_SEC);	/* a unit wins */
	CHECK(dur_bad("100", 0, "a unit must follow") == -EINVAL);
	CHECK(dur_bad("100", 0, "ms") == -EINVAL);
	CHECK(dur_bad("5sec", NSEC_PER_SEC, "unknown unit 'sec'") == -EINVAL);
	CHECK(dur_bad("5S", NSEC_PER_SEC, "unknown unit") == -EINVAL);
	CHECK(dur_bad("5MS", NSEC_PER_SEC, "unknown unit") == -EINVAL);
	CHECK(dur_bad("-5", NSEC_PER_SEC, "negative") == -EINVAL);
	CHECK(dur_bad("0.5ns", 0, "whole number of nanoseconds") == -EINVAL);
	CHECK(dur_bad("10000000h", 0, "too large") == -ERANGE);
	CHECK(dur_bad("", NSEC_PER_SEC, "empty") == -EINVAL);
	CHECK(dur_bad("s", NSEC_PER_SEC, "not a number") == -EINVAL);

	CHECK(fmt_is(units_fmt_duration(0, 0, b, sizeof(b)), "0 ns"));
	CHECK(fmt_is(units_fmt_duration(70, 0, b, sizeof(b)), "70 ns"));
	CHECK(fmt_is(units_fmt_duration(70000, 0, b, sizeof(b)), "70 us"));
	CHECK(fmt_is(units_fmt_duration(70000, UNITS_MICRO_SIGN, b, sizeof(b)), "70 \xc2\xb5s"));
	CHECK(fmt_is(units_fmt_duration(1500, 0, b, sizeof(b)), "1.5 us"));
	CHECK(fmt_is(units_fmt_duration(999999, 0, b, sizeof(b)), "1.0 ms"));
	CHECK(fmt_is(units_fmt_duration(2100 * NSEC_PER_MSEC, 0, b, sizeof(b)), "2.1 s"));
	CHECK(fmt_is(units_fmt_duration(59 * NSEC_PER_SEC, 0, b, sizeof(b)), "59 s"));
	CHECK(fmt_is(units_fmt_duration(59800 * NSEC_PER_MSEC, 0, b, sizeof(b)), "1.0 min"));
	CHECK(fmt_is(units_fmt_duration(90 * NSEC_PER_SEC, 0, b, sizeof(b)), "1.5 min"));
	CHECK(fmt_is(units_fmt_duration(7200 * NSEC_PER_SEC, 0, b, sizeof(b)), "2.0 h"));
	CHECK(fmt_is(units_fmt_duration(100 * NSEC_PER_MSEC, UNITS_EXACT, b, sizeof(b)), "100ms"));
	CHECK(fmt_is(units_fmt_duration(3600 * NSEC_PER_SEC, UNITS_EXACT, b, sizeof(b)), "1h"));
	CHECK(fmt_is(units_fmt_duration(90 * NSEC_PER_SEC, UNITS_EXACT, b, sizeof(b)), "90s"));
	CHECK(fmt_is(units_fmt_duration(120 * NSEC_PER_SEC, UNITS_EXACT, b, sizeof(b)), "2min"));
	CHECK(fmt_is(units_fmt_duration(1001, UNITS_EXACT, b, sizeof(b)), "1001ns"));
	CHECK(fmt_is(units_fmt_duration(5000, UNITS_EXACT | UNITS_MICRO_SIGN, b, sizeof(b)),
		     "5\xc2\xb5s"));
	for (uint64_t v = 1; v && v < (1ull << 62); v = v * 7 + 1000) {
		units_fmt_duration(v, UNITS_EXACT, b, sizeof(b));
		if (dur_ok(b, 0) != v) {
			CHECK(!"exact duration parses back");
			return;
		}
	}
	CHECK(1);
}

static void percents(void)
{
	char b[UNITS_BUF], why[160];
	double p = -1;

	CHECK(!units_percent("10%", &p, why, sizeof(why)) && p == 10.0);
	CHECK(!units_percent("10", &p, why, sizeof(why)) && p == 10.0);
	CHECK(!units_percent("12.5%", &p, why, sizeof(why)) && p == 12.5);
	CHECK(!units_percent("0", &p, why, sizeof(why)) && p == 0.0);
	p = -1;
	CHECK(units_percent("10 %", &p, why, sizeof(why)) == -EINVAL && p == -1);
	CHECK(units_percent("10%%", &p, why, sizeof(why)) == -EINVAL && strstr(why, "10%"));
	CHECK(units_percent("-3%", &p, why, sizeof(why)) == -EINVAL && strstr(why, "negative"));
	CHECK(units_percent("%", &p, why, sizeof(why)) == -EINVAL);
	CHECK(units_percent("0.1x", &p, why, sizeof(why)) == -EINVAL);
	CHECK(fmt_is(units_fmt_percent(10, b, sizeof(b)), "10%"));
	CHECK(fmt_is(units_fmt_percent(12.5, b, sizeof(b)), "12.5%"));
	CHECK(fmt_is(units_fmt_percent(99.96, b, sizeof(b)), "100%"));
	CHECK(fmt_is(units_fmt_percent(0.04, b, sizeof(b)), "0%"));
}

/* The command-line wrappers: one error line naming the value and the bounds. */
static void wrappers(void)
{
	uint64_t v = 9;
	double p = 9;

	nerr = 0;
	CHECK(!parse_size("--max-bytes", "4GiB", 4096, UINT64_MAX, &v) && v == 4ull << 30 && !nerr);
	CHECK(parse_size("--max-bytes", "1K", 4096, UINT64_MAX, &v) == -ERANGE && v == 4ull << 30);
	CHECK(nerr == 1 && !strcmp(last_err, "invalid --max-bytes '1K': must be at least 4KiB"));
	CHECK(parse_size("--max-bytes", "2G", 4096, 1ull << 30, &v) == -ERANGE);
	CHECK(!strcmp(last_err, "invalid --max-bytes '2G': must be between 4KiB and 1GiB"));
	CHECK(parse_size("--max-bytes", "2X", 0, 1, &v) == -EINVAL);
	CHECK(!strncmp(last_err, "invalid --max-bytes '2X': unknown unit 'X'", 40));
	CHECK(!parse_duration("-I", "100", NSEC_PER_MSEC, NSEC_PER_MSEC, 3600 * NSEC_PER_SEC, &v) &&
	      v == 100 * NSEC_PER_MSEC);
	CHECK(!parse_duration("-I", "2s", NSEC_PER_MSEC, NSEC_PER_MSEC, 3600 * NSEC_PER_SEC, &v) &&
	      v == 2 * NSEC_PER_SEC);
	CHECK(parse_duration("-I", "100us", NSEC_PER_MSEC, NSEC_PER_MSEC, 3600 * NSEC_PER_SEC, &v) ==
	      -ERANGE);
	CHECK(!strcmp(last_err, "invalid -I '100us': must be between 1ms and 1h"));
	CHECK(parse_duration("--duration", "2", 0, 1, UINT64_MAX, &v) == -EINVAL);
	CHECK(strstr(last_err, "a unit must follow") != NULL);
	CHECK(!parse_percent("--active-threads", "25%", 1, 100, &p) && p == 25.0);
	CHECK(parse_percent("--active-threads", "150%", 1, 100, &p) == -ERANGE && p == 25.0);
	CHECK(!strcmp(last_err, "invalid --active-threads '150%': must be between 1% and 100%"));
	CHECK(parse_percent("--active-threads", "lots", 1, 100, &p) == -EINVAL);
	CHECK(!strcmp(last_err, "invalid --active-threads 'lots': not a number"));
}

int main(void)
{
	sizes();
	durations();
	percents();
	wrappers();
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
