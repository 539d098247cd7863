// SPDX-License-Identifier: GPL-2.0
/*
 * show.c - the read-only commands: `list` (the built-ins and their
 * parameters) and `show` (what is attached, its parameters and counters,
 * and what interrupted commands left).  Neither creates nor removes
 * anything; show needs CAP_BPF only when there is a pin tree to read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy.h"
#include "kinds.h"

void policy_print_names(const struct policy_kind *k, FILE *f)
{
	fputs("{ ", f);
	for (unsigned int i = 0; i < k->ndefs; i++)
		fprintf(f, "%s%s", i ? " | " : "", k->defs[i].name);
	fputs(" }", f);
}

/*
 * The tables are built with designated initializers from the ABI's enums:
 * a row left out is a hole (a NULL name), which no compiler reports.  Every
 * gpuctl run checks them here, at startup.
 */
static void kind_check(const struct policy_kind *k)
{
	const char *bad = NULL;

	for (unsigned int s = 0; s < STAT_POLICY && !bad; s++)
		if (!k->stats[s])
			bad = "a common counter without a name";
	for (unsigned int i = 0; i < k->ndefs && !bad; i++) {
		const struct policy_def *d = &k->defs[i];

		if (!d->name || !d->doc || !d->elf_bytes || d->nparams > PARAM_MAX)
			bad = "a policy without a name, text or object";
		for (unsigned int j = 0; j < d->nparams && !bad; j++)
			if (!d->params[j].name || !d->params[j].doc ||
			    d->params[j].def < d->params[j].min || d->params[j].def > d->params[j].max)
				bad = "a parameter without a name, or its default out of range";
	}
	if (bad) {
		fprintf(stderr, "gpuctl: internal error: the %s tables have %s\n", k->object, bad);
		abort();
	}
}

void policy_kinds_check(void)
{
	for (int i = 0; policy_kinds_table[i]; i++)
		kind_check(policy_kinds_table[i]);
}

static void list_params(const struct policy_def *d)
{
	for (unsigned int i = 0; i < d->nparams; i++) {
		const struct param *p = &d->params[i];

		if (json_output) {
			param_json(p);
		} else {
			printf("%-14s   %s %llu (%llu..%llu): %s\n", "", p->name,
			       (unsigned long long)p->def, (unsigned long long)p->min,
			       (unsigned long long)p->max, p->doc);
		}
	}
}

int policy_list(const struct policy_kind *k, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return usage_err("'%s list' takes no arguments", k->object);
	if (json_output)
		jsonw_start_array(json_wtr);
	for (unsigned int i = 0; i < k->ndefs; i++) {
		const struct policy_def *d = &k->defs[i];

		if (!json_output) {
			printf("%-14s %s\n", d->name, d->doc);
			list_params(d);
			continue;
		}
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "name", d->name);
		jsonw_string_field(json_wtr, "description", d->doc);
		jsonw_name(json_wtr, "params");
		jsonw_start_array(json_wtr);
		list_params(d);
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	return EXIT_OK;
}

static int open_map(const char *dir, __u32 map_id, const char *name)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%u/%s", dir, map_id, name);
	return bpf_obj_get(path);
}

static void show_params(const char *dir, const struct attached *a, const struct policy_def *def)
{
	int fd = open_map(dir, a->map_id, POLICY_MAP_PARAMS);
	__u64 v;

	if (json_output) {
		jsonw_name(json_wtr, "params");
		jsonw_start_object(json_wtr);
	}
	for (__u32 i = 0; fd >= 0 && def && i < def->nparams; i++) {
		if (bpf_map_lookup_elem(fd, &i, &v))
			continue;
		if (json_output)
			jsonw_uint_field(json_wtr, def->params[i].name, v);
		else
			printf("  param %-16s %llu\n", def->params[i].name, (unsigned long long)v);
	}
	if (json_output)
		jsonw_end_object(json_wtr);
	if (fd >= 0)
		close(fd);
}

static void show_stats(const struct policy_kind *k, const char *dir, const struct attached *a,
		       const struct policy_def *def)
{
	int ncpu = libbpf_num_possible_cpus(), fd = open_map(dir, a->map_id, POLICY_MAP_STATS);
	__u64 *vals, sum;
	const char *name;

	if (json_output) {
		jsonw_name(json_wtr, "counters");
		jsonw_start_object(json_wtr);
	}
	vals = ncpu > 0 ? calloc(ncpu, sizeof(*vals)) : NULL;
	for (__u32 i = 0; fd >= 0 && vals && i < STAT_MAX; i++) {
		name = i < STAT_POLICY ? k->stats[i] : def && def->stats ? def->stats[i] : NULL;
		if (!name || bpf_map_lookup_elem(fd, &i, vals))
			continue;
		sum = 0;
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
		if (json_output)
			jsonw_uint_field(json_wtr, name, sum);
		else
			printf("  count %-16s %llu\n", name, (unsigned long long)sum);
	}
	free(vals);
	if (json_output)
		jsonw_end_object(json_wtr);
	if (fd >= 0)
		close(fd);
}

