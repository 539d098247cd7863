// SPDX-License-Identifier: GPL-2.0
/*
 * prefetch.c - gpuctl prefetch: the UVM prefetch policy (struct uvm_gpu_ext).
 * The policies and their parameters (bpf/prefetch.h names them for both
 * sides), the commands, and adaptive's user-space half: a loop that moves
 * the threshold with the host-to-device throughput, in the foreground or
 * detached as a daemon.  With -p PID or -- CMD the policy runs instead in
 * the per-process engine of the stock driver (cmd/pfengine/): the back-end
 * choice, probe, the engines in show/unload, and migrate/advise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "pfengine/engine.h"
#include "pfengine/uvm.h"
#include "policy/policy.h"
#include "prefetch.h"
#include "throughput.h"

#include "prefetch_none.skel.h"
#include "prefetch_always_max.skel.h"
#include "prefetch_adaptive.skel.h"
#include "prefetch_stride.skel.h"
#include "prefetch_multilevel.skel.h"
#include "prefetch_thrashing.skel.h"
#include "prefetch_probabilistic.skel.h"

#define PCT 1, 100

static const struct policy_param adaptive_params[] = {
	[PF_ADAPTIVE_THRESHOLD] = { "threshold", 51, PCT, "occupancy % a subregion needs; the loop moves it" },
	[PF_ADAPTIVE_HI_MBPS] = { "hi_mbps", 300, 1, 1000000, "above this host-to-device MB/s: hi_threshold" },
	[PF_ADAPTIVE_LO_MBPS] = { "lo_mbps", 100, 1, 1000000, "above this (and up to hi_mbps): mid_threshold, else lo_threshold" },
	[PF_ADAPTIVE_HI_THRESHOLD] = { "hi_threshold", 75, PCT, "threshold under heavy transfer" },
	[PF_ADAPTIVE_MID_THRESHOLD] = { "mid_threshold", 51, PCT, "threshold under moderate transfer" },
	[PF_ADAPTIVE_LO_THRESHOLD] = { "lo_threshold", 30, PCT, "threshold when transfers are light" },
	[PF_ADAPTIVE_INTERVAL_MS] = { "interval_ms", 1000, 10, 60000, "how often the loop samples throughput" },
};

static const struct policy_param stride_params[] = {
	[PF_STRIDE_CONFIDENCE] = { "confidence", 2, 1, 16, "faults at the same stride before prefetching" },
	[PF_STRIDE_DEGREE] = { "degree", 4, 1, 64, "strides ahead to prefetch" },
	[PF_STRIDE_MAX_PAGES] = { "max_pages", 512, 1, 512, "largest region to prefetch, in 4 KiB pages" },
	[PF_STRIDE_BUDGET] = { "budget", 1, 0, 1, "1: fewer strides when they would move more pages than the default" },
};

static const struct policy_param multilevel_params[] = {
	[PF_MULTILEVEL_HIGH] = { "high", 90, PCT, "occupancy % granting any size up to large_pages" },
	[PF_MULTILEVEL_MID] = { "mid", 60, PCT, "occupancy % granting up to medium_pages" },
	[PF_MULTILEVEL_LOW] = { "low", 30, PCT, "occupancy % granting up to small_pages" },
	[PF_MULTILEVEL_LARGE_PAGES] = { "large_pages", 512, 1, 512, "large granularity, in pages" },
	[PF_MULTILEVEL_MEDIUM_PAGES] = { "medium_pages", 128, 1, 512, "medium granularity, in pages" },
	[PF_MULTILEVEL_SMALL_PAGES] = { "small_pages", 32, 1, 512, "small granularity, in pages" },
};

static const struct policy_param thrashing_params[] = {
	[PF_THRASHING_HOLD_MS] = { "hold_ms", 1000, 1, 600000, "how long a block stays flagged after thrashing" },
};

static const struct policy_param probabilistic_params[] = {
	[PF_PROBABILISTIC_AGGRESSIVENESS] = { "aggressiveness", 100, 0, 200, "scales the grant probability (100 neutral)" },
	[PF_PROBABILISTIC_WINDOW] = { "window", 32, 1, 512, "pages past the last region that count as a hit" },
};

#define ROWS(t, n) _Static_assert(sizeof(t) / sizeof((t)[0]) == (n), #t ": a row per enum value")
ROWS(adaptive_params, PF_ADAPTIVE_NPARAMS);
ROWS(stride_params, PF_STRIDE_NPARAMS);
ROWS(multilevel_params, PF_MULTILEVEL_NPARAMS);
ROWS(thrashing_params, PF_THRASHING_NPARAMS);
ROWS(probabilistic_params, PF_PROBABILISTIC_NPARAMS);

static const char *const prefetch_stats[STAT_POLICY] = {
	[PF_STAT_DEFAULT] = "default",
	[PF_STAT_BYPASS] = "bypass",
	[PF_STAT_ENTER_LOOP] = "enter_loop",
	[PF_STAT_PAGES] = "pages_requested",
};
static const char *const stride_stats[STAT_MAX] = {
	[PF_STRIDE_STAT_DECISIONS] = "stride_decisions",
};
static const char *const multilevel_stats[STAT_MAX] = {
	[PF_MULTILEVEL_STAT_LARGE] = "large",
	[PF_MULTILEVEL_STAT_MEDIUM] = "medium",
	[PF_MULTILEVEL_STAT_SMALL] = "small",
};
static const char *const thrashing_stats[STAT_MAX] = {
	[PF_THRASHING_STAT_SUPPRESSED] = "suppressed",
	[PF_THRASHING_STAT_FLAGGED] = "blocks_flagged",
};
static const char *const probabilistic_stats[STAT_MAX] = {
	[PF_PROBABILISTIC_STAT_GRANTED] = "granted",
	[PF_PROBABILISTIC_STAT_DENIED] = "denied",
};

static const struct policy_def prefetch_defs[] = {
	{ "none", "never prefetch: each fault migrates only its own page",
	  prefetch_none__elf_bytes, NULL, 0, NULL },
	{ "always_max", "prefetch the whole region the driver allows (the VA block) on every fault",
	  prefetch_always_max__elf_bytes, NULL, 0, NULL },
	{ "adaptive", "the driver's tree walk, threshold moved by host-to-device throughput (keeps running)",
	  prefetch_adaptive__elf_bytes, POLICY_PARAMS(adaptive_params), NULL },
	{ "stride", "detect a constant stride per VA block and prefetch the next strides",
	  prefetch_stride__elf_bytes, POLICY_PARAMS(stride_params), stride_stats },
	{ "multilevel", "the occupancy band of a subregion picks the granularity granted",
	  prefetch_multilevel__elf_bytes, POLICY_PARAMS(multilevel_params), multilevel_stats },
	{ "thrashing", "the driver's default, but nothing in blocks the driver saw thrashing",
	  prefetch_thrashing__elf_bytes, POLICY_PARAMS(thrashing_params), thrashing_stats },
	{ "probabilistic", "grant subregions at random, by occupancy and the block's hit rate",
	  prefetch_probabilistic__elf_bytes, POLICY_PARAMS(probabilistic_params), probabilistic_stats },
};

static const struct policy_kind prefetch_kind = {
	.object = "prefetch",
	.st_type = "uvm_gpu_ext",
	.stats = prefetch_stats,
	.defs = prefetch_defs,
	.ndefs = sizeof(prefetch_defs) / sizeof(prefetch_defs[0]),
};

/* What `load` takes, from the table: for the shell's completion. */
static const char *prefetch_words[sizeof(prefetch_defs) / sizeof(prefetch_defs[0]) + 1];

