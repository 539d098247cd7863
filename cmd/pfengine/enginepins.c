// SPDX-License-Identifier: GPL-2.0
/*
 * enginepins.c - each running engine's maps, pinned under gpuctl's bpffs
 * tree (<bpffs>/gpuctl/engine/<target pid>/: pfe_io, params, counters,
 * rodata, bss, ...) so that `bpftool map dump pinned ...` shows a policy's
 * state and `prefetch set` changes its parameters while it runs; and the
 * sweep that removes the pins of an engine killed with -9.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "engine.h"

int pfe_reg_pins(char *buf, size_t len, pid_t target, bool create)
{
	char root[PATH_MAX];
	int ret = pin_dir("engine", create, root, sizeof(root));

	if (ret)
		return -1;
	snprintf(buf, len, "%s/%d", root, (int)target);
	return 0;
}

static void remove_dir(const char *dir)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

void pfe_reg_sweep(void)
{
	char root[PATH_MAX], reg[PATH_MAX], pidp[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	if (pin_dir("engine", false, root, sizeof(root)) || pfe_reg_dir(reg, sizeof(reg), false))
		return;
	d = opendir(root);
	while (d && (de = readdir(d))) {
		char *end;
		long t = strtol(de->d_name, &end, 10);

		if (t <= 0 || *end)
			continue;
		pfe_reg_path(pidp, sizeof(pidp), reg, (pid_t)t, "pid");
		if (pidfile_live(pidp))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		remove_dir(path);
	}
	if (d)
		closedir(d);
}

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
	if (pfe_reg_dir(reg, sizeof(reg), false))
		return EXIT_FAIL;
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
