// SPDX-License-Identifier: GPL-2.0
/*
 * args.c - prefetch load's options (backend.h): -p PID, -- CMD, --backend,
 * --gpu, --max-bytes, --async, --duration; the rest are the policy's words.
 */
#include <string.h>

#include "gpuctl.h"
#include "pfengine/engine.h"	/* pfe_parse_max_bytes */
#include "uvm.h"		/* uuid_parse */
#include "prefetch/backend.h"

static int backend_word(const char *w, enum pf_bk *bk)
{
	if (!strcmp(w, "auto"))
		*bk = PF_BK_AUTO;
	else if (!strcmp(w, pf_struct_ops_backend.name))
		*bk = PF_BK_STRUCT_OPS;
	else if (!strcmp(w, pf_engine_backend.name))
		*bk = PF_BK_ENGINE;
	else
		return usage_err("unknown backend '%s' (auto, struct_ops, engine)", w);
	return 0;
}

/* One of the options with a value, argv[i] and next: 0, or EXIT_USAGE. */
static int take_value(struct pf_args *a, const char *opt, const char *next)
{
	unsigned long long v;
	struct uvm_uuid u;

	if (!strcmp(opt, "--backend"))
		return backend_word(next, &a->bk);
	a->engine_only = true;
	if (!strcmp(opt, "--gpu")) {
		if (uuid_parse(next, &u))
			return usage_err("'%s' is not a GPU UUID (GPU-xxxxxxxx-...)", next);
		a->gpu = next;
	} else if (!strcmp(opt, "--max-bytes")) {
		if (pfe_parse_max_bytes(next, &a->max_bytes))
			return EXIT_USAGE;
	} else {
		if (parse_u64("--duration", next, 1, 86400 * 365, &v))
			return EXIT_USAGE;
		a->duration = (double)v;
	}
	return 0;
}

int pf_args_parse(int argc, char **argv, struct pf_args *a)
{
	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--") || !strcmp(o, "-p")) {
			int used = target_take(&a->target, argc - i, argv + i);

			if (used < 0)
				return -used;
			i += used - 1;
			continue;
		}
		if (!strcmp(o, "--backend") || !strcmp(o, "--gpu") ||
		    !strcmp(o, "--max-bytes") || !strcmp(o, "--duration")) {
			if (!next)
				return usage_err("%s needs a value", o);
			i++;
			if (take_value(a, o, next))
				return EXIT_USAGE;
			continue;
		}
		if (!strcmp(o, "--async")) {
			a->async = true;
			a->engine_only = true;
			continue;
		}
		if (a->n == PF_ARGS_MAX)
			return usage_err("too many arguments");
		a->rest[a->n++] = argv[i];
	}
	return target_check(&a->target, 0);
}
