// SPDX-License-Identifier: GPL-2.0
/*
 * prefetch.c - gpuctl prefetch, a face: the commands and the choice of
 * back-end (cmd/prefetch/backend.h).  System-wide, the family of
 * cmd/policy/kinds_prefetch.c on the driver's struct uvm_gpu_ext
 * (cmd/prefetch/struct_ops.c, adaptive's loop in cmd/adaptive/); with
 * -p PID or -- CMD the per-process engine of the stock driver
 * (cmd/pfengine/cli.c).  show and unload cover both; migrate and advise
 * are the engine's one-shot calls.
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "optsets.h"
#include "pfengine/engine.h"
#include "policy/policy.h"
#include "policy/kinds.h"
#include "prefetch/backend.h"

static const struct pf_backend_ops *const so = &pf_struct_ops_backend, *const en = &pf_engine_backend;

static void print_names(const struct pf_backend_ops *b)
{
	char buf[256];

	printf("{ %s }", b->names(buf, sizeof(buf), " | "));
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	fprintf(stdout,
		"Usage: %1$s %2$s { list | show | unload | probe }\n"
		"       %1$s %2$s load POLICY [KEY VALUE]...\n"
		"       %1$s %2$s load adaptive [--detach [--pid-file PATH]] [KEY VALUE]...\n"
		"       %1$s %2$s load file PATH\n"
		"       %1$s %2$s load ENGINE { -p PID [--detach] | -- CMD... } [ENGINE_OPTS] [KEY VALUE]...\n"
		"       %1$s %2$s set KEY VALUE [KEY VALUE]...\n"
		"       %1$s %2$s set -p PID KEY VALUE\n"
		"       %1$s %2$s list --backend engine\n"
		"       %1$s %2$s unload -p PID\n"
		"       %1$s %2$s migrate -p PID ADDR LENGTH [--to { GPU_UUID | cpu }] [--async] [--max-bytes BYTES]\n"
		"       %1$s %2$s advise -p PID ADDR LENGTH HINT [{ GPU_UUID | cpu }]\n"
		"       %1$s %2$s help\n"
		"\n"
		"       COMMAND := { list | load | set | show | unload | probe | migrate | advise | help }\n"
		"       POLICY := ", bin_name, "prefetch");
	print_names(so);
	printf("\n       ENGINE := ");
	print_names(en);
	fprintf(stdout,
		"\n       ENGINE_OPTS := { --backend { auto | struct_ops | engine } | --gpu GPU | --max-bytes BYTES | --async | --duration S | --allow-helpers }\n"
		"       HINT := { preferred-location | unset-preferred-location | accessed-by |\n"
		"                 unset-accessed-by | read-duplication | unset-read-duplication }\n"
		"\n"
		"load attaches POLICY to the driver's struct uvm_gpu_ext and pins it\n"
		"under " GPUCTL_PIN_DIR "/prefetch; it replaces a running policy\n"
		"atomically. unload with nothing loaded succeeds. 'list' shows each\n"
		"policy's parameters.\n"
		"With -p PID or -- CMD, load runs the ENGINE policy in the per-process engine\n"
		"instead (any driver: the process's faults through uvm-tools, UVM_MIGRATE\n"
		"on its own UVM file), until the process exits; 'probe' says which\n"
		"back-end works here and why. migrate and advise act once on a range of\n"
		"another process's managed memory. Requests are cut to the GPU's free memory.\n"
		"An ENGINE policy is a BPF program (bpf/pfengine_abi.h); 'load file PATH -p PID'\n"
		"runs a user's own (--allow-helpers: whatever kernel helpers it calls). 'set -p PID'\n"
		"changes a running engine's parameter.\n");
	opts_help_rows(&prefetch_load_opts);
	return EXIT_OK;
}

/* --- commands ------------------------------------------------------------ */

/* load: the options parsed once, then the back-end -p PID / -- CMD or --backend pick. */
static int do_load(int argc, char **argv)
{
	struct pf_args a = { 0 };
	bool proc;
	char names[128];
	int ret;

	ret = pf_args_parse(argc, argv, &a);
	if (ret || a.help)
		return ret;
	proc = a.target.pid || a.target.cmd;
	if (a.bk == PF_BK_ENGINE || (a.bk == PF_BK_AUTO && proc)) {
		if (proc && a.n > 0 && !en->has_policy(a.rest[0]) && so->has_policy(a.rest[0]))
			return usage_err("policy '%s' needs the driver's struct_ops hooks; the engine "
					 "runs %s", a.rest[0], en->names(names, sizeof(names), ", "));
		return en->load(&a);
	}
	if (proc)
		return usage_err("struct_ops policies are system-wide: no -p PID or -- CMD");
	if (a.engine_only)
		return usage_err("--gpu, --max-bytes, --async and --duration are the engine's "
				 "(with -p PID or -- CMD)");
	if (a.n > 1 && !strcmp(a.rest[0], "file") && pfe_file_kind(a.rest[1]) == PFE_FILE_ENGINE)
		return usage_err("%s is an engine policy: it runs on one process, give -p PID "
				 "or -- CMD", a.rest[1]);
	if (a.n > 0 && strcmp(a.rest[0], "file") && en->has_policy(a.rest[0]) &&
	    !so->has_policy(a.rest[0]))
		return usage_err("policy '%s' runs in the per-process engine: give -p PID or -- CMD",
				 a.rest[0]);
	return so->load(&a);
}

