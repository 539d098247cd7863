// SPDX-License-Identifier: GPL-2.0
/*
 * complete_offer.c - where gpuctl __complete's candidates go: the word
 * being completed, a word offered when it starts with it (once, though two
 * tables name it), a marker as it is; and the candidates read live (the
 * processes that hold /dev/nvidia-uvm, the GPUs).  complete.c and
 * complete_words.c both offer through it.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "complete.h"
#include "gpus.h"

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

/* Processes with /dev/nvidia-uvm open (the ones -p can act on). */
void complete_uvm_pids(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;

	if (!proc)
		return;
	while ((p = readdir(proc))) {
		char path[PATH_MAX], link[64];
		struct dirent *f;
		DIR *fds;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				if (!strcmp(link, "/dev/nvidia-uvm")) {
					complete_offer(p->d_name);
					break;
				}
			}
		}
		closedir(fds);
	}
	closedir(proc);
}

void complete_gpus(void)
{
	const struct gpu_info *g;
	const char *why;
	int n = gpus_list(&g, false, &why);
	char idx[16];

	for (int i = 0; i < n; i++) {
		snprintf(idx, sizeof(idx), "%d", g[i].index);
		complete_offer(idx);
		complete_offer(g[i].uuid_str);
	}
}
