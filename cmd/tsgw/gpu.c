// SPDX-License-Identifier: GPL-2.0
/*
 * gpu.c - which GPU a recorded TSG runs on, for sched and the exporter.
 *
 * The watcher records the handle a TSG was allocated under (tsg_info.hParent:
 * a device or a subdevice of the process's RM client).  Through the
 * process's own RM file (borrowed: RM answers a client only through the file
 * that allocated it) RM says what that handle is (GET_HANDLE_INFO), a
 * device's subdevice is found beside it, and the subdevice says its RM GPU
 * ID (NV2080_CTRL_CMD_GPU_GET_ID), which gpuctl's GPU table (cmd/drv/gpus.h)
 * turns into the index and UUID.  Answers are remembered for the life of the
 * command (the exporter's: forgotten all at once when full); a TSG whose GPU
 * could not be told is asked again next time.
 */
#include <unistd.h>

#include "gpuctl.h"
#include "gpus.h"
#include "tsgw/tsgw.h"

static struct {
	__u32 pid, hClient, hParent;
	const struct gpu_info *g;
} memo[1024];
static int nmemo;

static const struct gpu_info *memo_find(const struct tsg_info *i)
{
	for (int k = 0; k < nmemo; k++)
		if (memo[k].pid == i->pid && memo[k].hClient == i->hClient &&
		    memo[k].hParent == i->hParent)
			return memo[k].g;
	return NULL;
}

const struct gpu_info *tsgw_gpu(int rm_fd, const struct tsg_info *i)
{
	const struct gpu_info *g = memo_find(i);
	__u32 id;

	if (g || rm_fd < 0)
		return g;
	if (rm_object_gpu_id(rm_fd, i->hClient, i->hParent, &id))
		return NULL;
	g = gpu_of_rm_id(id);
	if (!g)
		return NULL;
	if (nmemo == (int)(sizeof(memo) / sizeof(memo[0])))
		nmemo = 0;
	memo[nmemo].pid = i->pid;
	memo[nmemo].hClient = i->hClient;
	memo[nmemo].hParent = i->hParent;
	memo[nmemo++].g = g;
	return g;
}

const struct gpu_info *tsgw_gpu_of(const struct tsg_info *i)
{
	const struct gpu_info *g = memo_find(i);
	int fd;

	if (g)
		return g;
	fd = borrow_fd(i->pid, i->fd);
	if (fd < 0)
		return NULL;
	g = tsgw_gpu(fd, i);
	close(fd);
	return g;
}
