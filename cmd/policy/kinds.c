// SPDX-License-Identifier: GPL-2.0
/*
 * kinds.c - the table of every policy kind (kinds.h), and a quiet read of
 * what is attached for each: for readers of all kinds at once (the
 * exporter), who must neither print per read nor wait for a load's lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy.h"
#include "kinds.h"

const struct policy_kind *const policy_kinds_table[] = {
	&prefetch_kind,
	&replay_kind,
	&evict_kind,
	NULL,
};
_Static_assert(sizeof(policy_kinds_table) / sizeof(policy_kinds_table[0]) == POLICY_NKINDS + 1,
	       "POLICY_NKINDS counts the table");

int policy_kinds(const struct policy_kind *const **out)
{
	int n = 0;

	*out = policy_kinds_table;
	while (policy_kinds_table[n])
		n++;
	return n;
}

const char *policy_kind_word(const struct policy_kind *k, unsigned int i)
{
	return i < k->ndefs ? k->defs[i].name : NULL;
}

/* The per-CPU stats slots of map directory id under dir, summed; names from k and def. */
static void snap_stats(const struct policy_kind *k, const struct policy_def *def,
		       const char *dir, struct policy_snap *s)
{
	int ncpu = libbpf_num_possible_cpus(), fd;
	char path[PATH_MAX + 32];
	__u64 *vals;

	snprintf(path, sizeof(path), "%s/%u/%s", dir, s->map_id, POLICY_MAP_STATS);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;	/* a swap removed it meanwhile: no counters this time */
	vals = ncpu > 0 ? calloc(ncpu, sizeof(*vals)) : NULL;
	for (__u32 i = 0; vals && i < STAT_MAX; i++) {
		const char *name = i < STAT_POLICY ? k->stats[i] :
				   def && def->stats ? def->stats[i] : NULL;
		__u64 sum = 0;

		if (!name || bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
		s->stats[s->nstats].name = name;
		s->stats[s->nstats++].value = sum;
	}
	free(vals);
	close(fd);
}

int policy_snapshot(const struct policy_kind *k, struct policy_snap *s)
{
	struct attached a;
	char dir[PATH_MAX];
	int err;

	memset(s, 0, sizeof(*s));
	s->object = k->object;
	err = obj_pin_dir(k, false, dir, sizeof(dir));
	if (err)
		return err == -ENOENT ? 0 : err;
	/* no lock: a load in progress swaps the link atomically; we read either */
	if (read_attached(k, dir, &a))
		return -EINVAL;
	if (a.link_fd >= 0 && a.map_id) {
		const struct policy_def *def = attached_def(k, &a);

		s->loaded = true;
		s->map_id = a.map_id;
		snprintf(s->name, sizeof(s->name), "%s", attached_name(&a));
		if (a.have_meta) {
			snprintf(s->source, sizeof(s->source), "%s", a.meta.source);
			s->loaded_at = a.meta.loaded_at;
		}
		snap_stats(k, def, dir, s);
	}
	attached_close(&a);
	return 0;
}
