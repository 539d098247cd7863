/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpus.h - the GPUs of this host for the commands (cmd/drv/gpus.c): RM's list
 * (rm_gpu.h) read once per process, --gpu resolved against it, and the one
 * way every command prints a GPU: "<index>" in tables, and in JSON
 * {"gpu": index, "uuid": "GPU-..."}.
 */
#ifndef GPUCTL_GPUS_H
#define GPUCTL_GPUS_H

#include "gpuctl.h"
#include "rm_gpu.h"

#define GPUS_MAX	GPUCTL_MAX_GPUS	/* RM lists RM_MAX_GPUS (32) at most */

/*
 * RM's GPUs (cached; refresh: read again, for the free memory).  Returns the
 * count (0..GPUS_MAX) and *out, or -1 with the reason in *why (static).
 */
int gpus_list(const struct gpu_info **out, bool refresh, const char **why);
/*
 * --gpu SPEC (index, UUID or its prefix, PCI bus id): the GPU, or NULL after
 * p_err naming the GPUs there are.
 */
const struct gpu_info *gpu_option(const char *spec);
/* The GPU with RM GPU ID id (a TSG's), or NULL when not listed. */
const struct gpu_info *gpu_of_rm_id(__u32 id);
/* The GPU with that UUID (16 bytes), or NULL. */
const struct gpu_info *gpu_of_uuid(const __u8 uuid[RM_UUID_BYTES]);
#endif
