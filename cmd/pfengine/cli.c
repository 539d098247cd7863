// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - the engine's words of `gpuctl prefetch` (its back-end in
 * cmd/prefetch/backend.h): load ENGINE -p PID / -- CMD, list --backend
 * engine.  show, unload -p, migrate and advise call engine.h directly.
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "engine.h"
#include "prefetch/backend.h"

static bool en_has_policy(const char *name)
{
	return pfe_policy_find(name) != NULL;
}

/* "stream, stride, populate" (sep ", "): every engine policy's name. */
static const char *en_names(char *buf, size_t len, const char *sep)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; pfe_policies[i] && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? sep : "", pfe_policies[i]->name);
	return buf;
}

/* load ENGINE ... for -p PID / -- CMD. */
static int en_load(struct pf_args *a)
{
	struct pfe_opts o = {
		.pid = a->target.pid, .cmd = a->target.cmd, .gpu = a->gpu,
		.max_bytes = a->max_bytes, .async = a->async, .duration = a->duration,
	};
	struct pfe_run check;
	char *args[PF_ARGS_MAX];
	int nargs = 0;

	if (!o.pid && !o.cmd)
		return usage_err("the engine runs on one process: give -p PID or -- CMD");
	if (a->n < 1)
		return usage_err("'prefetch load' needs a POLICY");
	o.pol = pfe_policy_find(a->rest[0]);
	if (!o.pol)
		return usage_err("unknown engine policy '%s'", a->rest[0]);
	for (int i = 1; i < a->n; i++) {
		if (!strcmp(a->rest[i], "--detach"))
			o.detach = true;
		else if (!strcmp(a->rest[i], "--pid-file"))
			return usage_err("the engine's pid file is its own (see 'prefetch show')");
		else
			args[nargs++] = a->rest[i];
	}
	if (o.detach && o.cmd)
		return usage_err("--detach takes -p PID, not -- CMD");
	/* parameters checked before anything is touched */
	if (pfe_run_init(&check, o.pol, nargs, args))
		return EXIT_USAGE;
	pfe_run_free(&check);
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
	for (int i = 0; pfe_policies[i]; i++) {
		const struct pfe_policy *p = pfe_policies[i];

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
