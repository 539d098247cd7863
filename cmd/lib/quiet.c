// SPDX-License-Identifier: GPL-2.0
/*
 * quiet.c - libbpf's warnings while a step opens and loads BPF (a policy,
 * the trace programs, the TSG watcher): a failed step reports one error
 * line, so libbpf's own lines are kept (the first one, which names the
 * cause) for that line rather than printed; under -d they go on to the
 * print function that was set.
 *
 * libbpf's print callback has no context argument: the capture lives in
 * this file's statics, set between begin and end, one step at a time.
 */
#include <stdarg.h>
#include <stdio.h>

#include <bpf/libbpf.h>

#include "gpuctl.h"

static libbpf_print_fn_t quiet_prev;
static int quiet_depth;	/* begin/end pairs may nest: the outer one counts */
static char quiet_first[320];

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n;

	if (debug_output && quiet_prev) {
		va_list copy;
		int ret;

		va_copy(copy, ap);
		ret = quiet_prev(level, fmt, copy);
		va_end(copy);
		return ret;
	}
	if (level != LIBBPF_WARN || quiet_first[0])
		return 0;
	vsnprintf(quiet_first, sizeof(quiet_first), fmt, ap);
	/* one line: libbpf's messages end with a newline, some hold more */
	for (n = 0; quiet_first[n]; n++)
		if (quiet_first[n] == '\n' || quiet_first[n] == '\t')
			quiet_first[n] = n + 1 < sizeof(quiet_first) && quiet_first[n + 1] ? ' ' : '\0';
	return 0;
}

void libbpf_quiet_begin(void)
{
	if (quiet_depth++)
		return;
	quiet_first[0] = '\0';
	quiet_prev = libbpf_set_print(quiet_print);
}

const char *libbpf_quiet_end(void)
{
	if (quiet_depth > 0 && !--quiet_depth) {
		libbpf_set_print(quiet_prev);
		quiet_prev = NULL;
	}
	return quiet_first;
}
