/* SPDX-License-Identifier: GPL-2.0 */
/*
 * param.h - a policy's numeric parameter, the one type of every policy kind
 * (the struct_ops families of cmd/policy/ and the engine's policies of
 * cmd/pfengine/), and the one KEY VALUE parser (param.c).
 */
#ifndef GPUCTL_LIB_PARAM_H
#define GPUCTL_LIB_PARAM_H

#include <linux/types.h>

struct param {
	const char *name;
	__u64 def, min, max;
	const char *doc;
};

/* The index of name in p[n], or -1. */
int param_find(const struct param *p, unsigned int n, const char *name);

#define PARAM_UNKNOWN (-1)
/*
 * One KEY VALUE pair at argv[0], argv[1] (argc words left): 0 with *idx and
 * *val; PARAM_UNKNOWN when KEY is not in p[n] (nothing printed: the caller
 * says whose parameter it is not); EXIT_USAGE after p_err when the value is
 * missing or out of min..max.
 */
int param_parse_one(const struct param *p, unsigned int n, int argc, char *const *argv,
		    int *idx, unsigned long long *val);

/* {"name", "default", "min", "max", "description"} of p, for list -j. */
void param_json(const struct param *p);

#endif
