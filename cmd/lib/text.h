/* SPDX-License-Identifier: GPL-2.0 */
/* text.h - the one escape helper (text.c), below gpuctl.h and json_writer.c. */
#ifndef GPUCTL_TEXT_H
#define GPUCTL_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Names others choose (process names, paths, arguments, record files)
 * escaped for where they go: the one helper every writer uses.
 *   TXT_TERM   terminal tables and reports: control bytes, C1/bidi
 *              characters, invalid UTF-8 and '\\' as \xNN or \uNNNN;
 *   TXT_LINE   Error: lines: the same, the backslash kept;
 *   TXT_LABEL  Prometheus label values: \\ \" \n escaped, other control
 *              bytes '?', invalid UTF-8 U+FFFD;
 *   TXT_JSON   inside a JSON string: JSON's escapes, invalid UTF-8 \ufffd.
 * Valid UTF-8 is kept (multi-byte names stay readable).
 */
enum txt_to { TXT_TERM, TXT_LINE, TXT_LABEL, TXT_JSON };
/* Bytes of the valid UTF-8 character at s (1 for ASCII), 0 when invalid or cut. */
size_t utf8_seq_len(const unsigned char *s, size_t left);
/*
 * At most n bytes of src (stops at NUL) escaped for to into dst; dst[len]
 * always terminated, cut short at a whole character when it does not fit.
 * Returns dst.
 */
const char *str_escape(char *dst, size_t len, const char *src, size_t n, enum txt_to to);
/* The same, written to f without a bound. */
void fput_escaped(FILE *f, const char *src, size_t n, enum txt_to to);
/* str_escape(..., TXT_TERM). */
const char *str_printable(char *dst, size_t len, const char *src, size_t n);

#endif
