// SPDX-License-Identifier: GPL-2.0
/* prefetch.c - gpuctl prefetch: the UVM prefetch policy (struct uvm_gpu_ext). */
#include "gpuctl.h"
#include "policy.h"

#include "prefetch_none.skel.h"
#include "prefetch_always_max.skel.h"

static const char *const prefetch_stats[] = {
	"default", "bypass", "enter_loop", "pages_requested", NULL,
};

static const struct policy_def prefetch_defs[] = {
	{ "none", "never prefetch: each fault migrates only its own pages",
	  prefetch_none__elf_bytes, NULL, NULL },
	{ "always_max", "prefetch the whole region the driver allows (the VA block) on every fault",
	  prefetch_always_max__elf_bytes, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const struct policy_kind prefetch_kind = {
	.object = "prefetch",
	.st_type = "uvm_gpu_ext",
	.stats = prefetch_stats,
	.defs = prefetch_defs,
};

const char *const prefetch_words[] = {
	"help", "list", "load", "set", "show", "unload", NULL,
};

const char *const prefetch_policy_words[] = {
	"none", "always_max", "file", NULL,
};

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	fprintf(stderr,
		"Usage: %1$s %2$s { list | show | unload }\n"
		"       %1$s %2$s load { POLICY [KEY VALUE]... | file PATH }\n"
		"       %1$s %2$s set KEY VALUE [KEY VALUE]...\n"
		"       %1$s %2$s help\n"
		"\n"
		"       COMMAND := { list | load | set | show | unload | help }\n"
		"       POLICY := { none | always_max }\n"
		"\n"
		"load attaches POLICY to the driver's struct uvm_gpu_ext and pins it\n"
		"under " GPUCTL_PIN_DIR "/prefetch; it replaces a running policy\n"
		"atomically. unload with nothing loaded succeeds.\n",
		bin_name, "prefetch");
	return EXIT_OK;
}

static int do_list(int argc, char **argv)
{
	return policy_list(&prefetch_kind, argc, argv);
}

static int do_load(int argc, char **argv)
{
	return policy_load(&prefetch_kind, argc, argv);
}

static int do_set(int argc, char **argv)
{
	return policy_set(&prefetch_kind, argc, argv);
}

static int do_show(int argc, char **argv)
{
	return policy_show(&prefetch_kind, argc, argv);
}

static int do_unload(int argc, char **argv)
{
	return policy_unload(&prefetch_kind, argc, argv);
}

static const struct cmd cmds[] = {
	{ "help", do_help },
	{ "list", do_list },
	{ "load", do_load },
	{ "set", do_set },
	{ "show", do_show },
	{ "unload", do_unload },
	{ NULL, NULL },
};

int do_prefetch(int argc, char **argv)
{
	return cmd_select(cmds, argc, argv, "prefetch");
}
