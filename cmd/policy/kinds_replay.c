// SPDX-License-Identifier: GPL-2.0
/*
 * kinds_replay.c - the replay family (struct uvm_fault_policy_ops) as
 * data: its built-ins, parameters, counters, and the hook that says when a
 * loaded policy is inert (the driver asks the policy only when its
 * uvm_perf_fault_replay_policy module parameter is 4, EBPF).
 */
#include <stdio.h>
#include <sys/stat.h>

#include "gpuctl.h"
#include "policy.h"
#include "kinds.h"
#include "replay.h"

#include "replay_batch.skel.h"
#include "replay_once.skel.h"
#include "replay_adaptive.skel.h"

static const char *const replay_stats[STAT_POLICY] = {
	[RP_STAT_REPLAY] = "replay_now",
	[RP_STAT_DEFER] = "defer",
	[RP_STAT_BATCHES] = "batches",
	[RP_STAT_FAULTS] = "faults",
};

static const struct param adaptive_params[] = {
	[RP_ADAPTIVE_THRESHOLD] = { "threshold", 50, 1, 100,
				    "replay when duplicate + throttled entries reach this % of the batch" },
	[RP_ADAPTIVE_EVERY] = { "every", 4, 1, 1000000, "replay at the latest after this many batches" },
};

_Static_assert(sizeof(adaptive_params) / sizeof(adaptive_params[0]) == RP_ADAPTIVE_NPARAMS,
	       "adaptive: a row per parameter");

static const char *const adaptive_stats[STAT_MAX] = {
	[RP_ADAPTIVE_STAT_BY_SHARE] = "by_share",
	[RP_ADAPTIVE_STAT_BY_COUNT] = "by_count",
	[RP_ADAPTIVE_STAT_BY_DRAIN] = "by_drain",
};

static const struct policy_def replay_defs[] = {
	{ "batch", "replay after every serviced batch",
	  replay_batch__elf_bytes, NULL, 0, NULL },
	{ "once", "defer replays until the fault buffer is drained",
	  replay_once__elf_bytes, NULL, 0, NULL },
	{ "adaptive", "replay when the duplicate/throttled share crosses a threshold, or every N batches",
	  replay_adaptive__elf_bytes, POLICY_PARAMS(adaptive_params), adaptive_stats },
};

/*
 * Why a replay policy has no effect now, or NULL.  The driver reads the
 * parameter when it loads (read-only afterwards); the model lets root
 * write it.
 */
static const char *replay_inert(void)
{
	static const char *const modules[] = { "nvidia_uvm", "uvm_model" };
	static char why[512];
	char path[128];
	unsigned int v;
	struct stat st;
	size_t i;
	FILE *f;
	int n;

	for (i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		snprintf(path, sizeof(path),
			 "/sys/module/%s/parameters/uvm_perf_fault_replay_policy", modules[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fscanf(f, "%u", &v);
		fclose(f);
		if (n != 1 || v == RP_DRIVER_POLICY_EBPF)
			return NULL;
		if (!stat(path, &st) && (st.st_mode & S_IWUSR))
			snprintf(why, sizeof(why),
				 "the policy is inert: %s has uvm_perf_fault_replay_policy=%u, "
				 "the driver asks BPF only under 4; set it with "
				 "'echo 4 > %s'", modules[i], v, path);
		else
			snprintf(why, sizeof(why),
				 "the policy is inert: %s has uvm_perf_fault_replay_policy=%u, "
				 "the driver asks BPF only under 4; reload the driver with "
				 "'modprobe -r nvidia-uvm && modprobe nvidia-uvm "
				 "uvm_perf_fault_replay_policy=4' (or put 'options nvidia-uvm "
				 "uvm_perf_fault_replay_policy=4' in /etc/modprobe.d/)",
				 modules[i], v);
		return why;
	}
	return NULL;
}

const struct policy_kind replay_kind = {
	.object = "replay",
	.st_type = "uvm_fault_policy_ops",
	.used_for = "fault replay policies (gpuctl replay)",
	.stats = replay_stats,
	.defs = replay_defs,
	.ndefs = sizeof(replay_defs) / sizeof(replay_defs[0]),
	.inert = replay_inert,
};
