// SPDX-License-Identifier: GPL-2.0
/*
 * words.c - lc-be's own words (hint, hint-hold, hint-mode, hint-min-off,
 * be-rotate, be-off, be-floor, be-stall; the mechanism's words are
 * cmd/sched/mps/words.c's), their defaults, the checks across
 * them, and the floor's timeslices derived from be-floor.  The generic words
 * (lc, be, *-timeslice, *-interleave) are policies.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuctl.h"
#include "units.h"
#include "lcbe.h"

enum lcbe_word_kind { W_HINT, W_HINT_HOLD, W_HINT_MODE, W_HINT_MIN_OFF, W_ROTATE, W_BE_OFF,
		      W_FLOOR, W_STALL, W_P99 };

static const struct {
	const char *word;
	enum lcbe_word_kind kind;
} lcbe_own[] = {
	{ "hint", W_HINT },
	{ "hint-hold", W_HINT_HOLD },
	{ "hint-mode", W_HINT_MODE },
	{ "hint-min-off", W_HINT_MIN_OFF },
	{ "be-rotate", W_ROTATE },
	{ "be-off", W_BE_OFF },
	{ "be-floor", W_FLOOR },
	{ "be-stall", W_STALL },
	{ "lc-p99", W_P99 },
};

void lcbe_defaults(struct gate_opts *g)
{
	memset(g, 0, sizeof(*g));
	g->hold_ms = GATE_HOLD_MS_DEFAULT;
	g->min_off_ms = GATE_MIN_OFF_MS_DEFAULT;
	g->mode = GATE_MODE_DEFAULT;
	g->be_off = GATE_OFF_CHANNELS;	/* GPFIFO_SCHEDULE takes nothing off on 580 (GSP) */
	g->floor_pct = GATE_FLOOR_DEFAULT;
	g->stall_ms = GATE_STALL_MS_DEFAULT;
	g->mech = sched_mech_default();
}

/* hint FILE: a path whose directory exists (the file itself gpuctl creates). */
static int parse_hint(const char *arg, struct gate_opts *g)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(arg, '/');
	struct stat st;

	if (!*arg || (slash && !slash[1]))
		return usage_err("invalid hint FILE '%s': a file path", arg);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - arg) + (slash == arg) : 1,
		 slash ? arg : ".");
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return usage_err("hint FILE '%s': no directory %s", arg, dir);
	g->hint = arg;
	return 0;
}

static int parse_mode(const char *arg, struct gate_opts *g)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 8);
	if (errno || end == arg || *end || v > 0777)
		return usage_err("invalid hint-mode '%s': octal permissions such as 0660", arg);
	g->mode = v;
	return 0;
}

static int parse_word(enum lcbe_word_kind kind, const char *arg, struct gate_opts *g)
{
	unsigned long long v;

	switch (kind) {
	case W_HINT:
		return parse_hint(arg, g);
	case W_HINT_HOLD:
		if (parse_u64("hint-hold (ms)", arg, 0, 3600000, &v))
			return EXIT_USAGE;
		g->hold_ms = v;
		return 0;
	case W_HINT_MIN_OFF:
		if (parse_u64("hint-min-off (ms)", arg, 0, GATE_MIN_OFF_MS_MAX, &v))
			return EXIT_USAGE;
		g->min_off_ms = v;
		return 0;
	case W_ROTATE:
		if (parse_u64("be-rotate (ms)", arg, 1, 3600000, &v))
			return EXIT_USAGE;
		g->rotate_ms = v;
		return 0;
	case W_FLOOR:
		if (parse_u64("be-floor (%)", arg, 0, GATE_FLOOR_MAX, &v))
			return EXIT_USAGE;
		g->floor_pct = v;
		return 0;
	case W_STALL:
		if (parse_u64("be-stall (ms)", arg, GATE_STALL_MIN_MS, 3600000, &v))
			return EXIT_USAGE;
		g->stall_ms = v;
		return 0;
	case W_BE_OFF:
		for (int m = 0; m < GATE_OFF_NR; m++)
			if (!strcmp(arg, gate_off_names[m])) {
				g->be_off = m;
				return 0;
			}
		return usage_err("invalid be-off '%s': schedule or channels", arg);
	case W_HINT_MODE:
		return parse_mode(arg, g);
	case W_P99: {
		uint64_t ns;

		if (parse_duration("lc-p99", arg, NSEC_PER_MSEC, TARGET_MIN_US * NSEC_PER_USEC,
				   TARGET_MAX_US * NSEC_PER_USEC, &ns))
			return EXIT_USAGE;
		g->target_us = (__u32)(ns / NSEC_PER_USEC);
		return 0;
	}
	}
	return 0;
}

