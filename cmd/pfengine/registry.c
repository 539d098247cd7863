// SPDX-License-Identifier: GPL-2.0
/*
 * registry.c - the running engines: per target process a pid file (the
 * engine's pid; claimed exclusively, so a second engine on the same
 * process is refused) and a stats file the engine rewrites every second,
 * in <run dir>/prefetch ($GPUCTL_RUN_DIR, default /run/gpuctl); and each
 * engine's maps, pinned under gpuctl's bpffs tree (<bpffs>/gpuctl/engine/
 * <target pid>/: pfe_io, params, counters, rodata, bss, ...) so that
 * `bpftool map dump pinned ...` shows a policy's state and `prefetch set`
 * changes its parameters while it runs, with the sweep that removes the pins
 * of an engine killed with -9 (claim.c says whether an engine runs on a
 * process, whatever its run directory).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuctl.h"
#include "engine.h"
#include "allocw.h"
#include "liveproc.h"
#include "safefile.h"
#include "units.h"

/* Housekeeping says nothing: a tree it may not use is the command's to report. */
static bool reg_quiet;

static int mkdir_safe(const char *path, bool create)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno != ENOENT || !create)
			return -errno;
		if (mkdir(path, 0755) && errno != EEXIST) {
			p_err("cannot create %s: %s", path, strerror(errno));
			return -1;
		}
		if (lstat(path, &st))
			return -errno;
	}
	/* the pid files decide who gets signalled: only ours may write here */
	if (!S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 022)) {
		if (!reg_quiet)
			p_err("%s is not a directory owned by root and writable by it alone", path);
		return -1;
	}
	return 0;
}

int pfe_reg_dir(char *buf, size_t len, bool create)
{
	const char *root = getenv("GPUCTL_RUN_DIR");
	int ret;

	if (!root || !*root)
		root = "/run/gpuctl";
	ret = mkdir_safe(root, create);
	if (ret)
		return ret;
	snprintf(buf, len, "%s/prefetch", root);
	return mkdir_safe(buf, create);
}

void pfe_reg_path(char *buf, size_t len, const char *dir, pid_t target, const char *kind)
{
	snprintf(buf, len, "%s/%d.%s", dir, (int)target, kind);
}

/* One engine's stats file: printed as a line (or a JSON object). */
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

/*
 * T when name is one of an engine's run files: <T>.pid, <T>.stats, or the
 * temporary file of a <T>.stats being written (safefile_tmp_of: one a kill
 * left between its naming and its rename); else 0.
 */
static long run_file_of(const char *name)
{
	char base[64];
	bool tmp = safefile_tmp_of(name, base, sizeof(base));
	const char *f = tmp ? base : name;
	char *end;
	long t;

	if (!isdigit((unsigned char)f[0]))
		return 0;
	t = strtol(f, &end, 10);
	if (t <= 0)
		return 0;
	if (tmp)
		return strcmp(end, ".stats") ? 0 : t;
	return strcmp(end, ".pid") && strcmp(end, ".stats") ? 0 : t;
}

/*
 * The run directory's files of engines killed with -9 (<T>.pid, <T>.stats;
 * an empty <T>.pid when the kill came between its creation and its
 * writing; a .<T>.stats.*.tmp when it came while the stats were renamed).
 * An engine claims its process (claim.c) before it makes any and keeps
 * the claim until they are gone: with no claim and no live pid in the pid
 * file, nothing runs that they describe.
 */
