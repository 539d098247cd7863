// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - the engine's words of `gpuctl prefetch` (its back-end in
 * cmd/prefetch/backend.h): load ENGINE -p PID / -- CMD (a built-in BPF
 * policy, or a user's object: load file PATH [--allow-helpers]), list
 * --backend engine.
 * show, unload -p, set -p, migrate and advise call engine.h directly.
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "engine.h"
#include "prefetch/backend.h"

static bool en_has_policy(const char *name)
{
	return pfe_policy_find(name) != NULL || !strcmp(name, "file");
}

/* "none, stream, ..., file PATH" (sep ", "): every engine policy's name. */
static const char *en_names(char *buf, size_t len, const char *sep)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; pfe_builtin(i) && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? sep : "", pfe_builtin(i)->name);
	if (at < len)
		snprintf(buf + at, len - at, "%sfile PATH", sep);
	return buf;
}

/* load ENGINE ... for -p PID / -- CMD. */
static int en_load(struct pf_args *a)
{
	struct pfe_opts o = {
		.pid = a->target.pid, .cmd = a->target.cmd, .gpu = a->gpu,
		.max_bytes = a->max_bytes, .async = a->async, .duration = a->duration,
	};
	static struct pfe_policy user;
	enum pfe_file_kind kind;
	struct pfe_run check;
	char *args[PF_ARGS_MAX], names[256];
	int nargs = 0, first = 1;
	bool allow_helpers = a->allow_helpers;

	if (!o.pid && !o.cmd)
		return usage_err("the engine runs on one process: give -p PID or -- CMD");
	if (a->n < 1)
		return usage_err("'prefetch load' needs a POLICY");
	if (allow_helpers && strcmp(a->rest[0], "file"))
		return usage_err("--allow-helpers is for a user's object (load file PATH)");
	if (!strcmp(a->rest[0], "file")) {
		/* a user's object: the program's type tells an engine policy from struct_ops */
		if (a->n < 2)
			return usage_err("'load file' needs a PATH");
		if (pfe_policy_file(a->rest[1], allow_helpers, &user, &kind)) {
			if (kind == PFE_FILE_STRUCT_OPS)
				return usage_err("%s is a struct_ops policy: system-wide, no -p PID or -- CMD",
						 a->rest[1]);
			return EXIT_USAGE;
		}
		o.pol = &user;
		first = 2;
	} else {
		o.pol = pfe_policy_find(a->rest[0]);
	}
	if (!o.pol)
		return usage_err("unknown engine policy '%s' (%s)", a->rest[0],
				 en_names(names, sizeof(names), ", "));
	o.detach = a->detach;
	if (a->pid_file)
		return usage_err("the engine's pid file is its own (see 'prefetch show')");
	for (int i = first; i < a->n; i++)
		args[nargs++] = a->rest[i];
	if (o.detach && o.cmd)
		return usage_err("--detach takes -p PID, not -- CMD");
	/* parameters checked before anything is touched */
	if (pfe_run_init(&check, o.pol, nargs, args))
		return EXIT_USAGE;
	o.nargs = nargs;
	o.args = args;
	return pfe_engine_main(&o);
}

static void list_param(const struct param *q)
{
	if (json_output) {
		param_json(q);
	} else {
		printf("    %-14s default %-6llu [%llu..%llu] %s\n", q->name,
		       (unsigned long long)q->def, (unsigned long long)q->min,
		       (unsigned long long)q->max, q->doc);
	}
}

/* The engine's policies with their parameters, as 'list' prints the others. */
static int en_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output)
		jsonw_start_array(json_wtr);
	for (int i = 0; pfe_builtin(i); i++) {
		const struct pfe_policy *p = pfe_builtin(i);

		if (json_output) {
			jsonw_start_object(json_wtr);
			jsonw_string_field(json_wtr, "name", p->name);
			jsonw_string_field(json_wtr, "description", p->doc);
			jsonw_name(json_wtr, "params");
			jsonw_start_array(json_wtr);
		} else {
			printf("%s\n    %s\n", p->name, p->doc);
		}
		for (int k = 0; k < p->nparams; k++)
			list_param(&p->params[k]);
		if (json_output) {
			jsonw_end_array(json_wtr);
			jsonw_end_object(json_wtr);
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	return EXIT_OK;
}

const struct pf_backend_ops pf_engine_backend = {
	.name = "engine",
	.usable = pfe_engine_usable,
	.has_policy = en_has_policy,
	.names = en_names,
	.load = en_load,
	.list = en_list,
};
