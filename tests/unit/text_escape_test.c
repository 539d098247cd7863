// SPDX-License-Identifier: GPL-2.0
/*
 * text_escape_test.c - the one escape helper (cmd/lib/text.c) for names
 * others choose: a comm that is not UTF-8 ("\377\376bin", a 15-byte cut
 * inside a character) comes out valid UTF-8 in labels and JSON, a terminal
 * or an Error: line never gets a control byte, C1 or bidi character, and
 * valid multi-byte UTF-8 is kept everywhere.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "gpuctl.h"

static int pass, fail;
#define CHECK(c) do { if (c) pass++; else { fail++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

static const char *esc(const char *s, size_t n, enum txt_to to)
{
	static char buf[4096];

	return str_escape(buf, sizeof(buf), s, n, to);
}

static const char *esc_file(const char *s, enum txt_to to)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	fput_escaped(f, s, strlen(s), to);
	fclose(f);
	return buf;
}

/* Valid UTF-8 by glibc's decoder, not ours. */
static bool utf8_ok(const char *s)
{
	return mbstowcs(NULL, s, 0) != (size_t)-1;
}

static bool no_controls(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return false;
	return !strstr(s, "\xc2\x9b") && !strstr(s, "\xe2\x80\xae");
}

int main(void)
{
	const char bad[] = "\377\376bin";
	const char cut[16] = "aaaaaaaaaaaaaa\xe2";	/* 15 bytes: the kernel's cut */
	const char forged[] = "x\033[2J\nError: forged";
	char all[256];
	const enum txt_to tos[] = { TXT_TERM, TXT_LINE, TXT_LABEL, TXT_JSON };

	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		printf("FAIL no C.UTF-8 locale\n0 passed, 1 failed\n");
		return 1;
	}
	/* labels: valid UTF-8, U+FFFD for what was not, escapes kept */
	CHECK(!strcmp(esc(bad, sizeof(bad), TXT_LABEL), "\xef\xbf\xbd\xef\xbf\xbd" "bin"));
	CHECK(!strcmp(esc(cut, sizeof(cut), TXT_LABEL), "aaaaaaaaaaaaaa\xef\xbf\xbd"));
	CHECK(!strcmp(esc("tr\xc3\xa4in\xe6\x97\xa5", 64, TXT_LABEL), "tr\xc3\xa4in\xe6\x97\xa5"));
	CHECK(!strcmp(esc("a\"b\\c\nd\te", 64, TXT_LABEL), "a\\\"b\\\\c\\nd?e"));
	CHECK(!strcmp(esc_file(bad, TXT_LABEL), "\xef\xbf\xbd\xef\xbf\xbd" "bin"));
	/* JSON: as json_writer always did */
	CHECK(!strcmp(esc(bad, sizeof(bad), TXT_JSON), "\\ufffd\\ufffdbin"));
	CHECK(!strcmp(esc("a\"\\\n\x01\xc3\xa4", 64, TXT_JSON), "a\\\"\\\\\\n\\u0001\xc3\xa4"));
	/* terminal: visible escapes; C1 CSI and RLO too; UTF-8 kept */
	CHECK(!strcmp(esc(bad, sizeof(bad), TXT_TERM), "\\xff\\xfebin"));
	CHECK(!strcmp(esc(cut, sizeof(cut), TXT_TERM), "aaaaaaaaaaaaaa\\xe2"));
	CHECK(!strcmp(esc("\033[2J\\", 64, TXT_TERM), "\\x1b[2J\\x5c"));
	CHECK(!strcmp(esc("a\xc2\x9b" "1m\xe2\x80\xae" "b", 64, TXT_TERM), "a\\u009b1m\\u202eb"));
	CHECK(!strcmp(esc("tr\xc3\xa4in", 64, TXT_TERM), "tr\xc3\xa4in"));
	CHECK(!strcmp(str_printable((char[64]){0}, 64, "\033x", 2), "\\x1bx"));
	/* Error: lines: one line, the backslash kept */
	CHECK(!strcmp(esc(forged, sizeof(forged), TXT_LINE), "x\\x1b[2J\\x0aError: forged"));
	CHECK(!strcmp(esc("C:\\x", 64, TXT_LINE), "C:\\x"));
	/* cut short at a whole unit, never half a character or escape */
	{
		char small[4];

		CHECK(!strcmp(str_escape(small, sizeof(small), "\xc3\xa4\xc3\xa4", 4, TXT_TERM),
			      "\xc3\xa4"));
		CHECK(!strcmp(str_escape(small, sizeof(small), "a\033", 2, TXT_TERM), "a"));
	}
	/* every byte value, in every mode: valid UTF-8; no control bytes for terminals */
	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	all[255] = '\0';
	for (size_t k = 0; k < sizeof(tos) / sizeof(tos[0]); k++) {
		const char *o = esc(all, sizeof(all), tos[k]);

		CHECK(utf8_ok(o));
		if (tos[k] != TXT_LABEL && tos[k] != TXT_JSON)
			CHECK(no_controls(o));
		CHECK(!strchr(o, '\n'));
	}
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
