// SPDX-License-Identifier: GPL-2.0
/*
 * words.c - the words that choose and tune the MPS mechanism (mpss.h), for
 * any policy that takes them (lc-be today): mechanism { mps | tsg | auto },
 * mps-dir DIR, be-threads PCT, lc-threads PCT, be-mem SIZE.
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "units.h"
#include "mpss.h"

const char *const mps_choice_names[MPS_CHOICE_NR] = {
	[MPS_CHOICE_TSG] = "tsg",
	[MPS_CHOICE_MPS] = "mps",
	[MPS_CHOICE_AUTO] = "auto",
};

const char *const mps_words[] = { "mechanism", "mps-dir", "be-threads", "lc-threads", "be-mem",
				   NULL };

static int threads(const char *word, const char *arg, __u32 *out)
{
	double pct;

	if (parse_percent(word, arg, 1, 100, &pct))
		return EXIT_USAGE;
	*out = (__u32)(pct + 0.5);
	if (!*out)
		*out = 1;
	return 0;
}

int mps_opts_word(struct mps_opts *o, const char *word, const char *arg)
{
	uint64_t v;
	char err[512];

	if (!strcmp(word, "mechanism")) {
		for (int c = 0; c < MPS_CHOICE_NR; c++)
			if (!strcmp(arg, mps_choice_names[c])) {
				o->choice = c;
				return 0;
			}
		return usage_err("invalid mechanism '%s': mps, tsg or auto", arg);
	}
	if (!strcmp(word, "mps-dir")) {
		if (mps_dir_check(arg, false, err, sizeof(err)))
			return usage_err("%s", err);
		o->dir = arg;
		return 0;
	}
	if (!strcmp(word, "be-threads"))
		return threads("be-threads (%)", arg, &o->be_threads);
	if (!strcmp(word, "lc-threads"))
		return threads("lc-threads (%)", arg, &o->lc_threads);
	if (!strcmp(word, "be-mem")) {
		if (parse_size("be-mem", arg, 1 << 20, 1ULL << 50, &v))
			return EXIT_USAGE;
		o->be_mem = v;
		return 0;
	}
	return -1;
}

int mps_opts_check(const struct mps_opts *o)
{
	if (o->choice == MPS_CHOICE_TSG && (o->dir || o->be_threads || o->lc_threads || o->be_mem))
		return usage_err("'mps-dir', 'be-threads', 'lc-threads' and 'be-mem' need "
				 "'mechanism mps' or 'mechanism auto'");
	return 0;
}
