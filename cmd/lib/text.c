// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - strings from outside gpuctl (record files, process names, which
 * anyone can set) printed as text: a terminal must never get raw control
 * bytes (ESC sequences, BEL) from them.
 */
#include <stdio.h>

#include "gpuctl.h"

const char *str_printable(char *dst, size_t len, const char *src, size_t n)
{
	size_t o = 0;

	if (!len)
		return dst;
	for (size_t i = 0; i < n && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];
		char esc[5];
		size_t w;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			esc[0] = (char)c;
			w = 1;
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			w = 4;
		}
		if (o + w >= len)
			break;
		for (size_t k = 0; k < w; k++)
			dst[o++] = esc[k];
	}
	dst[o] = '\0';
	return dst;
}
