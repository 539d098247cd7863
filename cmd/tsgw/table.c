// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - the TSG table, the watcher's map of the TSGs it saw allocated:
 * tsg_table_walk is the one way through it (sched reads it, trace tsg cleans
 * its private one, the exporter reads the pinned one); the class names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "tsgw/tsgw.h"

int tsg_table_walk(int fd, tsg_walk_fn fn, void *arg)
{
	struct tsg_key *keys = calloc(TSG_MAX, sizeof(*keys)), *prev = NULL, next;
	int n = 0;

	if (!keys)
		return -ENOMEM;
	/* Keys first: deleting while walking would restart the walk. */
	while (n < TSG_MAX && !bpf_map_get_next_key(fd, prev, &next)) {
		keys[n] = next;
		prev = &keys[n++];
	}
	for (int i = 0; i < n; i++) {
		struct tsg_info info;

		if (bpf_map_lookup_elem(fd, &keys[i], &info))
			continue;	/* deleted meanwhile */
		if (fn(&keys[i], &info, arg) == TSG_DELETE)
			bpf_map_delete_elem(fd, &keys[i]);
	}
	free(keys);
	return 0;
}

bool tsg_proc_gone(__u32 pid)
{
	char proc[32];

	snprintf(proc, sizeof(proc), "/proc/%u", pid);
	return access(proc, F_OK) && errno == ENOENT;
}

const char *const tsgw_stat_names[STAT_NR] = {
	[STAT_IOCTLS] = "rm_ioctls",
	[STAT_TSG_NEW] = "tsg_new",
	[STAT_TSG_FREE] = "tsg_free",
	[STAT_APP_SET] = "app_controls",
	[STAT_TABLE_FULL] = "table_full",
	[STAT_RB_FULL] = "ringbuf_full",
	[STAT_DECIDED] = "decided",
};

const char *const policy_class_names[POLICY_CLASS_NR] = {
	[POLICY_CLASS_NONE] = "-",
	[POLICY_CLASS_LC] = "lc",
	[POLICY_CLASS_BE] = "be",
	[POLICY_CLASS_FIXED] = "fixed",
};

const char *policy_class_name(__u32 cls)
{
	return cls < POLICY_CLASS_NR ? policy_class_names[cls] : "-";
}

const char *policy_class_json(__u32 cls)
{
	return cls == POLICY_CLASS_NONE || cls >= POLICY_CLASS_NR ? NULL : policy_class_names[cls];
}