__attribute__((constructor)) static void prefetch_words_init(void)
{
	policy_words_fill(&prefetch_kind, prefetch_words);
}

static void print_engine_policies(void)
{
	for (int i = 0; pfe_builtin(i); i++)
		printf("%s%s", i ? " | " : "{ ", pfe_builtin(i)->name);
	printf(" | file PATH }");
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
	policy_print_names(&prefetch_kind, stdout);
	printf("\n       ENGINE := ");
	print_engine_policies();
	fprintf(stdout,
		"\n       ENGINE_OPTS := { --backend { auto | struct_ops | engine } | --gpu GPU_UUID | --max-bytes BYTES | --async | --duration S }\n"
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
		"runs a user's own. 'set -p PID' changes a running engine's parameter.\n");
	return EXIT_OK;
}

/* --- adaptive: the user-space half ------------------------------------ */

/* One `load adaptive`, passed down to the load's setup step. */
struct adaptive {
	bool detach;
	const char *pid_file;
	int pid_fd;	/* the claimed pid file, -1 */
	int go_fd;	/* the daemon waits for the map id on this pipe, -1 */
	pid_t daemon;
};

static int param_get(int fd, __u32 idx, __u64 *v)
{
	return bpf_map_lookup_elem(fd, &idx, v);
}

