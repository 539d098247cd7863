// SPDX-License-Identifier: GPL-2.0
/*
 * struct_ops.c - prefetch's system-wide back-end (backend.h): the policies
 * of the prefetch family (cmd/policy/kinds_prefetch.c) attached to the
 * driver's struct uvm_gpu_ext; adaptive's loop (cmd/adaptive/) with them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "adaptive/adaptive.h"
#include "policy/policy.h"
#include "policy/kinds.h"
#include "prefetch/backend.h"

static bool so_usable(char *why, size_t len)
{
	const char *st = prefetch_kind.st_type;
	char mod[64] = "";
	int err;

	err = probe_struct_ops(st, mod, sizeof(mod));
	if (err == -ENOENT)
		snprintf(why, len, "the driver has no struct %s (a stock driver: "
			 "the hooks come with gpuctl's kernel patches)", st);
	else if (err)
		snprintf(why, len, "struct %s is there but not registered", st);
	else
		snprintf(why, len, "struct %s registered by %s; system-wide", st,
			 mod[0] ? mod : "the kernel");
	return !err;
}

static bool so_has_policy(const char *name)
{
	const char *w;

	for (unsigned int i = 0; (w = policy_kind_word(&prefetch_kind, i)); i++)
		if (!strcmp(w, name))
			return true;
	return false;
}

static const char *so_names(char *buf, size_t len, const char *sep)
{
	const char *w;
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; (w = policy_kind_word(&prefetch_kind, i)) && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? sep : "", w);
	return buf;
}

/* load POLICY [KEY VALUE]..., adaptive with its loop. */
static int so_load(struct pf_args *a)
{
	struct adaptive ad = { .pid_file = ADAPTIVE_PID_FILE, .pid_fd = -1, .go_fd = -1 };
	LIBBPF_OPTS(policy_load_opts, opts);
	char *pass[PF_ARGS_MAX];
	bool adaptive;
	int i, m = 0, ret;

	adaptive = a->n > 0 && !strcmp(a->rest[0], "adaptive");
	if ((a->detach || a->pid_file || a->allow_helpers) && !adaptive)
		return usage_err("%s is for adaptive (or the engine, with -p PID)",
				 a->allow_helpers ? "--allow-helpers" : a->detach ? "--detach" : "--pid-file");
	if (a->pid_file && !a->detach)
		return usage_err("--pid-file goes with --detach");
	ad.detach = a->detach;
	if (a->pid_file)
		ad.pid_file = a->pid_file;
	for (i = 0; i < a->n; i++)
		pass[m++] = a->rest[i];
	ret = policy_load_args(&prefetch_kind, m, pass, &opts);
	if (ret)
		return ret;
	if (!adaptive)
		return policy_load(&prefetch_kind, &opts);

	opts.setup = adaptive_setup;
	opts.ctx = &ad;
	stop_signals_install();	/* before the fork: a signal must never find no handler */
	ret = policy_load(&prefetch_kind, &opts);
	if (ad.detach)
		return adaptive_finish(&ad, ret, opts.map_id);
	if (ret != EXIT_OK)
		return ret;
	if (json_output)	/* the load's report is the command's output */
		jsonw_flush(json_wtr);
	return adaptive_loop(opts.map_id);
}

static int so_list(int argc, char **argv)
{
	return policy_list(&prefetch_kind, argc, argv);
}

const struct pf_backend_ops pf_struct_ops_backend = {
	.name = "struct_ops",
	.usable = so_usable,
	.has_policy = so_has_policy,
	.names = so_names,
	.load = so_load,
	.list = so_list,
};
