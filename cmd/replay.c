// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - gpuctl replay: when the UVM driver replays faulting GPU
 * accesses after servicing a fault batch (struct uvm_fault_policy_ops).
 *
 * The driver asks the policy only when its uvm_perf_fault_replay_policy
 * module parameter is 4 (EBPF); otherwise a loaded policy is inert, and
 * load and show say so and how to change it.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "gpuctl.h"
#include "policy.h"

#include "replay_batch.skel.h"
#include "replay_once.skel.h"
#include "replay_adaptive.skel.h"

#define REPLAY_POLICY_EBPF 4	/* UVM_PERF_FAULT_REPLAY_POLICY_EBPF_VALUE */

static const char *const replay_stats[] = {
	"replay_now", "defer", "batches", "faults", NULL,
};

static const struct policy_param adaptive_params[] = {
	{ "threshold", 0, 50, 1, 100,
	  "replay when duplicate + throttled entries reach this % of the batch" },
	{ "every", 1, 4, 1, 1000000,
	  "replay at the latest after this many batches" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const char *const adaptive_stats[] = { "by_share", "by_count", "by_drain", NULL };

static const struct policy_def replay_defs[] = {
	{ "batch", "replay after every serviced batch",
	  replay_batch__elf_bytes, NULL, NULL },
	{ "once", "defer replays until the fault buffer is drained",
	  replay_once__elf_bytes, NULL, NULL },
	{ "adaptive", "replay when the duplicate/throttled share crosses a threshold, or every N batches",
	  replay_adaptive__elf_bytes, adaptive_params, adaptive_stats },
	{ NULL, NULL, NULL, NULL, NULL },
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
		if (n != 1 || v == REPLAY_POLICY_EBPF)
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

static const struct policy_kind replay_kind = {
	.object = "replay",
	.st_type = "uvm_fault_policy_ops",
	.stats = replay_stats,
	.defs = replay_defs,
	.inert = replay_inert,
};

static const char *const replay_policy_words[] = {
	"batch", "once", "adaptive", NULL,
};

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output)
		return EXIT_OK;	/* run_command writes null */
	fprintf(stdout,
		"Usage: %1$s %2$s { list | show | unload }\n"
		"       %1$s %2$s load { POLICY [KEY VALUE]... | file PATH }\n"
		"       %1$s %2$s set KEY VALUE [KEY VALUE]...\n"
		"       %1$s %2$s help\n"
		"\n"
		"       COMMAND := { list | load | set | show | unload | help }\n"
		"       POLICY := { batch | once | adaptive }\n"
		"\n"
		"load attaches POLICY to the driver's struct uvm_fault_policy_ops and\n"
		"pins it under " GPUCTL_PIN_DIR "/replay; it replaces a running policy\n"
		"atomically. The driver asks the policy only when its module parameter\n"
		"uvm_perf_fault_replay_policy is 4; load and show warn otherwise.\n"
		"unload with nothing loaded succeeds.\n",
		bin_name, "replay");
	return EXIT_OK;
}

static int do_replay(int argc, char **argv)
{
	static const struct policy_cmds own = { do_help, NULL, NULL };

	return policy_command(&replay_kind, &own, argc, argv);
}

const struct object replay_object = {
	"replay", do_replay, policy_cmds, replay_policy_words,
};