/*
 * Maps throughput to the threshold of the policy of map_id until stopped
 * (then unloads it) or until another policy replaces it (then just ends).
 */
static int adaptive_loop(__u32 map_id)
{
	__u64 hi, lo, t_hi, t_mid, t_lo, interval, cur = 0, want;
	__u32 now_id, thr = PF_ADAPTIVE_THRESHOLD;
	struct throughput tp;
	struct timespec ts;
	double mbps;
	int fd, ret;

	fd = policy_map_of(&prefetch_kind, map_id, POLICY_MAP_PARAMS);
	if (fd < 0) {
		p_err("adaptive: cannot open its parameters: %s", strerror(-fd));
		policy_remove(&prefetch_kind, map_id);
		return EXIT_FAIL;
	}
	if (throughput_open(&tp)) {
		close(fd);
		policy_remove(&prefetch_kind, map_id);
		return EXIT_FAIL;
	}
	p_info("adaptive: throughput from %s; Ctrl-C stops the loop and unloads the policy",
	       tp.source);

	while (!stop_requested()) {
		if (param_get(fd, PF_ADAPTIVE_HI_MBPS, &hi) || param_get(fd, PF_ADAPTIVE_LO_MBPS, &lo) ||
		    param_get(fd, PF_ADAPTIVE_HI_THRESHOLD, &t_hi) ||
		    param_get(fd, PF_ADAPTIVE_MID_THRESHOLD, &t_mid) ||
		    param_get(fd, PF_ADAPTIVE_LO_THRESHOLD, &t_lo) ||
		    param_get(fd, PF_ADAPTIVE_INTERVAL_MS, &interval))
			break;
		ts.tv_sec = interval / 1000;
		ts.tv_nsec = (long)(interval % 1000) * 1000000;
		if (nanosleep(&ts, NULL) && stop_requested())
			break;
		if (policy_attached_map_id(&prefetch_kind, &now_id) || now_id != map_id) {
			p_info("adaptive: replaced or unloaded; the loop ends");
			close(fd);
			throughput_close(&tp);
			return EXIT_OK;
		}
		if (throughput_mbps(&tp, &mbps))
			continue;
		want = mbps > (double)hi ? t_hi : mbps > (double)lo ? t_mid : t_lo;
		if (want != cur && !bpf_map_update_elem(fd, &thr, &want, BPF_EXIST)) {
			p_info("adaptive: %.1f MB/s (%s): threshold %llu %%", mbps, tp.source,
			       (unsigned long long)want);
			cur = want;
		}
	}
	close(fd);
	throughput_close(&tp);
	ret = policy_remove(&prefetch_kind, map_id);
	if (ret == EXIT_OK)
		p_info("adaptive: stopped; policy unloaded");
	return ret;
}

/*
 * The detached daemon, forked before the load commits: it holds nothing of
 * the parent's, waits for the map id of the committed policy (end of file:
 * the load failed), then runs the loop.  Never returns.
 */