/* What interrupted commands left: told, not removed (show changes nothing). */
static void show_leftovers(const struct policy_kind *k, const char *dir, __u32 keep)
{
	__u32 ids[LEFTOVERS_MAX];
	int helpers, n = leftovers(dir, keep, ids, LEFTOVERS_MAX, &helpers);

	if (json_output) {
		if (!n)
			return;
		jsonw_name(json_wtr, "leftovers");
		jsonw_start_array(json_wtr);
		for (int i = 0; i < n && i < LEFTOVERS_MAX; i++)
			jsonw_uint(json_wtr, ids[i]);
		jsonw_end_array(json_wtr);
		jsonw_uint_field(json_wtr, "leftover_helper_links", helpers);
		return;
	}
	if (!n)
		return;
	printf("  leftover map director%s of an interrupted command:", n > 1 ? "ies" : "y");
	for (int i = 0; i < n && i < LEFTOVERS_MAX; i++)
		printf(" %u", ids[i]);
	if (n > LEFTOVERS_MAX)
		printf(" ...");
	if (helpers)
		printf(", %d helper link%s still attached", helpers, helpers > 1 ? "s" : "");
	printf(" ('gpuctl %s unload' or the next load removes %s)\n", k->object,
	       n > 1 ? "them" : "it");
}

static void show_none(const struct policy_kind *k, const char *dir, const struct attached *a)
{
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_null_field(json_wtr, "policy");
		jsonw_bool_field(json_wtr, "stale_pin", a->link_fd >= 0);
	} else {
		printf("%s: no policy loaded%s\n", k->object, bpffs_note());
		if (a->link_fd >= 0)
			printf("  stale pin: detached link %u ('gpuctl %s unload' removes it)\n",
			       a->link_id, k->object);
	}
	if (dir)
		show_leftovers(k, dir, 0);
	if (json_output)
		jsonw_end_object(json_wtr);
}

static void show_attached(const struct policy_kind *k, const char *dir, const struct attached *a)
{
	const struct policy_def *def = attached_def(k, a);
	const char *why = k->inert ? k->inert() : NULL;
	char since[32] = "", mapdir[PATH_MAX + 16];
	time_t t;

	if (a->have_meta) {
		t = (time_t)a->meta.loaded_at;
		strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
	}
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "policy", attached_name(a));
		jsonw_string_field(json_wtr, "source", a->have_meta ? a->meta.source : "unknown");
		jsonw_string_field(json_wtr, "struct_ops", k->st_type);
		jsonw_uint_field(json_wtr, "loaded_at", a->have_meta ? a->meta.loaded_at : 0);
		jsonw_uint_field(json_wtr, "link_id", a->link_id);
		jsonw_uint_field(json_wtr, "map_id", a->map_id);
		if (why)
			jsonw_string_field(json_wtr, "warning", why);
	} else {
		char src[4 * sizeof(a->meta.source) + 1];	/* a path: escaped (text.h) */

		printf("%s: %s (%s)\n", k->object, attached_name(a), a->have_meta ?
		       str_printable(src, sizeof(src), a->meta.source, sizeof(a->meta.source)) :
		       "unknown source");
		printf("  struct %s, link %u, map %u%s%s\n", k->st_type, a->link_id, a->map_id,
		       since[0] ? ", since " : "", since);
		if (why)
			printf("  warning: %s\n", why);
	}
	show_params(dir, a, def);
	show_stats(k, dir, a, def);
	if (k->show) {
		snprintf(mapdir, sizeof(mapdir), "%s/%u", dir, a->map_id);
		k->show(def ? def->name : "", mapdir);
	}
	show_leftovers(k, dir, a->map_id);
	if (json_output)
		jsonw_end_object(json_wtr);
}

int policy_show(const struct policy_kind *k, int argc, char **argv)
{
	struct attached a = { .link_fd = -1, .map_fd = -1 };
	char dir[PATH_MAX], what[64];
	int lock_fd, err;

	(void)argv;
	if (argc)
		return usage_err("'%s show' takes no arguments", k->object);
	if (!pin_tree_exists()) {	/* bpffs missing too: nothing loaded */
		show_none(k, NULL, &a);
		return EXIT_OK;
	}
	snprintf(what, sizeof(what), "%s show", k->object);
	if (need_caps(what, NEED_BPF))
		return EXIT_FAIL;
	err = obj_pin_dir(k, false, dir, sizeof(dir));
	if (err == -ENOENT) {
		show_none(k, NULL, &a);
		return EXIT_OK;
	}
	if (err)
		return EXIT_FAIL;
	/* the lock: a load in progress would look like a leftover */
	lock_fd = pin_lock(dir);
	if (lock_fd < 0)
		return EXIT_FAIL;
	if (read_attached(k, dir, &a)) {
		close(lock_fd);
		return EXIT_FAIL;
	}
	if (a.link_fd < 0 || !a.map_id)
		show_none(k, dir, &a);
	else
		show_attached(k, dir, &a);
	attached_close(&a);
	close(lock_fd);
	return EXIT_OK;
}