struct simple_opts {
	pid_t pid;
	int backend;	/* list: 0 struct_ops, 1 engine */
};

static const char *const list_backends[] = { "struct_ops", "engine", NULL };

static const struct opt list_rows[] = {
	{ .name = "backend", .kind = OPT_ENUM, .off = offsetof(struct simple_opts, backend),
	  .arg = "BACKEND", .help = "whose policies: struct_ops (the default) or engine",
	  .words = list_backends },
	{ .name = NULL },
};

static const struct opt pid_rows[] = {
	{ .name = "pid", .key = 'p', .kind = OPT_PID, .off = offsetof(struct simple_opts, pid),
	  .arg = "PID", .help = "the engine running on this process", .flags = OPT_ONCE },
	{ .name = NULL },
};

const struct optset prefetch_list_opts = { .object = "prefetch", .command = "list", .rows = list_rows };
const struct optset prefetch_set_opts = { .object = "prefetch", .command = "set", .rows = pid_rows,
					  .flags = OPTS_WORDS };
const struct optset prefetch_unload_opts = { .object = "prefetch", .command = "unload",
					     .rows = pid_rows };

static int do_list(int argc, char **argv)
{
	struct simple_opts o = { 0 };
	struct opts_result r;

	if (opts_parse(&prefetch_list_opts, argc, argv, &o, &r))
		return EXIT_USAGE;
	if (r.help)
		return EXIT_OK;
	return o.backend ? en->list(0, argv) : so->list(0, argv);
}

static int do_set(int argc, char **argv)
{
	struct simple_opts o = { 0 };
	struct opts_result r;

	if (opts_parse(&prefetch_set_opts, argc, argv, &o, &r))
		return EXIT_USAGE;
	if (r.help)
		return EXIT_OK;
	if (!o.pid)
		return policy_set(&prefetch_kind, r.argc, r.argv);
	if (r.argc != 2)
		return usage_err("'prefetch set -p PID' takes one KEY VALUE (a running engine's parameter)");
	return pfe_set_main(o.pid, r.argv[0], r.argv[1]);
}

/*
 * The system-wide policy, then every engine: the policy alone when no
 * engine runs; else both (a stock driver may have no bpffs: the policy
 * part then says nothing is loaded).
 */
static int do_show(int argc, char **argv)
{
	int ret;

	if (argc || pfe_reg_show(false) <= 0)
		return policy_show(&prefetch_kind, argc, argv);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "system");
	}
	ret = policy_show(&prefetch_kind, 0, argv);
	if (json_output) {
		jsonw_name(json_wtr, "engines");
		jsonw_start_array(json_wtr);
	}
	pfe_reg_show(true);
	if (json_output) {
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	return ret;
}

static int do_unload(int argc, char **argv)
{
	struct simple_opts o = { 0 };
	struct opts_result r;

	if (opts_parse(&prefetch_unload_opts, argc, argv, &o, &r))
		return EXIT_USAGE;
	if (r.help)
		return EXIT_OK;
	if (o.pid)
		return pfe_reg_unload(o.pid);
	return policy_unload(&prefetch_kind, 0, argv);
}

static int do_probe(int argc, char **argv)
{
	char why_so[160], why_en[200] = "";
	bool so_ok, en_ok;

	(void)argv;
	if (argc)
		return usage_err("'prefetch probe' takes no arguments");
	so_ok = so->usable(why_so, sizeof(why_so));
	en_ok = en->usable(why_en, sizeof(why_en));
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "struct_ops");
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "available", so_ok);
		jsonw_string_field(json_wtr, "why", why_so);
		jsonw_end_object(json_wtr);
		jsonw_name(json_wtr, "engine");
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "available", en_ok);
		jsonw_string_field(json_wtr, "why", why_en);
		jsonw_end_object(json_wtr);
		jsonw_string_field(json_wtr, "system_wide", so_ok ? so->name : "none");
		jsonw_string_field(json_wtr, "per_process", en_ok ? en->name : "none");
		jsonw_end_object(json_wtr);
		return EXIT_OK;
	}
	printf("%s: %s: %s\n", so->name, so_ok ? "available" : "unavailable", why_so);
	printf("%s: %s: %s\n", en->name, en_ok ? "available" : "unavailable", why_en);
	printf("load POLICY: %s; load ENGINE -p PID / -- CMD: %s\n",
	       so_ok ? so->name : "unavailable", en_ok ? en->name : "unavailable");
	return EXIT_OK;
}

static int do_migrate(int argc, char **argv)
{
	return pfe_migrate_main(argc, argv);
}

static int do_advise(int argc, char **argv)
{
	return pfe_advise_main(argc, argv);
}

static const struct cmd prefetch_cmds[] = {
	{ "help", do_help },
	{ "list", do_list },
	{ "load", do_load },
	{ "set", do_set },
	{ "show", do_show },
	{ "unload", do_unload },
	{ "probe", do_probe },
	{ "migrate", do_migrate },
	{ "advise", do_advise },
	{ NULL, NULL },
};

static int do_prefetch(int argc, char **argv)
{
	return cmd_select(prefetch_cmds, argc, argv, "prefetch");
}

const struct object prefetch_object = {
	"prefetch", do_prefetch, prefetch_cmds, &prefetch_kind,
};
