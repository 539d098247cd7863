// SPDX-License-Identifier: GPL-2.0
/* prefetch.c - gpuctl prefetch: the UVM prefetch policy (struct uvm_gpu_ext). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "gpuctl.h"
#include "policy.h"
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
	{ "threshold", 0, 51, PCT, "occupancy % a subregion needs; the loop moves it" },
	{ "hi_mbps", 1, 300, 1, 1000000, "above this host-to-device MB/s: hi_threshold" },
	{ "lo_mbps", 2, 100, 1, 1000000, "above this (and up to hi_mbps): mid_threshold, else lo_threshold" },
	{ "hi_threshold", 3, 75, PCT, "threshold under heavy transfer" },
	{ "mid_threshold", 4, 51, PCT, "threshold under moderate transfer" },
	{ "lo_threshold", 5, 30, PCT, "threshold when transfers are light" },
	{ "interval_ms", 6, 1000, 10, 60000, "how often the loop samples throughput" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const struct policy_param stride_params[] = {
	{ "confidence", 0, 2, 1, 16, "faults at the same stride before prefetching" },
	{ "degree", 1, 4, 1, 64, "strides ahead to prefetch" },
	{ "max_pages", 2, 512, 1, 512, "largest region to prefetch, in 4 KiB pages" },
	{ "budget", 3, 1, 0, 1, "1: fewer strides when they would move more pages than the default" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const struct policy_param multilevel_params[] = {
	{ "high", 0, 90, PCT, "occupancy % granting any size up to large_pages" },
	{ "mid", 1, 60, PCT, "occupancy % granting up to medium_pages" },
	{ "low", 2, 30, PCT, "occupancy % granting up to small_pages" },
	{ "large_pages", 3, 512, 1, 512, "large granularity, in pages" },
	{ "medium_pages", 4, 128, 1, 512, "medium granularity, in pages" },
	{ "small_pages", 5, 32, 1, 512, "small granularity, in pages" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const struct policy_param thrashing_params[] = {
	{ "hold_ms", 0, 1000, 1, 600000, "how long a block stays flagged after thrashing" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const struct policy_param probabilistic_params[] = {
	{ "aggressiveness", 0, 100, 0, 200, "scales the grant probability (100 neutral)" },
	{ "window", 1, 32, 1, 512, "pages past the last region that count as a hit" },
	{ NULL, 0, 0, 0, 0, NULL },
};

static const char *const stride_stats[] = { "stride_decisions", NULL };
static const char *const multilevel_stats[] = { "large", "medium", "small", NULL };
static const char *const thrashing_stats[] = { "suppressed", "blocks_flagged", NULL };
static const char *const probabilistic_stats[] = { "granted", "denied", NULL };

static const struct policy_def prefetch_defs[] = {
	{ "none", "never prefetch: each fault migrates only its own page",
	  prefetch_none__elf_bytes, NULL, NULL },
	{ "always_max", "prefetch the whole region the driver allows (the VA block) on every fault",
	  prefetch_always_max__elf_bytes, NULL, NULL },
	{ "adaptive", "the driver's tree walk, threshold moved by host-to-device throughput (keeps running)",
	  prefetch_adaptive__elf_bytes, adaptive_params, NULL },
	{ "stride", "detect a constant stride per VA block and prefetch the next strides",
	  prefetch_stride__elf_bytes, stride_params, stride_stats },
	{ "multilevel", "the occupancy band of a subregion picks the granularity granted",
	  prefetch_multilevel__elf_bytes, multilevel_params, multilevel_stats },
	{ "thrashing", "the driver's default, but nothing in blocks the driver saw thrashing",
	  prefetch_thrashing__elf_bytes, thrashing_params, thrashing_stats },
	{ "probabilistic", "grant subregions at random, by occupancy and the block's hit rate",
	  prefetch_probabilistic__elf_bytes, probabilistic_params, probabilistic_stats },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const char *const prefetch_stats[] = {
	"default", "bypass", "enter_loop", "pages_requested", NULL,
};

static const struct policy_kind prefetch_kind = {
	.object = "prefetch",
	.st_type = "uvm_gpu_ext",
	.stats = prefetch_stats,
	.defs = prefetch_defs,
};

static const char *const prefetch_policy_words[] = {
	"none", "always_max", "adaptive", "stride", "multilevel", "thrashing",
	"probabilistic", NULL,
};

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	fprintf(stdout,
		"Usage: %1$s %2$s { list | show | unload }\n"
		"       %1$s %2$s load POLICY [KEY VALUE]...\n"
		"       %1$s %2$s load adaptive [--detach [--pid-file PATH]] [KEY VALUE]...\n"
		"       %1$s %2$s load file PATH\n"
		"       %1$s %2$s set KEY VALUE [KEY VALUE]...\n"
		"       %1$s %2$s help\n"
		"\n"
		"       COMMAND := { list | load | set | show | unload | help }\n"
		"       POLICY := { none | always_max | adaptive | stride | multilevel | thrashing | probabilistic }\n"
		"\n"
		"load attaches POLICY to the driver's struct uvm_gpu_ext and pins it\n"
		"under " GPUCTL_PIN_DIR "/prefetch; it replaces a running policy\n"
		"atomically. unload with nothing loaded succeeds. 'list' shows each\n"
		"policy's parameters.\n",
		bin_name, "prefetch");
	return EXIT_OK;
}

/* --- adaptive: the user-space half ------------------------------------ */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int param_get(int fd, __u32 idx, __u64 *v)
{
	return bpf_map_lookup_elem(fd, &idx, v);
}

