// SPDX-License-Identifier: GPL-2.0
/*
 * units.c - sizes, durations and percentages: one parser and one printer
 * each (units.h has the grammar).  Whole numbers stay whole: a value is
 * computed in integers (a 128-bit product), so "1.5GiB" is exactly
 * 1610612736 bytes and a fraction that is not a whole byte is refused
 * rather than rounded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "units.h"

struct unit {
	const char *name;
	uint64_t mult;
};

#define KI 1024ull
#define KD 1000ull

static const struct unit size_units[] = {
	{ "B", 1 },
	{ "K", KI }, { "k", KI }, { "KiB", KI }, { "Ki", KI }, { "kB", KD }, { "KB", KD },
	{ "M", KI * KI }, { "m", KI * KI }, { "MiB", KI * KI }, { "Mi", KI * KI }, { "MB", KD * KD },
	{ "G", KI * KI * KI }, { "g", KI * KI * KI }, { "GiB", KI * KI * KI }, { "Gi", KI * KI * KI },
	{ "GB", KD * KD * KD },
	{ "T", KI * KI * KI * KI }, { "t", KI * KI * KI * KI }, { "TiB", KI * KI * KI * KI },
	{ "Ti", KI * KI * KI * KI }, { "TB", KD * KD * KD * KD },
	{ "P", KI * KI * KI * KI * KI }, { "p", KI * KI * KI * KI * KI },
	{ "PiB", KI * KI * KI * KI * KI }, { "Pi", KI * KI * KI * KI * KI },
	{ "PB", KD * KD * KD * KD * KD },
	{ NULL, 0 }
};

static const struct unit duration_units[] = {
	{ "ns", 1 },
	{ "us", NSEC_PER_USEC }, { "\xc2\xb5s", NSEC_PER_USEC }, { "\xce\xbcs", NSEC_PER_USEC },
	{ "ms", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC },
	{ NULL, 0 }
};

/* What the printers step through, smallest first. */
static const struct unit size_ladder[] = {
	{ "B", 1 }, { "KiB", KI }, { "MiB", KI * KI }, { "GiB", KI * KI * KI },
	{ "TiB", KI * KI * KI * KI }, { "PiB", KI * KI * KI * KI * KI },
	{ "EiB", KI * KI * KI * KI * KI * KI }, { NULL, 0 }
};

static const struct unit duration_ladder[] = {
	{ "ns", 1 }, { "us", NSEC_PER_USEC }, { "ms", NSEC_PER_MSEC }, { "s", NSEC_PER_SEC },
	{ "min", 60 * NSEC_PER_SEC }, { "h", 3600 * NSEC_PER_SEC }, { NULL, 0 }
};

#define SIZE_UNITS_TEXT "B, K, M, G, T, P or KiB ... PiB (1024s); kB, MB ... PB (1000s)"
#define DURATION_UNITS_TEXT "ns, us, ms, s, m, h"

/* A decimal number: whole part, fraction digits (at most 18). */
struct number {
	uint64_t whole;
	uint64_t frac;
	unsigned int fdigits;
};

static bool is_dec(char c)
{
	return c >= '0' && c <= '9';
}

static int fail(char *why, size_t len, int err, const char *fmt, const char *arg)
{
	snprintf(why, len, fmt, arg);
	return err;
}

