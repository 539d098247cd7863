// SPDX-License-Identifier: GPL-2.0
/*
 * params.c - a struct_ops policy's KEY VALUE pairs, read against its
 * definition: what load (load.c) and set (cmds.c) both take.  Below both of
 * them, so that neither calls the other for it.
 */
#include <stdbool.h>

#include "gpuctl.h"
#include "policy.h"

int policy_param_index(const struct policy_def *d, const char *name)
{
	return d ? param_find(d->params, d->nparams, name) : -1;
}

/* Parses KEY VALUE pairs of def into vals; usage errors name the problem. */
int parse_params(const struct policy_kind *k, const struct policy_def *d,
		 int argc, char *const *argv, __u64 *vals, bool *given)
{
	unsigned long long v;
	int i, err;

	for (; argc > 0; argc -= 2, argv += 2) {
		err = d ? param_parse_one(d->params, d->nparams, argc, argv, &i, &v) : PARAM_UNKNOWN;
		if (err == PARAM_UNKNOWN) {
			if (!d)
				return usage_err("a policy loaded from a file takes no parameters ('%s')",
						 argv[0]);
			for (unsigned int o = 0; o < k->ndefs; o++)
				if (policy_param_index(&k->defs[o], argv[0]) >= 0)
					return usage_err("'%s' is not a parameter of %s (it is one of %s)",
							 argv[0], d->name, k->defs[o].name);
			return usage_err("unknown parameter '%s' of %s policy %s ('gpuctl %s list' shows them)",
					 argv[0], k->object, d->name, k->object);
		}
		if (err)
			return err;
		vals[i] = v;
		if (given)
			given[i] = true;
	}
	return 0;
}
