// SPDX-License-Identifier: GPL-2.0
/*
 * share.c - reads lc-be's ledger file (RUN_SHARE), which the running policy
 * writes every second (cmd/sched/share.c has the format and the writer):
 * sched status and the exporter read it here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "tsgw.h"

#define SHARE_MAGIC	"gpuctl-sched-share 1"

int share_file_read(struct gate_share *s)
{
	char line[256];
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(RUN_SHARE, "re");
	if (!f)
		return -ENOENT;
	if (!fgets(line, sizeof(line), f) || strncmp(line, SHARE_MAGIC, strlen(SHARE_MAGIC))) {
		fclose(f);
		return -ENOENT;
	}
	while (fgets(line, sizeof(line), f)) {
		struct gate_share_row *r = &s->rows[s->n];
		int kept, skept, pid;

		if (sscanf(line, "policy %d %u %u %llu %llu %d %u", &pid, &s->floor_pct, &s->stall_ms,
			   (unsigned long long *)&s->lc_ts, (unsigned long long *)&s->be_ts,
			   &s->hint, &s->rotate_ms) == 7) {
			s->pid = pid;
			continue;
		}
		if (sscanf(line, "gate %u %llu %llu %llu %llu %llu", &s->min_off_ms,
			   (unsigned long long *)&s->switches, (unsigned long long *)&s->suppressed,
			   (unsigned long long *)&s->calls, (unsigned long long *)&s->busy_turns,
			   (unsigned long long *)&s->reported) == 6)
			continue;
		if (s->n < (int)(sizeof(s->rows) / sizeof(s->rows[0])) &&
		    sscanf(line, "be %u %u %15s %lf %lf %lf %lf %lf %lf %d %d", &r->gpu, &r->pid,
			   r->comm, &r->on_pct, &r->share_pct, &r->floor_pct, &r->longest_off_ms,
			   &r->rm_wait_ms, &r->age_s, &kept, &skept) == 11) {
			r->kept = kept;
			r->stall_kept = skept;
			r->stall_ms = r->longest_off_ms + r->rm_wait_ms;
			s->n++;
		}
	}
	fclose(f);
	return 0;
}