int lcbe_word(struct lcbe *l, const char *word, const char *arg)
{
	int ret;

	for (size_t i = 0; i < sizeof(lcbe_own) / sizeof(lcbe_own[0]); i++) {
		enum lcbe_word_kind k = lcbe_own[i].kind;

		if (strcmp(word, lcbe_own[i].word))
			continue;
		if (parse_word(k, arg, &l->o))
			return EXIT_USAGE;
		l->hint_word |= k == W_HINT_HOLD || k == W_HINT_MODE || k == W_HINT_MIN_OFF;
		l->p99_word |= k == W_P99;
		l->off_word |= k == W_BE_OFF;
		return 0;
	}
	ret = mps_opts_word(&l->mps, word, arg);
	if (ret >= 0)
		return ret;
	return usage_err("unknown lc-be argument '%s'", word);
}

int lcbe_parsed(struct lcbe *l, struct class_values *val)
{
	struct gate_opts *g = &l->o;

	if (l->hint_word && !g->hint)
		return usage_err("'hint-hold', 'hint-mode' and 'hint-min-off' need 'hint FILE'");
	if (l->p99_word && !g->hint)
		return usage_err("'lc-p99' needs 'hint FILE': the LC's latencies come from "
				 "libgpuctl-hint.so through that file");
	if (l->off_word && !g->hint && !g->rotate_ms)
		return usage_err("'be-off' needs 'hint FILE' or 'be-rotate MS'");
	if (mps_opts_check(&l->mps))
		return EXIT_USAGE;
	gate_floor_timeslices(g, &val[POLICY_CLASS_LC].timeslice, val[POLICY_CLASS_BE].timeslice);
	return 0;
}

/*
 * lc-be's floor, by construction: while an LC TSG is busy, RM gives a BE
 * TSG its timeslice between two of the LC's, so BE keeps
 * be/(be + lc) of the GPU.  With the hint the gate may also keep BE off up
 * to half the time (GATE_HINT_DUTY), so the RM part must give twice the floor.
 * No lc-timeslice given: the largest one that keeps the floor, but not under
 * GATE_TS_PROGRESS_US (under it the LC makes no progress; the floor may then
 * not hold, and the run says so).  One given: kept, and whether the floor
 * holds with it is recorded (the run says so).
 */
void gate_floor_timeslices(struct gate_opts *g, __u64 *lc_ts, __u64 be_ts)
{
	double need = g->floor_pct / 100.0 * (g->hint ? 1.0 / GATE_HINT_DUTY : 1.0);

	if (!be_ts)
		be_ts = GATE_RM_TS_DEFAULT_US;	/* RM's own, when be-timeslice is left as is */
	if (need > 0.9)
		need = 0.9;
	g->lc_derived = !*lc_ts && g->floor_pct;
	if (!*lc_ts)
		*lc_ts = !g->floor_pct ? GATE_LC_TS_NOFLOOR_US :
			 (__u64)(be_ts * (1.0 - need) / need);
	if (g->lc_derived && *lc_ts < GATE_TS_PROGRESS_US)
		*lc_ts = GATE_TS_PROGRESS_US;
	g->lc_ts = *lc_ts;
	g->be_ts = be_ts;
}
