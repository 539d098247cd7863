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

#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy/policy.h"
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

static const struct policy_param adaptive_params[] = {
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

static const struct policy_kind replay_kind = {
	.object = "replay",
	.st_type = "uvm_fault_policy_ops",
	.stats = replay_stats,
	.defs = replay_defs,
	.ndefs = sizeof(replay_defs) / sizeof(replay_defs[0]),
	.inert = replay_inert,
};

/* What `load` takes, from the table: for the shell's completion. */
static const char *replay_words[sizeof(replay_defs) / sizeof(replay_defs[0]) + 1];

__attribute__((constructor)) static void replay_words_init(void)
{
	policy_words_fill(&replay_kind, replay_words);
}

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
		"       POLICY := ", bin_name, "replay");
	policy_print_names(&replay_kind, stdout);
	fprintf(stdout,
		"\n\n"
		"load attaches POLICY to the driver's struct uvm_fault_policy_ops and\n"
		"pins it under " GPUCTL_PIN_DIR "/replay; it replaces a running policy\n"
		"atomically. The driver asks the policy only when its module parameter\n"
		"uvm_perf_fault_replay_policy is 4; load and show warn otherwise.\n"
		"unload with nothing loaded succeeds.\n");
	return EXIT_OK;
}

static int do_list(int argc, char **argv)
{
	return policy_list(&replay_kind, argc, argv);
}

static int do_load(int argc, char **argv)
{
	LIBBPF_OPTS(policy_load_opts, opts);
	int ret = policy_load_args(&replay_kind, argc, argv, &opts);

	return ret ? ret : policy_load(&replay_kind, &opts);
}

static int do_set(int argc, char **argv)
{
	return policy_set(&replay_kind, argc, argv);
}

static int do_show(int argc, char **argv)
{
	return policy_show(&replay_kind, argc, argv);
}

static int do_unload(int argc, char **argv)
{
	return policy_unload(&replay_kind, argc, argv);
}

static const struct cmd replay_cmds[] = {
	{ "help", do_help },
	{ "list", do_list },
	{ "load", do_load },
	{ "set", do_set },
	{ "show", do_show },
	{ "unload", do_unload },
	{ NULL, NULL },
};

static int do_replay(int argc, char **argv)
{
	return cmd_select(replay_cmds, argc, argv, "replay");
}

const struct object replay_object = {
	"replay", do_replay, replay_cmds, replay_words,
};