static void adaptive_daemon(int go, const char *pid_file)
{
	__u32 map_id;
	int ret = EXIT_FAIL;

	if (go > 3 && dup2(go, 3) == 3)
		go = 3;
	if (close_range(go + 1, ~0U, 0))	/* kernels before 5.9 */
		for (long fd = go + 1, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
			close((int)fd);
	if (read(go, &map_id, sizeof(map_id)) == (ssize_t)sizeof(map_id)) {
		close(go);
		ret = adaptive_loop(map_id);
	}
	if (pidfile_live(pid_file) == getpid())
		unlink(pid_file);
	_exit(ret);
}

/*
 * The load's last step before anything changes: throughput must be
 * readable; with --detach the pid file is claimed and the daemon forked.
 */
static int adaptive_setup(void *ctx, const char *policy, struct bpf_object *obj)
{
	struct adaptive *ad = ctx;
	struct throughput tp;
	int go[2];
	pid_t pid;

	(void)policy;
	(void)obj;
	if (throughput_open(&tp))
		return -1;
	throughput_close(&tp);
	if (!ad->detach)
		return 0;
	ad->pid_fd = pidfile_claim(ad->pid_file, "an adaptive loop");
	if (ad->pid_fd < 0)
		return -1;
	if (pipe2(go, O_CLOEXEC)) {
		p_err("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	pid = daemon_fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0)
		adaptive_daemon(go[0], ad->pid_file);
	close(go[0]);
	ad->go_fd = go[1];
	ad->daemon = pid;
	if (pidfile_write(ad->pid_fd, pid)) {
		p_err("cannot write pid file %s: %s", ad->pid_file, strerror(errno));
		return -1;
	}
	return 0;
}

/* After the load: the daemon goes on (committed) or ends; the pid file with it. */
static int adaptive_finish(struct adaptive *ad, int ret, __u32 map_id)
{
	if (ret == EXIT_OK && ad->go_fd >= 0 &&
	    write(ad->go_fd, &map_id, sizeof(map_id)) != (ssize_t)sizeof(map_id)) {
		p_err("cannot start the adaptive daemon: %s", strerror(errno));
		policy_remove(&prefetch_kind, map_id);
		ret = EXIT_FAIL;
	}
	if (ad->go_fd >= 0)
		close(ad->go_fd);
	if (ad->pid_fd >= 0) {
		if (ret != EXIT_OK)
			unlink(ad->pid_file);
		close(ad->pid_fd);
	}
	if (ret == EXIT_OK)
		p_info("adaptive: feedback loop detached (pid %d, pid file %s)", (int)ad->daemon,
		       ad->pid_file);
	return ret;
}

/* --- commands ------------------------------------------------------------ */

/* --- the per-process engine's side of the commands ---------------------- */

enum backend { BK_AUTO, BK_STRUCT_OPS, BK_ENGINE };

static bool struct_ops_policy(const char *name)
{
	for (unsigned int i = 0; i < prefetch_kind.ndefs; i++)
		if (!strcmp(prefetch_defs[i].name, name))
			return true;
	return false;
}

/*
 * Takes the engine's options out of argv (-p, -- CMD, --backend, --gpu,
 * --max-bytes, --async, --duration); the rest go to rest[].  0, or
 * EXIT_USAGE after p_err.
 */
static int engine_args(int argc, char **argv, struct pfe_opts *o, enum backend *bk,
		       bool *engine_only, char **rest, int *n, int max)
{
	unsigned long long v;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			if (!next)
				return usage_err("'--' needs a command");
			o->cmd = &argv[i + 1];
			break;
		}
		if (!strcmp(a, "-p") || !strcmp(a, "--backend") || !strcmp(a, "--gpu") ||
		    !strcmp(a, "--max-bytes") || !strcmp(a, "--duration")) {
			if (!next)
				return usage_err("%s needs a value", a);
			i++;
			if (!strcmp(a, "-p")) {
				if (parse_u64("pid", next, 1, 0x3fffffff, &v))
					return EXIT_USAGE;
				o->pid = (pid_t)v;
			} else if (!strcmp(a, "--backend")) {
				if (!strcmp(next, "auto"))
					*bk = BK_AUTO;
				else if (!strcmp(next, "struct_ops"))
					*bk = BK_STRUCT_OPS;
				else if (!strcmp(next, "engine"))
					*bk = BK_ENGINE;
				else
					return usage_err("unknown backend '%s' (auto, struct_ops, engine)", next);
			} else if (!strcmp(a, "--gpu")) {
				struct uvm_uuid u;

				if (uuid_parse(next, &u))
					return usage_err("'%s' is not a GPU UUID (GPU-xxxxxxxx-...)", next);
				o->gpu = next;
				*engine_only = true;
			} else if (!strcmp(a, "--max-bytes")) {
				if (pfe_parse_size("--max-bytes", next, &o->max_bytes))
					return EXIT_USAGE;
				if (!o->max_bytes)
					return usage_err("--max-bytes must be above 0");
				*engine_only = true;
			} else {
				if (parse_u64("--duration", next, 1, 86400 * 365, &v))
					return EXIT_USAGE;
				o->duration = (double)v;
				*engine_only = true;
			}
			continue;
		}
		if (!strcmp(a, "--async")) {
			o->async = true;
			*engine_only = true;
			continue;
		}
		if (*n == max)
			return usage_err("too many arguments");
		rest[(*n)++] = argv[i];
	}
	if (o->pid && o->cmd)
		return usage_err("give -p PID or -- CMD, not both");
	return 0;
}

/* load ENGINE ... for -p PID / -- CMD. */
static int engine_load(struct pfe_opts *o, int n, char **rest)
{
	static struct pfe_policy user;
	enum pfe_file_kind kind;
	struct pfe_run check;
	char *args[64], names[160] = "";
	int nargs = 0, first = 1;

	if (!o->pid && !o->cmd)
		return usage_err("the engine runs on one process: give -p PID or -- CMD");
	if (n < 1)
		return usage_err("'prefetch load' needs a POLICY");
	if (!strcmp(rest[0], "file")) {
		if (n < 2)
			return usage_err("'load file' needs a PATH");
		if (pfe_policy_file(rest[1], &user, &kind)) {
			if (kind == PFE_FILE_STRUCT_OPS)
				return usage_err("%s is a struct_ops policy: system-wide, no -p PID or -- CMD",
						 rest[1]);
			return EXIT_USAGE;
		}
		o->pol = &user;
		first = 2;
	} else {
		o->pol = pfe_policy_find(rest[0]);
	}
	if (!o->pol) {
		for (int i = 0; pfe_builtin(i); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", pfe_builtin(i)->name);
		if (struct_ops_policy(rest[0]))
			return usage_err("policy '%s' needs the driver's struct_ops hooks; the engine "
					 "runs %s", rest[0], names);
		return usage_err("unknown engine policy '%s' (%s, or file PATH)", rest[0], names);
	}
	for (int i = first; i < n; i++) {
		if (!strcmp(rest[i], "--detach"))
			o->detach = true;
		else if (!strcmp(rest[i], "--pid-file"))
			return usage_err("the engine's pid file is its own (see 'prefetch show')");
		else
			args[nargs++] = rest[i];
	}
	if (o->detach && o->cmd)
		return usage_err("--detach takes -p PID, not -- CMD");
	/* parameters checked before anything is touched */
	if (pfe_run_init(&check, o->pol, nargs, args))
		return EXIT_USAGE;
	o->nargs = nargs;
	o->args = args;
	return pfe_engine_main(o);
}

static int do_load(int argc, char **argv)
{
	struct adaptive ad = { .pid_file = "/run/gpuctl-prefetch-adaptive.pid",
			       .pid_fd = -1, .go_fd = -1 };
	LIBBPF_OPTS(policy_load_opts, opts);
	struct pfe_opts eo = { 0 };
	enum backend bk = BK_AUTO;
	bool adaptive, engine_only = false;
	char *rest[64], *pass[64];
	int i, n = 0, m = 0, ret;

	ret = engine_args(argc, argv, &eo, &bk, &engine_only, rest, &n, 64);
	if (ret)
		return ret;
	if (bk == BK_ENGINE || (bk == BK_AUTO && (eo.pid || eo.cmd)))
		return engine_load(&eo, n, rest);
	if (eo.pid || eo.cmd)
		return usage_err("struct_ops policies are system-wide: no -p PID or -- CMD");
	if (engine_only)
		return usage_err("--gpu, --max-bytes, --async and --duration are the engine's "
				 "(with -p PID or -- CMD)");
	if (n > 0 && pfe_policy_find(rest[0]) && !struct_ops_policy(rest[0]))
		return usage_err("policy '%s' runs in the per-process engine: give -p PID or -- CMD",
				 rest[0]);
	if (n > 1 && !strcmp(rest[0], "file") && pfe_file_kind(rest[1]) == PFE_FILE_ENGINE)
		return usage_err("%s is an engine policy: it runs on one process, give -p PID "
				 "or -- CMD", rest[1]);
	adaptive = n > 0 && !strcmp(rest[0], "adaptive");
	for (i = 0; i < n; i++) {
		if (adaptive && !strcmp(rest[i], "--detach")) {
			ad.detach = true;
		} else if (adaptive && !strcmp(rest[i], "--pid-file")) {
			if (++i == n)
				return usage_err("--pid-file needs a PATH");
			ad.pid_file = rest[i];
		} else {
			pass[m++] = rest[i];
		}
	}
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

/* The engine's policies with their parameters, as 'list' prints the others. */
static int list_engine(void)
{
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
		for (int k = 0; k < p->nparams; k++) {
			const struct pfe_param *q = &p->params[k];

			if (json_output) {
				jsonw_start_object(json_wtr);
				jsonw_string_field(json_wtr, "name", q->name);
				jsonw_uint_field(json_wtr, "default", q->def);
				jsonw_uint_field(json_wtr, "min", q->min);
				jsonw_uint_field(json_wtr, "max", q->max);
				jsonw_string_field(json_wtr, "description", q->doc);
				jsonw_end_object(json_wtr);
			} else {
				printf("    %-14s default %-6llu [%llu..%llu] %s\n", q->name,
				       (unsigned long long)q->def, (unsigned long long)q->min,
				       (unsigned long long)q->max, q->doc);
			}
		}
		if (json_output) {
			jsonw_end_array(json_wtr);
			jsonw_end_object(json_wtr);
		}
	}
	if (json_output)
		jsonw_end_array(json_wtr);
	return EXIT_OK;
}

static int do_list(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[0], "--backend")) {
		if (argc > 2)
			return usage_err("unexpected argument '%s'", argv[2]);
		if (!strcmp(argv[1], "engine"))
			return list_engine();
		if (strcmp(argv[1], "struct_ops"))
			return usage_err("unknown backend '%s' (struct_ops, engine)", argv[1]);
		argc = 0;
	}
	return policy_list(&prefetch_kind, argc, argv);
}

