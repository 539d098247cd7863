// SPDX-License-Identifier: GPL-2.0
/*
 * match_pod.c - MATCH pod:UID: the TSGs of every process of the pod whose
 * metadata.uid is UID, on this node: its cgroup's subtree (either kubelet
 * layout, cgtree.c).  A pod not on the node yet is accepted with a
 * warning; its rule matches nothing (id 0) until `sched run` sees the
 * pod's cgroup appear, and waits again when it goes (the pod deleted).
 * The UID lives in the rule itself: 16 bytes in its comm.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "cgtree.h"
#include "match.h"

/* The rule's UID back in hex (CG_UID_HEX digits). */
static void uid_hex(const struct policy_rule *r, char hex[CG_UID_HEX + 1])
{
	for (int i = 0; i < TSG_COMM_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)r->comm[i]);
}

/* The rule's UID as it was written: 8-4-4-4-12, or 32 digits. */
static const char *uid_text(const struct policy_rule *r, char *buf, size_t len)
{
	char h[CG_UID_HEX + 1];

	uid_hex(r, h);
	if (r->cg_level & CG_LEVEL_UID_PLAIN)
		snprintf(buf, len, "%s", h);
	else
		snprintf(buf, len, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
	return buf;
}

static int pod_parse(const char *val, struct policy_rule *r)
{
	char hex[CG_UID_HEX + 1], path[PATH_MAX];
	uint64_t id;
	unsigned int level;
	int form = cg_uid_norm(val, hex), ret;

	if (form < 0)
		return usage_err("invalid pod UID '%s': 8-4-4-4-12 hex digits (the pod's "
				 "metadata.uid), or a static pod's 32", val);
	ret = sched_match_v2("pod");
	if (ret)
		return ret;
	for (int i = 0; i < TSG_COMM_LEN; i++) {
		unsigned int b;

		sscanf(hex + 2 * i, "%2x", &b);
		r->comm[i] = (char)b;
	}
	r->cg_level = form == 2 ? CG_LEVEL_UID_PLAIN : 0;
	if (cg_pod_find(hex, path, sizeof(path), &id, &level)) {
		r->id = id;
		r->cg_level |= level;
	} else {
		p_info("warning: pod %s has no cgroup on this node yet: its rule matches once "
		       "the kubelet makes it", val);
	}
	return 0;
}

static bool pod_refresh(struct policy_rule *r)
{
	char hex[CG_UID_HEX + 1], path[PATH_MAX], uid[40];
	uint64_t id = 0;
	unsigned int level = 0;

	uid_hex(r, hex);
	if (!cg_pod_find(hex, path, sizeof(path), &id, &level))
		id = 0;
	if (id == r->id)
		return false;
	if (id)
		p_info("pod %s: cgroup %s/%s, its rule matches from now on",
		       uid_text(r, uid, sizeof(uid)), CG_MOUNT, path);
	else
		p_info("pod %s: its cgroup is gone (pod deleted?), its rule waits for it again",
		       uid_text(r, uid, sizeof(uid)));
	r->id = id;
	r->cg_level = (r->cg_level & ~(__u32)CG_LEVEL_MASK) | (id ? level : 0);
	return true;
}

const struct sched_match sched_match_pod = {
	.name = "pod",
	.value = "UID",
	.kind = POLICY_MATCH_POD,
	.parse = pod_parse,
	.refresh = pod_refresh,
};
