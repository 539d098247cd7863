// SPDX-License-Identifier: GPL-2.0
/*
 * kinds_evict.c - the evict family (struct uvm_evict_ops) as data: its
 * built-ins, parameters, counters, the priority levels, and the show hook
 * (the pids table of priority and quota, bpf/evict.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "policy.h"
#include "kinds.h"
#include "evict.h"

#include "evict_fifo.skel.h"
#include "evict_mru.skel.h"
#include "evict_lfu.skel.h"
#include "evict_priority.skel.h"
#include "evict_quota.skel.h"

const char *const evict_prio_names[EV_PRIO_END] = {
	[EV_PRIO_LOW] = "low",
	[EV_PRIO_NORMAL] = "normal",
	[EV_PRIO_HIGH] = "high",
};

static const char *const evict_stats[STAT_POLICY] = {
	[EV_STAT_ACTIVATE] = "chunk_activate",
	[EV_STAT_USED] = "chunk_used",
	[EV_STAT_PREPARE] = "evict_prepare",
	[EV_STAT_MOVED] = "moved",
};

static const struct param lfu_params[] = {
	[EV_LFU_MIN_FREQ] = { "min_freq", 2, 1, 1000000,
			      "times a block got GPU memory (after decay) that keep it from eviction" },
	[EV_LFU_DECAY] = { "decay", 128, 1, 1000000, "evictions after which all use counts halve" },
};

static const struct param quota_params[] = {
	[EV_QUOTA_DEFAULT_SHARE] = { "default_share", 100, 1, 100,
				     "share of GPU memory (%) of processes given no 'pid PID PERCENT'" },
};

_Static_assert(sizeof(lfu_params) / sizeof(lfu_params[0]) == EV_LFU_NPARAMS, "lfu: a row per parameter");
_Static_assert(sizeof(quota_params) / sizeof(quota_params[0]) == EV_QUOTA_NPARAMS,
	       "quota: a row per parameter");

static const char *const lfu_stats[STAT_MAX] = {
	[EV_LFU_STAT_PROTECTED] = "protected",
	[EV_LFU_STAT_DECAYS] = "decays",
};
static const char *const priority_stats[STAT_MAX] = {
	[EV_PRIORITY_STAT_PROTECTED] = "protected",
	[EV_PRIORITY_STAT_LOW_AGED] = "low_aged",
};
static const char *const quota_stats[STAT_MAX] = {
	[EV_QUOTA_STAT_PROTECTED] = "protected",
	[EV_QUOTA_STAT_OVER_QUOTA] = "over_quota",
	[EV_QUOTA_STAT_RELEASE] = "chunk_release",
};

static const struct policy_def evict_defs[] = {
	{ "fifo", "evict in the order chunks were populated; use does not promote",
	  evict_fifo__elf_bytes, NULL, 0, NULL },
	{ "mru", "evict the most recently used chunk first (cyclic scans larger than memory)",
	  evict_mru__elf_bytes, NULL, 0, NULL },
	{ "lfu", "keep frequently used blocks resident: per-CPU use counts with decay",
	  evict_lfu__elf_bytes, POLICY_PARAMS(lfu_params), lfu_stats },
	{ "priority", "protect the chunks of chosen processes: pid PID { high | normal | low }",
	  evict_priority__elf_bytes, NULL, 0, priority_stats },
	{ "quota", "a share of GPU memory per process: pid PID PERCENT",
	  evict_quota__elf_bytes, POLICY_PARAMS(quota_params), quota_stats },
};

bool evict_takes_pids(const char *policy)
{
	return policy && (!strcmp(policy, "priority") || !strcmp(policy, "quota"));
}

bool evict_is_quota(const char *policy)
{
	return !strcmp(policy, "quota");
}

/* A process (thread group) of that id exists now. */
bool evict_pid_exists(__u32 pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, pid);
	return !access(path, F_OK);
}

void evict_pid_json(__u32 pid, __u32 val, const char *policy)
{
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "pid", pid);
	if (evict_is_quota(policy))
		jsonw_uint_field(json_wtr, "share", val);
	else
		jsonw_string_field(json_wtr, "level",
				   val >= EV_PRIO_LOW && val < EV_PRIO_END ? evict_prio_names[val] : "?");
	jsonw_end_object(json_wtr);
}

static const char *prio_name(__u32 val)
{
	return val >= EV_PRIO_LOW && val < EV_PRIO_END ? evict_prio_names[val] : "?";
}

/* show: the pids table, and for quota what each process holds. */
static void evict_show(const char *policy, const char *mapdir)
{
	char path[PATH_MAX + 16];
	__u32 key, next, val;
	__s64 chunks;
	void *prev;
	int fd;

	if (!evict_takes_pids(policy))
		return;
	snprintf(path, sizeof(path), "%s/" EV_PIDS_MAP, mapdir);
	fd = bpf_obj_get(path);
	if (json_output) {
		jsonw_name(json_wtr, "pids");
		jsonw_start_array(json_wtr);
	}
	for (prev = NULL; fd >= 0 && !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;
		if (json_output)
			evict_pid_json(key, val, policy);
		else if (evict_is_quota(policy))
			printf("  pid %-10u share %u%%%s\n", key, val, evict_pid_exists(key) ? "" : " (exited)");
		else
			printf("  pid %-10u %s%s\n", key, prio_name(val), evict_pid_exists(key) ? "" : " (exited)");
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	if (fd >= 0)
		close(fd);
	if (!evict_is_quota(policy))
		return;

	snprintf(path, sizeof(path), "%s/usage", mapdir);
	fd = bpf_obj_get(path);
	if (json_output) {
		jsonw_name(json_wtr, "usage");
		jsonw_start_array(json_wtr);
	}
	for (prev = NULL; fd >= 0 && !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &chunks))
			continue;
		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "pid", key);
			jsonw_int_field(json_wtr, "chunks", chunks);
			jsonw_end_object(json_wtr);
		} else {
			printf("  usage pid %-10u %lld chunks\n", key, (long long)chunks);
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	if (fd >= 0)
		close(fd);
}

const struct policy_kind evict_kind = {
	.object = "evict",
	.st_type = "uvm_evict_ops",
	.used_for = "eviction policies (gpuctl evict)",
	.stats = evict_stats,
	.defs = evict_defs,
	.ndefs = sizeof(evict_defs) / sizeof(evict_defs[0]),
	.show = evict_show,
};