/* Reads a number at *p (moved past it): 0, or -EINVAL / -ERANGE with why. */
static int read_number(const char **p, struct number *n, char *why, size_t len)
{
	const char *s = *p;

	memset(n, 0, sizeof(*n));
	if (!is_dec(*s))
		return fail(why, len, -EINVAL, "%s", *s == '-' ? "must not be negative" : "not a number");
	for (; is_dec(*s); s++) {
		if (n->whole > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return fail(why, len, -ERANGE, "%s", "too large");
		n->whole = n->whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		s++;
		if (!is_dec(*s))
			return fail(why, len, -EINVAL, "%s", "a digit must follow the decimal point");
		for (; is_dec(*s); s++) {
			if (n->fdigits == 18)
				return fail(why, len, -EINVAL, "%s", "too many decimals");
			n->frac = n->frac * 10 + (uint64_t)(*s - '0');
			n->fdigits++;
		}
	}
	*p = s;
	return 0;
}

static uint64_t pow10u(unsigned int n)
{
	uint64_t v = 1;

	while (n--)
		v *= 10;
	return v;
}

/* n * mult as a whole number: 0, or -ERANGE / -EINVAL (not whole: what) with why. */
static int scale(const struct number *n, uint64_t mult, const char *what, uint64_t *out,
		 char *why, size_t len)
{
	unsigned __int128 whole = (unsigned __int128)n->whole * mult;
	unsigned __int128 frac = (unsigned __int128)n->frac * mult;
	uint64_t div = pow10u(n->fdigits);

	if (frac % div)
		return fail(why, len, -EINVAL, "not a whole number of %s", what);
	whole += frac / div;
	if (whole > UINT64_MAX)
		return fail(why, len, -ERANGE, "%s", "too large");
	*out = (uint64_t)whole;
	return 0;
}

/* The unit after the number: a space at most, then a name of units (or ""). */
static const struct unit *find_unit(const struct unit *u, const char *s)
{
	if (*s == ' ')
		s++;
	for (; u->name; u++)
		if (!strcmp(u->name, s))
			return u;
	return NULL;
}

static int hex_size(const char *arg, uint64_t *bytes, char *why, size_t len)
{
	const char *s = arg + 2;
	uint64_t v = 0;

	if (!*s)
		return fail(why, len, -EINVAL, "%s", "no digits after 0x");
	for (; *s; s++) {
		int d;

		if (is_dec(*s))
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return fail(why, len, -EINVAL, "unexpected '%s' in a hexadecimal number", s);
		if (v >> 60)
			return fail(why, len, -ERANGE, "%s", "too large");
		v = v << 4 | (uint64_t)d;
	}
	*bytes = v;
	return 0;
}

int units_size(const char *arg, uint64_t *bytes, char *why, size_t len)
{
	const struct unit *u;
	struct number n;
	const char *s = arg;
	int err;

	if (!arg || !*arg)
		return fail(why, len, -EINVAL, "%s", "empty value");
	if (arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X'))
		return hex_size(arg, bytes, why, len);
	err = read_number(&s, &n, why, len);
	if (err)
		return err;
	u = *s ? find_unit(size_units, s) : &size_units[0];
	if (!u)
		return fail(why, len, -EINVAL, "unknown unit '%s' (sizes take " SIZE_UNITS_TEXT ")", s);
	return scale(&n, u->mult, "bytes", bytes, why, len);
}

int units_duration(const char *arg, uint64_t bare_ns, uint64_t *ns, char *why, size_t len)
{
	const struct unit *u;
	struct unit bare = { "", bare_ns };
	struct number n;
	const char *s = arg;
	int err;

	if (!arg || !*arg)
		return fail(why, len, -EINVAL, "%s", "empty value");
	err = read_number(&s, &n, why, len);
	if (err)
		return err;
	if (!*s) {
		if (!bare_ns)
			return fail(why, len, -EINVAL, "%s", "a unit must follow the number ("
				    DURATION_UNITS_TEXT ")");
		u = &bare;
	} else {
		u = find_unit(duration_units, s);
		if (!u)
			return fail(why, len, -EINVAL, "unknown unit '%s' (durations take "
				    DURATION_UNITS_TEXT ")", s);
	}
	return scale(&n, u->mult, "nanoseconds", ns, why, len);
}

int units_percent(const char *arg, double *pct, char *why, size_t len)
{
	struct number n;
	const char *s = arg;
	int err;

	if (!arg || !*arg)
		return fail(why, len, -EINVAL, "%s", "empty value");
	err = read_number(&s, &n, why, len);
	if (err)
		return err;
	if (*s && strcmp(s, "%"))
		return fail(why, len, -EINVAL, "unexpected '%s' after the number (a percentage: 10%% or 10)", s);
	*pct = (double)n.whole + (double)n.frac / (double)pow10u(n.fdigits);
	return 0;
}

/* ------------------------------------------------------------ printing */

static const char *unit_name(const struct unit *u, unsigned int flags)
{
	if ((flags & UNITS_MICRO_SIGN) && !strcmp(u->name, "us"))
		return "\xc2\xb5s";
	return u->name;
}

static const char *fmt_ladder(const struct unit *ladder, uint64_t v, unsigned int flags,
			      char *buf, size_t len)
{
	size_t i = 0;

	if (flags & UNITS_EXACT) {
		for (size_t k = 1; v && ladder[k].name; k++)
			if (v % ladder[k].mult == 0)
				i = k;
		snprintf(buf, len, "%llu%s", (unsigned long long)(v / ladder[i].mult),
			 unit_name(&ladder[i], flags));
		return buf;
	}
	while (ladder[i + 1].name && v >= ladder[i + 1].mult)
		i++;
	for (;;) {
		uint64_t m = ladder[i].mult;
		unsigned __int128 tenths = ((unsigned __int128)v * 10 + m / 2) / m;
		uint64_t whole = (uint64_t)(((unsigned __int128)v + m / 2) / m);
		const char *name = unit_name(&ladder[i], flags);

		if (i == 0) {
			snprintf(buf, len, "%llu %s", (unsigned long long)v, name);
		} else if (tenths < 100) {
			snprintf(buf, len, "%u.%u %s", (unsigned int)(tenths / 10),
				 (unsigned int)(tenths % 10), name);
		} else if (ladder[i + 1].name && whole * m >= ladder[i + 1].mult) {
			i++;	/* 1023.7 KiB is 1.0 MiB, 59.8 s is 1.0 min */
			continue;
		} else {
			snprintf(buf, len, "%llu %s", (unsigned long long)whole, name);
		}
		return buf;
	}
}

const char *units_fmt_size(uint64_t bytes, unsigned int flags, char *buf, size_t len)
{
	return fmt_ladder(size_ladder, bytes, flags, buf, len);
}

const char *units_fmt_duration(uint64_t ns, unsigned int flags, char *buf, size_t len)
{
	return fmt_ladder(duration_ladder, ns, flags, buf, len);
}

const char *units_fmt_percent(double pct, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%.1f", pct);
	n = strlen(buf);
	if (n > 2 && !strcmp(buf + n - 2, ".0"))
		buf[n - 2] = '\0';
	n = strlen(buf);
	snprintf(buf + n, len - n, "%%");
	return buf;
}

/* --------------------------------------------------- for command lines */

static int range_err(const char *what, const char *arg, const char *lo, const char *hi)
{
	if (hi)
		p_err("invalid %s '%s': must be between %s and %s", what, arg, lo, hi);
	else
		p_err("invalid %s '%s': must be at least %s", what, arg, lo);
	return -ERANGE;
}

int parse_size(const char *what, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char why[160], lo[UNITS_BUF], hi[UNITS_BUF];
	uint64_t v;
	int err = units_size(arg, &v, why, sizeof(why));

	if (err) {
		p_err("invalid %s '%s': %s", what, arg ? arg : "", why);
		return err;
	}
	if (v < min || v > max)
		return range_err(what, arg, units_fmt_size(min, UNITS_EXACT, lo, sizeof(lo)),
				 max == UINT64_MAX ? NULL : units_fmt_size(max, UNITS_EXACT, hi, sizeof(hi)));
	*out = v;
	return 0;
}

int parse_duration(const char *what, const char *arg, uint64_t bare_ns, uint64_t min_ns,
		   uint64_t max_ns, uint64_t *out_ns)
{
	char why[160], lo[UNITS_BUF], hi[UNITS_BUF];
	uint64_t v;
	int err = units_duration(arg, bare_ns, &v, why, sizeof(why));

	if (err) {
		p_err("invalid %s '%s': %s", what, arg ? arg : "", why);
		return err;
	}
	if (v < min_ns || v > max_ns)
		return range_err(what, arg, units_fmt_duration(min_ns, UNITS_EXACT, lo, sizeof(lo)),
				 max_ns == UINT64_MAX ? NULL :
				 units_fmt_duration(max_ns, UNITS_EXACT, hi, sizeof(hi)));
	*out_ns = v;
	return 0;
}

int parse_percent(const char *what, const char *arg, double min, double max, double *out)
{
	char why[160], lo[UNITS_BUF], hi[UNITS_BUF];
	double v;
	int err = units_percent(arg, &v, why, sizeof(why));

	if (err) {
		p_err("invalid %s '%s': %s", what, arg ? arg : "", why);
		return err;
	}
	if (v < min || v > max)
		return range_err(what, arg, units_fmt_percent(min, lo, sizeof(lo)),
				 units_fmt_percent(max, hi, sizeof(hi)));
	*out = v;
	return 0;
}