static int do_set(int argc, char **argv)
{
	if (argc > 0 && !strcmp(argv[0], "-p"))
		return pfe_set_main(argc, argv);
	return policy_set(&prefetch_kind, argc, argv);
}

/*
 * The system-wide policy, then every engine: as before when no engine runs
 * and bpffs is there; else both (a stock driver has no bpffs to read).
 */
static int do_show(int argc, char **argv)
{
	int ret;

	if (argc || (pfe_reg_show(false) <= 0 && bpffs_mounted()))
		return policy_show(&prefetch_kind, argc, argv);
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "system");
	}
	ret = bpffs_mounted() ? policy_show(&prefetch_kind, 0, argv) : EXIT_OK;
	if (!bpffs_mounted()) {
		if (json_output)
			jsonw_null(json_wtr);
		else
			printf("prefetch: no policy loaded (bpffs not mounted)\n");
	}
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
	unsigned long long v;

	if (argc >= 1 && !strcmp(argv[0], "-p")) {
		if (argc < 2)
			return usage_err("-p needs a PID");
		if (argc > 2)
			return usage_err("unexpected argument '%s'", argv[2]);
		if (parse_u64("pid", argv[1], 1, 0x3fffffff, &v))
			return EXIT_USAGE;
		return pfe_reg_unload((pid_t)v);
	}
	return policy_unload(&prefetch_kind, argc, argv);
}

