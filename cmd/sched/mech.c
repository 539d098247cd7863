// SPDX-License-Identifier: GPL-2.0
/*
 * mech.c - the table of scheduling mechanisms (mech.h): one row each.  A
 * row's place is kept in the TSG table (tsg_info.orig_mech), which
 * outlives the binary: rows are added at the end, never moved.
 */
#include <string.h>

#include "mech.h"

#define NMECHS	(sizeof(mechs) / sizeof(mechs[0]))

static const struct sched_mech *const mechs[] = {
	&sched_mech_rm,
	&sched_mech_mps,
};

const struct sched_mech *sched_mech_find(const char *name)
{
	for (size_t i = 0; i < NMECHS; i++)
		if (!strcmp(mechs[i]->name, name))
			return mechs[i];
	return NULL;
}

__u32 sched_mech_index(const struct sched_mech *m)
{
	for (size_t i = 0; i < NMECHS; i++)
		if (mechs[i] == m)
			return (__u32)i;
	return 0;
}

const struct sched_mech *sched_mech_at(__u32 i)
{
	return i < NMECHS ? mechs[i] : sched_mech_default();
}
