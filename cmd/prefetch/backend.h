/* SPDX-License-Identifier: GPL-2.0 */
/*
 * backend.h - where a prefetch policy runs, behind one ops table (as
 * cmd/trace/backend.h does for tracing): the driver's struct_ops hooks,
 * system-wide (struct_ops.c), or the per-process engine of the stock
 * driver (cmd/pfengine/cli.c).  `gpuctl prefetch` (cmd/prefetch.c) parses
 * load's options once (args.c), picks the back-end and calls it.
 */
#ifndef GPUCTL_PREFETCH_BACKEND_H
#define GPUCTL_PREFETCH_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target.h"

enum pf_bk { PF_BK_AUTO, PF_BK_STRUCT_OPS, PF_BK_ENGINE };

#define PF_ARGS_MAX 64

/* load's command line: the options taken out, the rest in order. */
struct pf_args {
	struct target target;	/* -p PID, -- CMD */
	enum pf_bk bk;		/* --backend */
	const char *gpu;	/* --gpu UUID, or NULL */
	uint64_t max_bytes;	/* --max-bytes, 0: none */
	bool async;		/* --async */
	double duration;	/* --duration S, 0: none */
	bool engine_only;	/* one of the four above was given */
	bool detach;		/* --detach */
	const char *pid_file;	/* --pid-file PATH, or NULL */
	bool allow_helpers;	/* --allow-helpers */
	bool help;		/* -h: the help was printed */
	char *rest[PF_ARGS_MAX];
	int n;
};

/* Takes load's options out of argv into a: 0, or EXIT_USAGE after p_err. */
int pf_args_parse(int argc, char **argv, struct pf_args *a);

struct pf_backend_ops {
	const char *name;	/* as --backend takes it */
	/* Whether it can run here; why (or why not) into why. */
	bool (*usable)(char *why, size_t len);
	/* Whether name is one of its policies. */
	bool (*has_policy)(const char *name);
	/* Its policies' names joined by sep, into buf: buf. */
	const char *(*names)(char *buf, size_t len, const char *sep);
	/* load with a's options and policy words: the exit code. */
	int (*load)(struct pf_args *a);
	/* list: its policies with their parameters. */
	int (*list)(int argc, char **argv);
};

extern const struct pf_backend_ops pf_struct_ops_backend, pf_engine_backend;

#endif
