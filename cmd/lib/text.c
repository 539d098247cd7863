// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - names others choose (process names, paths, command-line
 * arguments, record files; soon cgroup, unit and pod names) escaped for
 * where they go, in one place for every writer (text.h):
 *
 *   TXT_TERM   a terminal table or report: control bytes, C1 controls,
 *              bidi and line-separator characters, invalid UTF-8 and the
 *              backslash become \xNN / \uNNNN; valid UTF-8 is kept.
 *   TXT_LINE   an Error: line: as TXT_TERM but the backslash is kept (the
 *              line stays readable; a forged line needs a newline or ESC).
 *   TXT_LABEL  a Prometheus/OpenMetrics label value: \\, \" and \n
 *              escaped, other control bytes '?', invalid UTF-8 U+FFFD.
 *   TXT_JSON   a JSON string's inside: the JSON escapes, invalid UTF-8
 *              \ufffd.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

size_t utf8_seq_len(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return left ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > left)
		return 0;	/* cut inside the character (comm at 15 bytes) */
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static unsigned int utf8_cp(const unsigned char *s, size_t n)
{
	if (n == 2)
		return (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu);
	if (n == 3)
		return (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
	return (s[0] & 0x07u) << 18 | (s[1] & 0x3fu) << 12 | (s[2] & 0x3fu) << 6 | (s[3] & 0x3fu);
}

/* A character a terminal acts on or reorders by: C1, bidi, line separators. */
static bool term_special(unsigned int cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || (cp >= 0x200e && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static size_t esc_ascii(unsigned char c, enum txt_to to, char *out)
{
	static const char json_esc[] = "\"\"\\\\\bb\ff\nn\rr\tt";

	switch (to) {
	case TXT_LABEL:
		if (c == '\\' || c == '"')
			return (size_t)sprintf(out, "\\%c", c);
		if (c == '\n')
			return (size_t)sprintf(out, "\\n");
		if (c < 0x20 || c == 0x7f)
			c = '?';	/* a process name may hold anything */
		break;
	case TXT_JSON:
		for (const char *p = json_esc; *p; p += 2)
			if (c == (unsigned char)p[0])
				return (size_t)sprintf(out, "\\%c", p[1]);
		if (c < 0x20 || c == 0x7f)
			return (size_t)sprintf(out, "\\u%04x", c);
		break;
	case TXT_TERM:
	case TXT_LINE:
		if (c < 0x20 || c == 0x7f || (c == '\\' && to == TXT_TERM))
			return (size_t)sprintf(out, "\\x%02x", c);
		break;
	}
	out[0] = (char)c;
	return 1;
}

/*
 * The escaped form of the unit at s (one byte or one UTF-8 character) into
 * out (at most TXT_UNIT_MAX bytes, not terminated); *used = bytes of s taken.
 */
#define TXT_UNIT_MAX 8
static size_t esc_unit(const unsigned char *s, size_t left, enum txt_to to, char *out,
		       size_t *used)
{
	size_t n = utf8_seq_len(s, left);

	*used = n ? n : 1;
	if (n == 1)
		return esc_ascii(s[0], to, out);
	if (!n) {
		if (to == TXT_LABEL)
			return (size_t)sprintf(out, "\xef\xbf\xbd");	/* U+FFFD */
		if (to == TXT_JSON)
			return (size_t)sprintf(out, "\\ufffd");
		return (size_t)sprintf(out, "\\x%02x", s[0]);
	}
	if ((to == TXT_TERM || to == TXT_LINE) && term_special(utf8_cp(s, n)))
		return (size_t)sprintf(out, "\\u%04x", utf8_cp(s, n));
	memcpy(out, s, n);
	return n;
}

static size_t bounded_len(const char *s, size_t n)
{
	return strnlen(s, n);
}

const char *str_escape(char *dst, size_t len, const char *src, size_t n, enum txt_to to)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0, left = bounded_len(src, n);

	if (!len)
		return dst;
	while (left) {
		char unit[TXT_UNIT_MAX];
		size_t used, w = esc_unit(s, left, to, unit, &used);

		if (o + w >= len)
			break;	/* cut at a whole unit: never half a character */
		memcpy(dst + o, unit, w);
		o += w;
		s += used;
		left -= used;
	}
	dst[o] = '\0';
	return dst;
}

void fput_escaped(FILE *f, const char *src, size_t n, enum txt_to to)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t left = bounded_len(src, n);

	while (left) {
		char unit[TXT_UNIT_MAX];
		size_t used, w = esc_unit(s, left, to, unit, &used);

		fwrite(unit, 1, w, f);
		s += used;
		left -= used;
	}
}

const char *str_printable(char *dst, size_t len, const char *src, size_t n)
{
	return str_escape(dst, len, src, n, TXT_TERM);
}
