// SPDX-License-Identifier: GPL-2.0
/*
 * lcbe_floor_test.c - lc-be's LC timeslice from be-floor (words.c) and what
 * the run and `sched status` say of it (share.c's share_floor_problem and
 * share_read), on a host: no derived LC timeslice under GATE_TS_PROGRESS_US,
 * a given one kept and said, a floor the raised one cannot keep said with
 * the actual numbers.  The share file is stubbed.  Prints "N passed, N failed".
 */
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "sched/mech.h"
#include "sched/mps/mpss.h"
#include "sched/lcbe/lcbe.h"

static int npass, nfail;
#define CHECK(c, ...) do { if (c) { npass++; printf("ok   "); } else { nfail++; printf("FAIL "); } \
	printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

/* ---- stubs: the mechanisms' words, the share file ---- */
const char *const gate_off_names[GATE_OFF_NR];
const struct sched_mech sched_mech_rm;
int mps_opts_word(struct mps_opts *o, const char *word, const char *arg)
{ (void)o; (void)word; (void)arg; return -1; }
int mps_opts_check(const struct mps_opts *o) { (void)o; return 0; }
static struct gate_share file;
int share_file_read(struct gate_share *s) { *s = file; return 0; }
void share_file_write(const struct gate_share *s) { (void)s; }

/* the LC timeslice derived from be-floor PCT against be-timeslice BE (lc 0: derived) */
static __u64 derive(__u32 pct, bool hint, __u64 lc, __u64 be, struct gate_opts *g)
{
	memset(g, 0, sizeof(*g));
	g->floor_pct = pct;
	g->hint = hint ? "/run/lc.hint" : NULL;
	gate_floor_timeslices(g, &lc, be);
	return lc;
}

/* what `sched status` warns first for the figures in g (share.c's share_read) */
static const char *status_warning(const struct gate_opts *g, struct gate_share *s)
{
	memset(&file, 0, sizeof(file));
	file.floor_pct = g->floor_pct;
	file.lc_ts = g->lc_ts;
	file.be_ts = g->be_ts;
	file.hint = !!g->hint;
	file.rotate_ms = g->rotate_ms;
	if (share_read(s))
		return NULL;
	return s->nwarn ? s->warn[0] : "";
}

int main(void)
{
	struct gate_opts g;
	struct gate_share s;
	char buf[512];
	const char *p;
	__u64 lc;

	lc = derive(30, false, 0, 50, &g);
	CHECK(lc == GATE_TS_PROGRESS_US && g.lc_ts == lc && g.lc_derived,
	      "be-timeslice 50 be-floor 30: LC timeslice 200 us, not 116 (got %llu)",
	      (unsigned long long)lc);
	p = share_floor_problem(&g, buf, sizeof(buf));
	CHECK(p && strstr(p, "be-timeslice 50 us is under"), "... said: be-timeslice 50 us (%s)",
	      p ? p : "nothing");
	g.rotate_ms = 50;
	p = share_floor_problem(&g, buf, sizeof(buf));
	CHECK(p && !strcmp(p, "be-floor 30% cannot be kept: lc-timeslice 200 us against "
			   "be-timeslice 50 us leaves BE 20.0% of a GPU while an LC is busy "
			   "(an LC needs 200 us: be-timeslice 86+)"),
	      "... with be-rotate: the floor the raised LC timeslice leaves, with the numbers (%s)",
	      p ? p : "nothing");

	lc = derive(30, false, 0, 200, &g);
	CHECK(lc == 466, "be-timeslice 200 be-floor 30: 466 us, unchanged (got %llu)",
	      (unsigned long long)lc);
	CHECK(!share_floor_problem(&g, buf, sizeof(buf)), "... and nothing said");
	lc = derive(10, false, 0, 0, &g);
	CHECK(lc == 9216 && g.be_ts == GATE_RM_TS_DEFAULT_US,
	      "be-floor 10 against RM's 1024 us: 9216 us (got %llu)", (unsigned long long)lc);

	lc = derive(40, false, 0, 200, &g);
	CHECK(lc == 300 && g.lc_derived, "be-timeslice 200 be-floor 40: 300 us (divided among "
	      "LC processes, 200 us at least: sched_gate_test.c) (got %llu)", (unsigned long long)lc);

	lc = derive(90, false, 0, 200, &g);
	p = status_warning(&g, &s);
	CHECK(lc == 200 && p && !strcmp(p, "be-floor 90% cannot be kept: lc-timeslice 200 us "
					"against be-timeslice 200 us leaves BE 50.0% of a GPU "
					"while an LC is busy (an LC needs 200 us: be-timeslice 1800+)"),
	      "be-floor 90 raised to 200 us: status says the floor cannot be kept (%s)", p ? p : "?");
	lc = derive(30, true, 0, 200, &g);
	p = share_floor_problem(&g, buf, sizeof(buf));
	CHECK(lc == 200 && p && strstr(p, "leaves BE 50.0% of a GPU while an LC is busy, the hint may "
				       "take half (an LC needs 200 us: be-timeslice 300+)"),
	      "be-floor 30 with hint: 133 raised to 200 us, said (%s)", p ? p : "nothing");
	lc = derive(45, true, 0, 1024, &g);
	p = share_floor_problem(&g, buf, sizeof(buf));
	CHECK(p && strlen(p) < sizeof(s.warn[0]),
	      "the longest such line fits status's %zu bytes (%zu)", sizeof(s.warn[0]),
	      p ? strlen(p) : 0);

	/* the longest line there is: be-timeslice under what a switch costs */
	lc = derive(10, false, 0, 100, &g);
	p = share_floor_problem(&g, buf, sizeof(buf));
	CHECK(p && strlen(p) > 200 && strstr(p, "; use be-timeslice 200 or more, or be-rotate"),
	      "be-timeslice 100: the run's line, %zu bytes (%s)", p ? strlen(p) : 0, p ? p : "nothing");
	{
		char run[512];

		snprintf(run, sizeof(run), "%s", p ? p : "");
		p = status_warning(&g, &s);
		CHECK(p && !strcmp(p, run), "... status says it whole, not cut (%zu of %zu bytes)",
		      p ? strlen(p) : 0, strlen(run));
	}

	lc = derive(10, false, 100, 200, &g);
	CHECK(lc == 100 && !g.lc_derived,
	      "lc-timeslice 100 given: kept at 100 us (got %llu)", (unsigned long long)lc);
	p = share_floor_problem(&g, buf, sizeof(buf));
	CHECK(p && !strcmp(p, "lc-timeslice 100 us is under what switching a TSG out costs "
			   "(~200 us on an H100): the LC may make no progress (116 us: 0 requests "
			   "in 40 s measured); kept as given"),
	      "... the run's warning line (%s)", p ? p : "nothing");
	p = status_warning(&g, &s);
	CHECK(p && s.nwarn == 1 && !strncmp(p, "lc-timeslice 100 us is under", 28),
	      "... status's (%s)", p ? p : "?");
	lc = derive(10, false, 200, 200, &g);
	CHECK(lc == 200 && !share_floor_problem(&g, buf, sizeof(buf)),
	      "lc-timeslice 200 given: nothing said");
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail != 0;
}
