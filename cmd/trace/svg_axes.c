// SPDX-License-Identifier: GPL-2.0
/* svg_axes.c - text, ticks and colours of the heat map (svg_axes.h). */
#include <stdbool.h>
#include <string.h>

#include "heat.h"
#include "svg_axes.h"

void sv_esc(FILE *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '<')
			fputs("&lt;", o);
		else if (c == '>')
			fputs("&gt;", o);
		else if (c == '&')
			fputs("&amp;", o);
		else if (c == '"')
			fputs("&quot;", o);
		else if (c == '\'')
			fputs("&#39;", o);
		else if (c < 0x20 || c >= 0x7f || c == '\\')
			fprintf(o, "\\x%02x", c);
		else
			fputc(c, o);
	}
}

/* v / unit with d decimals, exact (unit a power of 10 or of 2). */
static void fixed(uint64_t v, uint64_t unit, int d, char *buf, size_t len)
{
	unsigned __int128 r = v % unit;
	size_t n = (size_t)snprintf(buf, len, "%llu", (unsigned long long)(v / unit));

	if (d > 0 && n + 1 < len)
		buf[n++] = '.';
	for (int i = 0; i < d && n + 1 < len; i++) {
		r *= 10;
		buf[n++] = (char)('0' + (int)(r / unit));
		r %= unit;
	}
	if (n < len)
		buf[n] = '\0';
}

void sv_time_axis(struct sv_time *t, uint64_t tmin, uint64_t span)
{
	uint64_t raw = span / 8 ? span / 8 : 1, q, top;
	static const struct { uint64_t ns; const char *name; } units[] = {
		{ 1000000000ull, "s" }, { 1000000ull, "ms" }, { 1000ull, "&#181;s" }, { 1, "ns" },
	};

	t->tmin = tmin;
	t->span = span;
	t->origin = tmin < span ? 0 : tmin;
	top = tmin - t->origin + span < span ? UINT64_MAX : tmin - t->origin + span;
	t->step = 0;
	for (uint64_t m = 1; !t->step; m *= 10) {
		static const uint64_t f[] = { 1, 2, 5 };

		for (int i = 0; i < 3 && !t->step; i++)
			if (f[i] * m >= raw)
				t->step = f[i] * m;
		if (m > UINT64_MAX / 100)
			t->step = t->step ? t->step : m * 10;
	}
	for (int i = 0; i < 4; i++) {
		if (top >= units[i].ns || i == 3) {
			t->unit = units[i].ns;
			t->uname = units[i].name;
			break;
		}
	}
	t->decimals = 0;
	for (q = t->unit; t->step % q; q /= 10)
		t->decimals++;
}

void sv_time_label(const struct sv_time *t, uint64_t v, char *buf, size_t len)
{
	char num[48];

	fixed(v, t->unit, t->decimals, num, sizeof(num));
	snprintf(buf, len, "%s %s", num, t->uname);
}

double sv_time_x(const struct sv_time *t, uint64_t v)
{
	return SV_X0 + ((double)v - (double)t->tmin) / (double)t->span * SV_GW;
}

/* Calls fn for each tick: its value after the origin and its x. */
static void each_tick(const struct sv_time *t, void (*fn)(const struct sv_time *, uint64_t, double,
							  FILE *, double, double),
		      FILE *o, double a, double b)
{
	uint64_t lo = t->tmin - t->origin, hi = lo + t->span < lo ? UINT64_MAX : lo + t->span;
	uint64_t v = lo % t->step ? lo - lo % t->step + t->step : lo;

	for (; v >= lo && v <= hi; v += t->step) {
		fn(t, v, sv_time_x(t, t->origin + v), o, a, b);
		if (v > UINT64_MAX - t->step)
			break;
	}
}

