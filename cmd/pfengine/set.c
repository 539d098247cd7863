// SPDX-License-Identifier: GPL-2.0
/*
 * set.c - `prefetch set -p PID KEY VALUE`: a parameter of the engine that
 * runs on process PID, written into its pinned maps (registry.c finds them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "engine.h"

int pfe_set_main(int argc, char **argv)
{
	char reg[PATH_MAX], pidp[PATH_MAX], pins[PATH_MAX];
	unsigned long long pid;
	int ret;

	if (argc != 4 || strcmp(argv[0], "-p"))
		return usage_err("usage: prefetch set -p PID KEY VALUE");
	if (parse_u64("PID", argv[1], 1, INT32_MAX, &pid))
		return EXIT_USAGE;
	if (need_caps("prefetch set", NEED_BPF))
		return EXIT_FAIL;
	pfe_reg_sweep();
	/* every refusal says why: no run directory is no engine (it was silent, `null` under -j) */
	ret = pfe_reg_dir(reg, sizeof(reg), false);
	if (ret == -ENOENT) {
		p_err("no prefetch engine runs on process %d", (int)pid);
		return EXIT_FAIL;
	}
	if (ret) {
		if (ret != -1)	/* -1: said already */
			p_err("cannot read the engines' run directory: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	pfe_reg_path(pidp, sizeof(pidp), reg, (pid_t)pid, "pid");
	if (!pidfile_live(pidp) || pfe_reg_pins(pins, sizeof(pins), (pid_t)pid, false)) {
		p_err("no prefetch engine runs on process %d", (int)pid);
		return EXIT_FAIL;
	}
	ret = pfe_pinned_set(pins, argv[2], argv[3]);
	if (ret == EXIT_OK) {
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_int_field(json_wtr, "pid", (int)pid);
			jsonw_string_field(json_wtr, "param", argv[2]);
			jsonw_string_field(json_wtr, "value", argv[3]);
			jsonw_end_object(json_wtr);
		} else {
			p_info("engine of process %d: %s = %s", (int)pid, argv[2], argv[3]);
		}
	}
	return ret;
}
