// SPDX-License-Identifier: GPL-2.0
/*
 * gpus.c - the GPUs of this host, once per process, for every command
 * (gpus.h).  The RM device is rm_device_path(NULL): $GPUCTL_RM_DEVICE in the
 * test VM, /dev/nvidiactl elsewhere.
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "gpus.h"

static struct {
	bool read;
	int n;
	struct gpu_info g[GPUS_MAX];
	char why[256];
} tab;

int gpus_list(const struct gpu_info **out, bool refresh, const char **why)
{
	if (!tab.read || refresh) {
		tab.read = true;
		tab.why[0] = 0;
		tab.n = rm_gpus_read(NULL, tab.g, GPUS_MAX, tab.why, sizeof(tab.why));
	}
	if (out)
		*out = tab.g;
	if (why)
		*why = tab.why;
	return tab.n;
}

const struct gpu_info *gpu_option(const char *spec)
{
	const struct gpu_info *g;
	const char *why;
	char names[512] = "";
	int n = gpus_list(&g, false, &why), i;

	if (n < 0) {
		if (strstr(why, "No such file"))	/* RM's device is not there */
			err_code("NO_DRIVER");
		p_err("--gpu %s: the GPUs cannot be listed: %s", spec, why);
		return NULL;
	}
	i = gpu_find(g, n, spec);
	if (i >= 0)
		return &g[i];
	for (int k = 0; k < n && k < 8; k++) {
		size_t l = strlen(names);

		snprintf(names + l, sizeof(names) - l, "%s%d (%s)", k ? ", " : "", g[k].index,
			 g[k].uuid_str);
	}
	p_err("--gpu %s: no such GPU (an index, a UUID or its first 8+ hex digits, or a PCI "
	      "bus id; %s%s)", spec, n ? "there are: " : "RM lists none", names);
	return NULL;
}

const struct gpu_info *gpu_of_rm_id(__u32 id)
{
	const struct gpu_info *g;
	int n = gpus_list(&g, false, NULL), i = n > 0 ? gpu_by_id(g, n, id) : -1;

	return i >= 0 ? &g[i] : NULL;
}

const struct gpu_info *gpu_of_uuid(const __u8 uuid[RM_UUID_BYTES])
{
	const struct gpu_info *g;
	int n = gpus_list(&g, false, NULL), i = n > 0 ? gpu_by_uuid(g, n, uuid) : -1;

	return i >= 0 ? &g[i] : NULL;
}