static void tick_label(const struct sv_time *t, uint64_t v, double x, FILE *o, double y, double unused)
{
	char lab[64];

	(void)unused;
	sv_time_label(t, v, lab, sizeof(lab));
	fprintf(o, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
		x, y, x, y + 4);
	fprintf(o, "<text class=\"xtick\" x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		x, y + 15, lab);
}

static void grid_line(const struct sv_time *t, uint64_t v, double x, FILE *o, double y0, double y1)
{
	(void)t;
	(void)v;
	fprintf(o, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
		x, y0, x, y1);
}

void sv_time_ticks(FILE *o, const struct sv_time *t, double y)
{
	each_tick(t, tick_label, o, y, 0);
}

void sv_time_grid(FILE *o, const struct sv_time *t, double y0, double y1)
{
	each_tick(t, grid_line, o, y0, y1);
}

static const char *const bunits[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

/* The binary unit (its exponent of 1024) for values up to top, steps of step. */
static int bunit(uint64_t top, uint64_t step, int *decimals)
{
	int k = 0;

	while (k < 6 && top >> (10 * (k + 1)))
		k++;
	/* a step of 2^-j units needs j decimals: at most 3 */
	while (k > 0 && step < (1ull << (10 * k)) >> 3)
		k--;
	*decimals = 0;
	for (uint64_t s = step; k && s < (1ull << (10 * k)); s <<= 1)
		(*decimals)++;
	return k;
}

void sv_offset_ticks(FILE *o, uint64_t len_m1, double y, double px)
{
	int max = px / 18 > 2 ? (int)(px / 18) : 2, d, k;
	uint64_t step = 1, per = len_m1 / (uint64_t)max + 1;
	long double len = (long double)len_m1 + 1;
	char num[48];

	while (step < per && step < (1ull << 63))
		step <<= 1;
	k = bunit(len_m1, step, &d);
	for (uint64_t v = 0;; v += step) {
		double ty = y + (double)((long double)v / len * px);

		fixed(v, 1ull << (10 * k), d, num, sizeof(num));
		fprintf(o, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"#000\"/>\n",
			SV_X0 - 4, ty, SV_X0, ty);
		if (v)
			fprintf(o, "<text class=\"ytick\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">"
				"+%s %s</text>\n", SV_X0 - 6, ty + 4, num, bunits[k]);
		else
			fprintf(o, "<text class=\"ytick\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">"
				"+0</text>\n", SV_X0 - 6, ty + 4);
		if (step > len_m1 || v > len_m1 - step)
			break;
	}
}

static const unsigned char hues[HK_NR + 1][3] = {
	[HK_FAULT_R] = { 33, 102, 172 },	/* blue */
	[HK_FAULT_W] = { 202, 0, 32 },		/* red */
	[HK_MIG_FAULT] = { 26, 152, 80 },	/* green */
	[HK_MIG_PREFETCH] = { 118, 42, 131 },	/* purple */
	[HK_MIG_OTHER] = { 140, 81, 10 },	/* brown */
	[HK_EVICT] = { 230, 97, 1 },		/* orange */
	[HK_CPU_FAULT] = { 77, 77, 77 },	/* grey */
	[HK_NR] = { 60, 60, 60 },		/* strips */
};

static int bitlen(uint32_t v)
{
	return v ? 32 - __builtin_clz(v) : 0;
}

/* The level (0..levels-1) of count c for peak; *levels how many there are. */
static int level(uint32_t c, uint32_t peak, int *levels)
{
	int b = bitlen(peak) ? bitlen(peak) : 1;

	*levels = b < SV_LEVELS ? b : SV_LEVELS;
	return c ? (bitlen(c) - 1) * *levels / b : 0;
}

static void level_fill(int kind, int lv, int levels, char *buf, size_t len)
{
	const unsigned char *h = hues[kind >= 0 && kind <= HK_NR ? kind : HK_NR];
	double a = 0.25 + 0.75 * (lv + 1) / levels;

	snprintf(buf, len, "#%02x%02x%02x", (int)(255 - a * (255 - h[0])),
		 (int)(255 - a * (255 - h[1])), (int)(255 - a * (255 - h[2])));
}

void sv_fill(int kind, uint32_t count, uint32_t peak, char *buf, size_t len)
{
	int levels, lv = level(count, peak, &levels);

	level_fill(kind, lv, levels, buf, len);
}

void sv_key(FILE *o, int kind, uint32_t peak, double x, double y)
{
	int levels, b = bitlen(peak) ? bitlen(peak) : 1;
	char fill[16];

	level(1, peak, &levels);
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\">a cell:</text>\n", x, y + 9);
	x += 48;
	for (int lv = 0; lv < levels; lv++) {
		uint64_t lo = 0, hi = 0;

		/* the counts whose bit length falls in this level */
		for (int bl = 1; bl <= b; bl++) {
			if ((bl - 1) * levels / b != lv)
				continue;
			lo = lo ? lo : 1ull << (bl - 1);
			hi = bl == b ? peak : (1ull << bl) - 1;
		}
		level_fill(kind, lv, levels, fill, sizeof(fill));
		fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" fill=\"%s\" "
			"stroke=\"#888\" stroke-width=\"0.5\"/>\n", x, y, fill);
		if (lo == hi)
			fprintf(o, "<text x=\"%.1f\" y=\"%.1f\">%llu</text>\n", x + 15, y + 9,
				(unsigned long long)lo);
		else
			fprintf(o, "<text x=\"%.1f\" y=\"%.1f\">%llu-%llu</text>\n", x + 15, y + 9,
				(unsigned long long)lo, (unsigned long long)hi);
		x += 22 + 7 * (bitlen((uint32_t)hi) / 3 + 1) * (lo == hi ? 1 : 2);
	}
}