static int do_probe(int argc, char **argv)
{
	char mod[64] = "", why_so[160], why_en[200] = "";
	bool so, en;
	int err;

	(void)argv;
	if (argc)
		return usage_err("'prefetch probe' takes no arguments");
	err = probe_struct_ops("uvm_gpu_ext", mod, sizeof(mod));
	so = !err;
	if (err == -ENOENT)
		snprintf(why_so, sizeof(why_so), "the driver has no struct uvm_gpu_ext (a stock driver: "
			 "the hooks come with gpuctl's kernel patches)");
	else if (err)
		snprintf(why_so, sizeof(why_so), "struct uvm_gpu_ext is there but not registered");
	else
		snprintf(why_so, sizeof(why_so), "struct uvm_gpu_ext registered by %s; system-wide",
			 mod[0] ? mod : "the kernel");
	en = pfe_engine_usable(why_en, sizeof(why_en));
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "struct_ops");
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "available", so);
		jsonw_string_field(json_wtr, "why", why_so);
		jsonw_end_object(json_wtr);
		jsonw_name(json_wtr, "engine");
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "available", en);
		jsonw_string_field(json_wtr, "why", why_en);
		jsonw_end_object(json_wtr);
		jsonw_string_field(json_wtr, "system_wide", so ? "struct_ops" : "none");
		jsonw_string_field(json_wtr, "per_process", en ? "engine" : "none");
		jsonw_end_object(json_wtr);
		return EXIT_OK;
	}
	printf("struct_ops: %s: %s\n", so ? "available" : "unavailable", why_so);
	printf("engine: %s: %s\n", en ? "available" : "unavailable", why_en);
	printf("load POLICY: %s; load ENGINE -p PID / -- CMD: %s\n",
	       so ? "struct_ops" : "unavailable", en ? "engine" : "unavailable");
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
	"prefetch", do_prefetch, prefetch_cmds, prefetch_words,
};
