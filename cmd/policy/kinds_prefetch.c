// SPDX-License-Identifier: GPL-2.0
/*
 * kinds_prefetch.c - the prefetch family (struct uvm_gpu_ext) as data: its
 * built-in policies, their parameters and counters (bpf/prefetch.h names
 * them for both sides).  Read by gpuctl prefetch, probe, show and the
 * exporter through kinds.h.
 */
#include "gpuctl.h"
#include "policy.h"
#include "kinds.h"
#include "prefetch.h"

#include "prefetch_none.skel.h"
#include "prefetch_always_max.skel.h"
#include "prefetch_adaptive.skel.h"
#include "prefetch_stride.skel.h"
#include "prefetch_multilevel.skel.h"
#include "prefetch_thrashing.skel.h"
#include "prefetch_probabilistic.skel.h"

#define PCT 1, 100

static const struct param adaptive_params[] = {
	[PF_ADAPTIVE_THRESHOLD] = { "threshold", 51, PCT, "occupancy % a subregion needs; the loop moves it" },
	[PF_ADAPTIVE_HI_MBPS] = { "hi_mbps", 300, 1, 1000000, "above this host-to-device MB/s: hi_threshold" },
	[PF_ADAPTIVE_LO_MBPS] = { "lo_mbps", 100, 1, 1000000, "above this (and up to hi_mbps): mid_threshold, else lo_threshold" },
	[PF_ADAPTIVE_HI_THRESHOLD] = { "hi_threshold", 75, PCT, "threshold under heavy transfer" },
	[PF_ADAPTIVE_MID_THRESHOLD] = { "mid_threshold", 51, PCT, "threshold under moderate transfer" },
	[PF_ADAPTIVE_LO_THRESHOLD] = { "lo_threshold", 30, PCT, "threshold when transfers are light" },
	[PF_ADAPTIVE_INTERVAL_MS] = { "interval_ms", 1000, 10, 60000, "how often the loop samples throughput" },
};

static const struct param stride_params[] = {
	[PF_STRIDE_CONFIDENCE] = { "confidence", 2, 1, 16, "faults at the same stride before prefetching" },
	[PF_STRIDE_DEGREE] = { "degree", 4, 1, 64, "strides ahead to prefetch" },
	[PF_STRIDE_MAX_PAGES] = { "max_pages", 512, 1, 512, "largest region to prefetch, in 4 KiB pages" },
	[PF_STRIDE_BUDGET] = { "budget", 1, 0, 1, "1: fewer strides when they would move more pages than the default" },
};

static const struct param multilevel_params[] = {
	[PF_MULTILEVEL_HIGH] = { "high", 90, PCT, "occupancy % granting any size up to large_pages" },
	[PF_MULTILEVEL_MID] = { "mid", 60, PCT, "occupancy % granting up to medium_pages" },
	[PF_MULTILEVEL_LOW] = { "low", 30, PCT, "occupancy % granting up to small_pages" },
	[PF_MULTILEVEL_LARGE_PAGES] = { "large_pages", 512, 1, 512, "large granularity, in pages" },
	[PF_MULTILEVEL_MEDIUM_PAGES] = { "medium_pages", 128, 1, 512, "medium granularity, in pages" },
	[PF_MULTILEVEL_SMALL_PAGES] = { "small_pages", 32, 1, 512, "small granularity, in pages" },
};

static const struct param thrashing_params[] = {
	[PF_THRASHING_HOLD_MS] = { "hold_ms", 1000, 1, 600000, "how long a block stays flagged after thrashing" },
};

static const struct param probabilistic_params[] = {
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

const struct policy_kind prefetch_kind = {
	.object = "prefetch",
	.st_type = "uvm_gpu_ext",
	.used_for = "prefetch policies (gpuctl prefetch)",
	.stats = prefetch_stats,
	.defs = prefetch_defs,
	.ndefs = sizeof(prefetch_defs) / sizeof(prefetch_defs[0]),
};
