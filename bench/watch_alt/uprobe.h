/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobe.h - what watch-alt-uprobe's loader (uprobe.c) and its report
 * (uprobe_report.c) share: the attach points with their counts, the options.
 */
#ifndef WATCH_ALT_UPROBE_H
#define WATCH_ALT_UPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uprobe_abi.h"

#define WU_FIRST 32
#define WU_KEEP (1u << 20)	/* latencies kept a point, for the median */

struct point {
	const char *sym;		/* or NULL: at off */
	unsigned long long off;
	unsigned long long calls, ok, bytes, took_max;
	unsigned long long sizes[WU_FIRST], addrs[WU_FIRST];
	uint64_t *took;
	size_t ntook;
};

struct opts {
	const char *lib, *sym, *out;
	struct point pt[WU_MAX_POINTS];
	int npt;
	pid_t pid;
	char **cmd;
};

/* The report (one JSON line) to o->out, written whole (a temporary file
 * renamed), or to standard error; -1 after an Error line. */
int wu_report(const struct opts *o, pid_t pid, double secs, const __u64 *entries, __u64 lost,
	      __u64 untracked);

#endif