/*
 * Maps throughput to the threshold until stopped (then unloads the policy)
 * or until another policy replaces adaptive (then just ends).
 */
static int adaptive_loop(void)
{
	__u64 hi, lo, t_hi, t_mid, t_lo, interval, cur = 0, want;
	struct throughput tp;
	struct timespec ts;
	__u32 map_id, now_id, zero = 0;
	double mbps;
	int fd, ret = EXIT_OK;

	fd = policy_open_map(&prefetch_kind, "params", &map_id);
	if (fd < 0) {
		p_err("adaptive: cannot open its parameters: %s", strerror(-fd));
		return EXIT_FAIL;
	}
	if (throughput_open(&tp)) {
		close(fd);
		policy_remove(&prefetch_kind);
		return EXIT_FAIL;
	}
	p_info("adaptive: throughput from %s; Ctrl-C stops the loop and unloads the policy",
	       tp.source);

	while (!stop) {
		if (param_get(fd, 1, &hi) || param_get(fd, 2, &lo) || param_get(fd, 3, &t_hi) ||
		    param_get(fd, 4, &t_mid) || param_get(fd, 5, &t_lo) || param_get(fd, 6, &interval))
			break;
		ts.tv_sec = interval / 1000;
		ts.tv_nsec = (long)(interval % 1000) * 1000000;
		if (nanosleep(&ts, NULL) && stop)
			break;
		now_id = 0;
		if (policy_attached_map_id(&prefetch_kind, &now_id) || now_id != map_id) {
			p_info("adaptive: replaced or unloaded; the loop ends");
			close(fd);
			throughput_close(&tp);
			return EXIT_OK;
		}
		if (throughput_mbps(&tp, &mbps))
			continue;
		want = mbps > (double)hi ? t_hi : mbps > (double)lo ? t_mid : t_lo;
		if (want != cur && !bpf_map_update_elem(fd, &zero, &want, BPF_EXIST)) {
			p_info("adaptive: %.1f MB/s (%s): threshold %llu %%", mbps, tp.source,
			       (unsigned long long)want);
			cur = want;
		}
	}
	close(fd);
	throughput_close(&tp);
	ret = policy_remove(&prefetch_kind);
	if (ret == EXIT_OK)
		p_info("adaptive: stopped; policy unloaded");
	return ret;
}

static int daemonize(const char *pid_file)
{
	char buf[32];
	pid_t pid;
	int fd;

	fd = open(pid_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		/* a pid file of a loop that is gone can be reused */
		FILE *f = fopen(pid_file, "r");
		long old = 0;

		if (f) {
			if (fscanf(f, "%ld", &old) != 1)
				old = 0;
			fclose(f);
		}
		if (old > 0 && !kill((pid_t)old, 0)) {
			p_err("an adaptive loop already runs as pid %ld (%s)", old, pid_file);
			return -1;
		}
		fd = open(pid_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0) {
		p_err("cannot create pid file %s: %s", pid_file, strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		p_err("cannot fork: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (pid > 0) {
		close(fd);
		return 1;
	}
	setsid();
	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (write(fd, buf, strlen(buf)) < 0)
		_exit(EXIT_FAIL);
	close(fd);
	if (freopen("/dev/null", "r", stdin) && freopen("/dev/null", "w", stdout) &&
	    freopen("/dev/null", "w", stderr))
		return 0;
	_exit(EXIT_FAIL);
}

/* --- commands ------------------------------------------------------------ */

static int do_load(int argc, char **argv)
{
	const char *pid_file = "/run/gpuctl-prefetch-adaptive.pid";
	char *rest[64];
	bool detach = false, adaptive;
	int i, n = 0, ret;

	adaptive = argc > 0 && !strcmp(argv[0], "adaptive");
	for (i = 0; i < argc; i++) {
		if (adaptive && !strcmp(argv[i], "--detach")) {
			detach = true;
		} else if (adaptive && !strcmp(argv[i], "--pid-file")) {
			if (++i == argc)
				return usage_err("--pid-file needs a PATH");
			pid_file = argv[i];
		} else if (n < (int)(sizeof(rest) / sizeof(rest[0]))) {
			rest[n++] = argv[i];
		} else {
			return usage_err("too many arguments");
		}
	}
	if (adaptive) {	/* before the fork: a signal must never find no handler */
		struct sigaction sa = { .sa_handler = on_signal };

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	ret = policy_load(&prefetch_kind, n, rest);
	if (ret != EXIT_OK || !adaptive)
		return ret;
	if (json_output)	/* the load's report is the command's output */
		jsonw_flush(json_wtr);
	if (detach) {
		ret = daemonize(pid_file);
		if (ret < 0) {
			policy_remove(&prefetch_kind);
			return EXIT_FAIL;
		}
		if (ret > 0) {
			p_info("adaptive: feedback loop detached (pid file %s)", pid_file);
			return EXIT_OK;
		}
		ret = adaptive_loop();
		unlink(pid_file);
		_exit(ret);
	}
	return adaptive_loop();
}

static int do_prefetch(int argc, char **argv)
{
	static const struct policy_cmds own = { do_help, do_load, NULL };

	return policy_command(&prefetch_kind, &own, argc, argv);
}

const struct object prefetch_object = {
	"prefetch", do_prefetch, policy_cmds, prefetch_policy_words,
};
