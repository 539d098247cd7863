// SPDX-License-Identifier: GPL-2.0
/*
 * gpu.c - which GPU a TSG runs on, and --gpu for the sched commands.
 *
 * The watcher records the handle a TSG was allocated under (tsg_info.hParent:
 * a device or a subdevice of the process's RM client).  Through the
 * process's own RM file (borrowed, as every control here) RM says what that
 * handle is (GET_HANDLE_INFO), a device's subdevice is found beside it, and
 * the subdevice says its RM GPU ID (NV2080_CTRL_CMD_GPU_GET_ID), which
 * gpuctl's GPU table (cmd/drv/gpus.c) turns into the index and UUID.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuctl.h"
#include "target.h"
#include "gpus.h"
#include "sched.h"
#include "sched_gpu.h"

/*
 * (pid, client, parent) -> GPU, for the life of the command (the exporter's:
 * forgotten all at once when full).  A TSG whose GPU could not be told is
 * not remembered: asked again next time.
 */
static struct {
	__u32 pid, hClient, hParent;
	const struct gpu_info *g;
} memo[1024];
static int nmemo;

const struct gpu_info *tsg_gpu(struct sched *s, const struct tsg *t)
{
	const struct gpu_info *g = NULL;
	char err[256];
	__u32 id;
	int fd;

	for (int i = 0; i < nmemo; i++)
		if (memo[i].pid == t->info.pid && memo[i].hClient == t->info.hClient &&
		    memo[i].hParent == t->info.hParent)
			return memo[i].g;
	fd = tsg_file(s, t, err, sizeof(err));
	if (fd < 0)
		return NULL;
	if (!rm_object_gpu_id(fd, t->info.hClient, t->info.hParent, &id))
		g = gpu_of_rm_id(id);
	if (!g)
		return NULL;
	if (nmemo == (int)(sizeof(memo) / sizeof(memo[0])))
		nmemo = 0;
	memo[nmemo++] = (typeof(memo[0])){ t->info.pid, t->info.hClient,
						   t->info.hParent, g };
	return g;
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

int parse_gpu_opt(int *argc, char ***argv, const struct gpu_info **g)
{
	struct target t = { .gpu = *g ? (*g)->uuid_str : NULL };
	int n = target_take_gpu(&t, *argc, *argv);

	if (n <= 0)
		return n ? -1 : 0;	/* a usage error was reported */
	*g = gpu_option(t.gpu);
	if (!*g)
		return -2;	/* not a usage error: the GPU is not there */
	*argc -= n;
	*argv += n;
	return 1;
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