static void sweep_run_files(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	reg_quiet = true;
	d = pfe_reg_dir(dir, sizeof(dir), false) ? NULL : opendir(dir);
	reg_quiet = false;
	if (!d)
		return;
	while ((de = readdir(d))) {
		long t = run_file_of(de->d_name);

		if (!t || pfe_claimed((pid_t)t))
			continue;
		pfe_reg_path(path, sizeof(path), dir, (pid_t)t, "pid");
		if (pidfile_live(path))
			continue;
		unlink(path);
		pfe_reg_path(path, sizeof(path), dir, (pid_t)t, "stats");
		unlink(path);
		if (de->d_name[0] == '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	}
	closedir(d);
}

void pfe_reg_sweep(void)
{
	char root[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	pfe_claim_sweep();
	sweep_run_files();
	allocw_sweep();	/* a killed engine's process leaves the host's watcher */
	/* housekeeping: a tree it may not use is the command's to report, not the sweep's */
	if (pin_dir_quiet("engine", root, sizeof(root)))
		return;
	d = opendir(root);
	while (d && (de = readdir(d))) {
		char *end;
		long t = strtol(de->d_name, &end, 10);

		if (t <= 0 || *end)
			continue;
		/* the claim, not this run directory's pid file: an engine of another one counts */
		if (pfe_claimed((pid_t)t))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		remove_dir(path);
	}
	if (d)
		closedir(d);
}

static void show_one(const char *dir, pid_t target)
{
	char path[PATH_MAX], *line = NULL, key[64], val[128];
	size_t cap = 0;
	FILE *f;

	pfe_reg_path(path, sizeof(path), dir, target, "stats");
	f = fopen(path, "re");
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", target);
	} else {
		printf("engine on pid %d:", (int)target);
	}
	while (f && getline(&line, &cap, f) > 0) {
		char *end;
		unsigned long long v;

		if (sscanf(line, "%63s %127s", key, val) != 2 || !strcmp(key, "target"))
			continue;
		if (json_output) {
			v = strtoull(val, &end, 10);
			if (*end || !strcmp(key, "uptime_s"))
				jsonw_string_field(json_wtr, key, val);
			else
				jsonw_uint_field(json_wtr, key, v);
		} else if (strncmp(key, "param.", 6)) {
			char h[UNITS_BUF];
			const char *hv;

			v = strtoull(val, &end, 10);
			hv = *end ? NULL : stats_human(key, v, h, sizeof(h));
			printf(" %s %s%s%s%s", key, val, hv ? " (" : "", hv ? hv : "", hv ? ")" : "");
		}
	}
	if (json_output)
		jsonw_end_object(json_wtr);
	else
		printf("\n");
	free(line);
	if (f)
		fclose(f);
}

int pfe_reg_show(bool print)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	int n = 0;
	DIR *d;

	pfe_reg_sweep();
	if (pfe_reg_dir(dir, sizeof(dir), false))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long t = strtol(de->d_name, &end, 10);

		if (t <= 0 || strcmp(end, ".pid"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!pidfile_live(path))
			continue;	/* an engine killed with -9: not running */
		n++;
		if (print)
			show_one(dir, (pid_t)t);
	}
	closedir(d);
	return n;
}

int pfe_reg_unload(pid_t target)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct timespec ms = { 0, 10000000 };
	pid_t engine;
	int err;

	/* first: without the right to stop root's engine its pid file reads as none */
	if (geteuid() != 0 && cap_held(CAP_KILL) <= 0) {
		p_err("'prefetch unload -p' stops an engine running as root: it needs root "
		      "(CAP_KILL); gpuctl cannot tell whether one runs on process %d", (int)target);
		return EXIT_FAIL;
	}
	if (pfe_reg_dir(dir, sizeof(dir), false) == -1)
		return EXIT_FAIL;
	pfe_reg_sweep();
	pfe_reg_path(path, sizeof(path), dir, target, "pid");
	/* the pid file's process, verified through a pidfd: never one that reused its pid */
	err = pidfile_stop(path, SIGTERM, 5000, &engine);
	if (!engine) {
		/* Idempotent: no engine is the state asked for. */
		if (json_output)
			jsonw_null(json_wtr);
		else
			p_info("no prefetch engine on process %d", (int)target);
		return EXIT_OK;
	}
	if (err == -ETIMEDOUT) {
		p_err("the engine (pid %d) of process %d did not end within 5 s", (int)engine,
		      (int)target);
		return EXIT_FAIL;
	}
	if (err) {
		p_err("cannot stop the engine (pid %d) of process %d: %s", (int)engine,
		      (int)target, strerror(-err));
		return EXIT_FAIL;
	}
	/* it has exited: its pid file goes with it (or names none alive now) */
	for (int i = 0; i < 100 && pidfile_live(path) == engine; i++)
		nanosleep(&ms, NULL);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", target);
		jsonw_int_field(json_wtr, "engine_pid", engine);
		jsonw_end_object(json_wtr);
	} else {
		p_info("prefetch engine (pid %d) of process %d ended", (int)engine, (int)target);
	}
	return EXIT_OK;
}
