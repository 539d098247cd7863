// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - -p PID and -- CMD, parsed and checked once (target.h).
 */
#include <string.h>

#include "gpuctl.h"
#include "target.h"

const char *target_strerror(enum target_err err)
{
	switch (err) {
	case TARGET_OK:
		return "no error";
	case TARGET_ERR_PID_MISSING:
		return "-p needs a PID";
	case TARGET_ERR_PID:
		return "invalid pid";
	case TARGET_ERR_NO_CMD:
		return "'--' needs a command";
	case TARGET_ERR_BOTH:
		return "give either -p PID or -- CMD, not both";
	case TARGET_ERR_NONE:
		return "give -p PID or -- CMD";
	case TARGET_ERR_GPU_MISSING:
		return "--gpu needs a GPU (index, UUID or PCI bus id; gpuctl probe lists them)";
	case TARGET_ERR_GPU_TWICE:
		return "give --gpu once";
	}
	return "invalid target";
}

int target_parse_pid(const char *arg, pid_t *pid)
{
	unsigned long long v;

	if (parse_u64("pid", arg, 1, TARGET_PID_MAX, &v))
		return EXIT_USAGE;
	*pid = (pid_t)v;
	return 0;
}

int target_check(const struct target *t, int need)
{
	if (t->pid && t->cmd)
		return usage_err("%s", target_strerror(TARGET_ERR_BOTH));
	if (need && !t->pid && !t->cmd)
		return usage_err("%s", target_strerror(TARGET_ERR_NONE));
	return 0;
}
