// SPDX-License-Identifier: GPL-2.0
/*
 * args.c - prefetch load's options as rows (opts.h): -p PID, -- CMD,
 * --backend, --gpu, --max-bytes, --async, --duration, --detach, --pid-file,
 * --allow-helpers; the other words are the policy's (POLICY KEY VALUE...).
 */
#include <string.h>

#include "gpuctl.h"
#include "optsets.h"
#include "target.h"
#include "gpus.h"		/* gpu_option */
#include "uvm.h"		/* uuid_parse */
#include "prefetch/backend.h"

static const char *const backends[] = { "auto", "struct_ops", "engine", NULL };
static const enum pf_bk backend_of[] = { PF_BK_AUTO, PF_BK_STRUCT_OPS, PF_BK_ENGINE };

/* What the rows fill before pf_args gets it. */
struct load_opts {
	struct pf_args *a;	/* unused by the rows: they write the fields below */
	pid_t pid;
	char **cmd;
	int backend;
	const char *gpu, *pid_file;
	uint64_t max_bytes, duration_ns;
	bool async, detach, allow_helpers;
};

enum { R_PID, R_BACKEND, R_GPU, R_MAX_BYTES, R_ASYNC, R_DURATION };	/* rows[] order */

static const struct opt load_rows[] = {
	[R_PID] = { .name = "pid", .key = 'p', .kind = OPT_PID, .off = offsetof(struct load_opts, pid),
		    .arg = "PID", .help = "run the engine on this process", .flags = OPT_ONCE },
	[R_BACKEND] = { .name = "backend", .kind = OPT_ENUM, .off = offsetof(struct load_opts, backend),
			.arg = "BACKEND", .help = "auto, struct_ops or engine", .words = backends },
	[R_GPU] = { .name = "gpu", .kind = OPT_GPU, .off = offsetof(struct load_opts, gpu), .arg = "GPU",
		    .help = "the engine's GPU: index, UUID or PCI bus id", .flags = OPT_ONCE },
	[R_MAX_BYTES] = { .name = "max-bytes", .kind = OPT_SIZE, .off = offsetof(struct load_opts, max_bytes),
			  .arg = "BYTES", .help = "cap each request (4096, 64M, 1GiB)", .min = 4096,
			  .max = UINT64_MAX },
	[R_ASYNC] = { .name = "async", .kind = OPT_FLAG, .off = offsetof(struct load_opts, async),
		      .help = "the engine's migrations do not wait" },
	[R_DURATION] = { .name = "duration", .kind = OPT_DURATION, .off = offsetof(struct load_opts, duration_ns),
			 .arg = "S", .help = "stop the engine after S (30, 500ms, 2m)", .unit = NSEC_PER_SEC,
			 .min = NSEC_PER_MSEC, .max = 86400 * 365 * NSEC_PER_SEC },
	{ .name = "detach", .kind = OPT_FLAG, .off = offsetof(struct load_opts, detach),
	  .help = "run in the background (adaptive, or the engine with -p PID)" },
	{ .name = "pid-file", .kind = OPT_PATH, .off = offsetof(struct load_opts, pid_file),
	  .arg = "PATH", .help = "adaptive --detach: where its pid goes" },
	{ .name = "allow-helpers", .kind = OPT_FLAG, .off = offsetof(struct load_opts, allow_helpers),
	  .help = "load file: let a user's engine object call any kernel helper" },
	{ .name = NULL },
};

static const char *const load_usage[] = {
	"prefetch load POLICY [--detach [--pid-file PATH]] [KEY VALUE]...",
	"prefetch load ENGINE { -p PID [--detach] | -- CMD... } [ENGINE_OPTS] [KEY VALUE]...",
	"prefetch load file PATH [-p PID | -- CMD...] [--allow-helpers]",
	NULL,
};

const struct optset prefetch_load_opts = {
	.object = "prefetch", .command = "load", .rows = load_rows, .usage = load_usage,
	.flags = OPTS_WORDS | OPTS_CMD, .cmd_off = offsetof(struct load_opts, cmd),
};

/* --gpu: a UUID as it is; an index or a PCI bus id through RM's list (gpus.h). */
static int gpu_uuid(const char *spec, const char **uuid)
{
	const struct gpu_info *g;
	struct uvm_uuid u;

	if (!uuid_parse(spec, &u)) {
		*uuid = spec;
		return 0;
	}
	g = gpu_option(spec);
	if (!g)
		return EXIT_USAGE;
	*uuid = g->uuid_str;
	return 0;
}

int pf_args_parse(int argc, char **argv, struct pf_args *a)
{
	struct load_opts o = { 0 };
	struct opts_result r;
	int rc = opts_parse(&prefetch_load_opts, argc, argv, &o, &r);

	if (rc)
		return rc;
	if (r.help) {
		a->help = true;
		return 0;
	}
	if (r.argc > PF_ARGS_MAX)
		return usage_err("too many arguments");
	for (int i = 0; i < r.argc; i++)
		a->rest[a->n++] = r.argv[i];
	a->target.pid = o.pid;
	a->target.cmd = o.cmd;
	a->bk = backend_of[o.backend];
	a->max_bytes = o.max_bytes;
	a->async = o.async;
	a->duration = o.duration_ns / 1e9;
	a->detach = o.detach;
	a->pid_file = o.pid_file;
	a->allow_helpers = o.allow_helpers;
	a->engine_only = r.seen & (1u << R_GPU | 1u << R_MAX_BYTES | 1u << R_ASYNC | 1u << R_DURATION);
	if (o.gpu && gpu_uuid(o.gpu, &a->gpu))
		return EXIT_USAGE;
	return target_check(&a->target, 0);
}
