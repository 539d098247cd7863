// SPDX-License-Identifier: GPL-2.0
/*
 * param.c - KEY VALUE pairs of a policy's parameters (param.h).
 */
#include <string.h>

#include "gpuctl.h"
#include "param.h"

int param_find(const struct param *p, unsigned int n, const char *name)
{
	for (unsigned int i = 0; p && i < n; i++)
		if (!strcmp(p[i].name, name))
			return (int)i;
	return -1;
}

int param_parse_one(const struct param *p, unsigned int n, int argc, char *const *argv,
		    int *idx, unsigned long long *val)
{
	int i = param_find(p, n, argv[0]);

	if (i < 0)
		return PARAM_UNKNOWN;
	if (argc < 2)
		return usage_err("parameter '%s' needs a value", argv[0]);
	if (parse_u64(p[i].name, argv[1], p[i].min, p[i].max, val))
		return EXIT_USAGE;
	*idx = i;
	return 0;
}

void param_json(const struct param *p)
{
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "name", p->name);
	jsonw_uint_field(json_wtr, "default", p->def);
	jsonw_uint_field(json_wtr, "min", p->min);
	jsonw_uint_field(json_wtr, "max", p->max);
	jsonw_string_field(json_wtr, "description", p->doc);
	jsonw_end_object(json_wtr);
}
