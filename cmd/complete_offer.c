// SPDX-License-Identifier: GPL-2.0
/*
 * complete_offer.c - where gpuctl __complete's candidates go: the word
 * being completed, a word offered when it starts with it (once, though two
 * tables name it), a marker as it is.  complete.c and complete_words.c both
 * offer through it.
 */
#include <string.h>

#include "complete.h"

static const char *cur = "";	/* the word being completed */
static void (*emit)(const char *word, void *ctx);
static void *emit_ctx;

/* What was offered, by hash: a word two tables name (a policy of both back-ends) once. */
static unsigned long long offered[512];
static int noffered;

static bool offered_before(const char *word)
{
	unsigned long long h = 14695981039346656037ull;

	for (const unsigned char *c = (const unsigned char *)word; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	for (int i = 0; i < noffered; i++)
		if (offered[i] == h)
			return true;
	if (noffered < (int)(sizeof(offered) / sizeof(offered[0])))
		offered[noffered++] = h;
	return false;
}

void complete_begin(const char *word, void (*fn)(const char *word, void *ctx), void *ctx)
{
	cur = word;
	emit = fn;
	emit_ctx = ctx;
	noffered = 0;
}

void complete_offer(const char *word)
{
	if (emit && !strncmp(word, cur, strlen(cur)) && !offered_before(word))
		emit(word, emit_ctx);
}

void complete_mark(const char *marker)
{
	if (emit)
		emit(marker, emit_ctx);
}

const char *complete_cur(void)
{
	return cur;
}
