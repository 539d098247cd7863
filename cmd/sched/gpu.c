// SPDX-License-Identifier: GPL-2.0
/*
 * gpu.c - --gpu for the sched commands, and a TSG's GPU through the RM file
 * sched already borrowed from its process (cmd/tsgw/gpu.c asks RM).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuctl.h"
#include "target.h"
#include "gpus.h"
#include "sched.h"
#include "sched_gpu.h"

const struct gpu_info *tsg_gpu(struct sched *s, const struct tsg *t)
{
	char err[256];

	return tsgw_gpu(tsg_file(s, t, err, sizeof(err)), &t->info);
}

int tsg_keep_gpu(struct sched *s, struct tsg *v, int *n, const struct gpu_info *g)
{
	int k = 0;

	for (int i = 0; i < *n; i++)
		if (tsg_gpu(s, &v[i]) == g)
			v[k++] = v[i];
	*n = k;
	return k;
}

int tsg_select_gpu(struct sched *s, const struct tsg_target *tg, const struct gpu_info *g,
		   struct tsg **out, int *n)
{
	if (tg ? tsg_select(s, tg, out, n) : tsg_read(s, out, n))
		return -1;
	if (!g)
		return 0;
	if (!tsg_keep_gpu(s, *out, n, g)) {
		free(*out);
		*out = NULL;
		if (tg)
			p_err("no TSG of %s %llu runs on GPU %d (%s)", tg->by_pid ? "pid" : "ID",
			      tg->id, g->index, g->uuid_str);
		else
			p_err("no TSG the watcher recorded runs on GPU %d (%s)", g->index,
			      g->uuid_str);
		return -1;
	}
	return 0;
}
