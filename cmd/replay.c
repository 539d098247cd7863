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
#include "policy/kinds.h"
#include "replay.h"


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

POLICY_CMD(do_list, policy_list, replay_kind)
POLICY_CMD(do_load, policy_load_plain, replay_kind)
POLICY_CMD(do_set, policy_set, replay_kind)
POLICY_CMD(do_show, policy_show, replay_kind)
POLICY_CMD(do_unload, policy_unload, replay_kind)

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
	"replay", do_replay, replay_cmds, &replay_kind,
};
