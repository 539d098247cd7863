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
	uvm_maps_init(m, m->pid);
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
