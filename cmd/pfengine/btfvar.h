/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btfvar.h - an engine policy's globals by their BTF names: where each one
 * lies in its data section, for the runner (bpfrun.c: the batch, the
 * parameters, the counters of a loaded object) and for a pinned engine's
 * maps (pinned.c: prefetch set).
 */
#ifndef GPUCTL_PFENGINE_BTFVAR_H
#define GPUCTL_PFENGINE_BTFVAR_H

#include <stddef.h>
#include <stdint.h>

struct btf;

struct pfe_var {
	const char *sec, *name;		/* its data section (".bss", ".data.params"...), its name */
	uint32_t off, size;		/* where in the section */
};

/* Calls fn for each global of btf (NULL: none); stops at, and returns, fn's first nonzero. */
int pfe_var_each(const struct btf *btf, int (*fn)(const struct pfe_var *v, void *arg), void *arg);
/* The global name, of section sec (NULL: any): 1 with *out, else 0. */
int pfe_var_find(const struct btf *btf, const char *sec, const char *name, struct pfe_var *out);
/* The names of section sec's globals, ", " between them, into buf (cut at len). */
void pfe_var_names(const struct btf *btf, const char *sec, char *buf, size_t len);

#endif
