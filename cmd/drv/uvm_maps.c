// SPDX-License-Identifier: GPL-2.0
/*
 * maps.c - a process's managed allocations: cudaMallocManaged maps each one
 * from /dev/nvidia-uvm, so they are the /dev/nvidia-uvm lines of
 * /proc/PID/maps that are accessible (the PROT_NONE ones are CUDA's VA
 * reservations, not memory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "uvm.h"

void uvm_maps_init(struct uvm_maps *m, pid_t pid)
{
	memset(m, 0, sizeof(*m));
	m->pid = pid;
}

void uvm_maps_free(struct uvm_maps *m)
{
	free(m->x);
	free(m->old);
	uvm_maps_init(m, m->pid);
}

static bool had(const struct uvm_maps *m, const struct uvm_extent *e)
{
	int lo = 0, hi = m->nold - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (e->start < m->old[mid].start)
			hi = mid - 1;
		else if (e->start > m->old[mid].start)
			lo = mid + 1;
		else
			return m->old[mid].end == e->end;
	}
	return false;
}

/* After a read: what is new since the read before goes to fresh[]. */
static void note_fresh(struct uvm_maps *m)
{
	if (m->reads > 1) {
		for (int i = 0; i < m->n; i++) {
			if (had(m, &m->x[i]))
				continue;
			if (m->nfresh == UVM_MAPS_FRESH)	/* the oldest make room */
				memmove(m->fresh, m->fresh + 1, --m->nfresh * sizeof(m->fresh[0]));
			m->fresh[m->nfresh++] = m->x[i];
		}
	}
	if (m->capold < m->n) {
		struct uvm_extent *o = realloc(m->old, m->n * sizeof(*o));

		if (!o) {
			m->nold = 0;
			return;
		}
		m->old = o;
		m->capold = m->n;
	}
	memcpy(m->old, m->x, m->n * sizeof(*m->x));
	m->nold = m->n;
}

int uvm_maps_take_fresh(struct uvm_maps *m, uint64_t *start, uint64_t *end, int max)
{
	int n = m->nfresh < max ? m->nfresh : max;

	for (int i = 0; i < n; i++) {
		start[i] = m->fresh[i].start;
		end[i] = m->fresh[i].end;
	}
	memmove(m->fresh, m->fresh + n, (m->nfresh - n) * sizeof(m->fresh[0]));
	m->nfresh -= n;
	return n;
}

static int maps_push(struct uvm_maps *m, uint64_t s, uint64_t e)
{
	if (m->n && m->x[m->n - 1].end == s) {	/* touching VMAs: one extent */
		m->x[m->n - 1].end = e;
		return 0;
	}
	if (m->n == m->cap) {
		int cap = m->cap ? m->cap * 2 : 64;
		struct uvm_extent *x = realloc(m->x, cap * sizeof(*x));

		if (!x)
			return -ENOMEM;
		m->x = x;
		m->cap = cap;
	}
	m->x[m->n++] = (struct uvm_extent){ s, e };
	return 0;
}

/* A /dev/nvidia-uvm line of a maps file: 1 with its range and whether it is accessible. */
static int uvm_line(const char *line, uint64_t *s, uint64_t *e, bool *acc)
{
	unsigned long long a, b;
	char perms[8];
	int name = 0;

	if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms, &name) < 3 || !name)
		return 0;
	if (strncmp(line + name, "/dev/nvidia-uvm", 15) ||
	    (line[name + 15] != '\n' && line[name + 15] != '\0' && line[name + 15] != ' '))
		return 0;
	*s = a;
	*e = b;
	*acc = strncmp(perms, "---", 3) != 0;
	return 1;
}

int uvm_maps_parse(struct uvm_maps *m, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	m->n = 0;
	while (getline(&line, &cap, f) > 0) {
		uint64_t s, e;
		bool acc;

		if (!uvm_line(line, &s, &e, &acc) || !acc)
			continue;
		ret = maps_push(m, s, e);
		if (ret)
			break;
	}
	free(line);
	m->loaded_s = mono_s();
	m->reads++;
	if (!ret)
		note_fresh(m);
	return ret;
}

int uvm_maps_each(pid_t pid, int (*fn)(uint64_t s, uint64_t e, bool accessible, void *arg),
		  void *arg)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	uint64_t s, e;
	bool acc;
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0)
		if (uvm_line(line, &s, &e, &acc))
			ret = fn(s, e, acc, arg);
	free(line);
	fclose(f);
	return ret;
}

int uvm_maps_load(struct uvm_maps *m)
{
	char path[64];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)m->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ret = uvm_maps_parse(m, f);
	fclose(f);
	return ret;
}

static int find(const struct uvm_maps *m, uint64_t addr)
{
	int lo = 0, hi = m->n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (addr < m->x[mid].start)
			hi = mid - 1;
		else if (addr >= m->x[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

int uvm_maps_find(struct uvm_maps *m, uint64_t addr, double min_s, uint64_t *start,
		  uint64_t *end)
{
	int i = find(m, addr);

	if (i < 0 && mono_s() - m->loaded_s >= min_s && !uvm_maps_load(m))
		i = find(m, addr);
	if (i < 0)
		return -1;
	*start = m->x[i].start;
	*end = m->x[i].end;
	return 0;
}

bool uvm_maps_covers(struct uvm_maps *m, uint64_t base, uint64_t len)
{
	uint64_t at = base, end = base + len;

	if (end < base)
		return false;
	while (at < end) {
		int i = find(m, at);

		if (i < 0)
			return false;
		at = m->x[i].end;
	}
	return true;
}
