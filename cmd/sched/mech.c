// SPDX-License-Identifier: GPL-2.0
/*
 * mech.c - the table of scheduling mechanisms (mech.h): one row each.
 */
#include <string.h>

#include "mech.h"

static const struct sched_mech *const mechs[] = {
	&sched_mech_rm,
	&sched_mech_mps,
};

const struct sched_mech *sched_mech_find(const char *name)
{
	for (size_t i = 0; i < sizeof(mechs) / sizeof(mechs[0]); i++)
		if (!strcmp(mechs[i]->name, name))
			return mechs[i];
	return NULL;
}
