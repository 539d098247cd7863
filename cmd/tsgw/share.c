// SPDX-License-Identifier: GPL-2.0
/*
 * share.c - lc-be's ledger file (RUN_SHARE), its one home: the format, the
 * writer (the running policy, every second: cmd/sched/lcbe/share.c fills
 * it) and the reader (sched status, the exporter).
 *
 * The file is text, one record a line:
 *	gpuctl-sched-share 1
 *	policy PID FLOOR_PCT STALL_MS LC_TS_US BE_TS_US HINT ROTATE_MS
 *	gate MIN_OFF_MS SWITCHES SUPPRESSED CALLS BUSY_TURNS REPORTED	(with a hint)
 *	lat BEGUN TIMED P50_US P99_US MAX_US				(with a hint)
 *	target TARGET_US P99_US KEPT DUTY_PM MPS_THREADS WINDOWS KEPT_WINDOWS MOVES
 *	       UNREACHABLE_US RUNG MPS_PRIORITY CONFIRM			(with lc-p99)
 *	be GPU PID COMM ON_PCT SHARE_PCT FLOOR_PCT LONGEST_OFF_MS RM_WAIT_MS AGE_S KEPT STALL_KEPT
 * written whole under a temporary name in RUN_DIR (root's) and renamed.
 * The version stays 1 as long as lines and fields are only added: a reader
 * skips lines it does not know and the fields past those it reads (target's
 * last three came later: a line without them reads as rung 0, priority 1,
 * no miss being confirmed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "tsgw.h"

#define SHARE_MAGIC	"gpuctl-sched-share 1"

/* A comm as one word of the file. */
static void comm_word(char *dst, size_t len, const char *comm)
{
	snprintf(dst, len, "%s", *comm ? comm : "-");
	for (char *c = dst; *c; c++)
		if (*c <= ' ' || *c > '~')
			*c = '?';
}

static void share_lines(FILE *f, const struct gate_share *s)
{
	char comm[TSG_COMM_LEN];

	fprintf(f, SHARE_MAGIC "\npolicy %d %u %u %llu %llu %d %u\n", (int)s->pid, s->floor_pct,
		s->stall_ms, (unsigned long long)s->lc_ts, (unsigned long long)s->be_ts, !!s->hint,
		s->rotate_ms);
	if (s->hint)
		fprintf(f, "gate %u %llu %llu %llu %llu %llu\n", s->min_off_ms,
			(unsigned long long)s->switches, (unsigned long long)s->suppressed,
			(unsigned long long)s->calls, (unsigned long long)s->busy_turns,
			(unsigned long long)s->reported);
	if (s->hint)
		fprintf(f, "lat %llu %llu %.1f %.1f %.1f\n", (unsigned long long)s->lat.begun,
			(unsigned long long)s->lat.count, s->lat.p50_us, s->lat.p99_us, s->lat.max_us);
	if (s->target_us)
		fprintf(f, "target %u %.1f %d %u %u %llu %llu %llu %.1f %u %u %llu\n", s->target_us,
			s->target_p99_us, s->target_kept, s->duty_pm, s->be_threads,
			(unsigned long long)s->target_windows,
			(unsigned long long)s->target_kept_windows,
			(unsigned long long)s->target_moves, s->unreachable_us, s->rung,
			s->be_priority, (unsigned long long)s->target_confirm);
	for (int i = 0; i < s->n; i++) {
		const struct gate_share_row *r = &s->rows[i];

		comm_word(comm, sizeof(comm), r->comm);
		fprintf(f, "be %u %u %s %.2f %.3f %.3f %.1f %.3f %.1f %d %d\n", r->gpu, r->pid, comm,
			r->on_pct, r->share_pct, r->floor_pct, r->longest_off_ms, r->rm_wait_ms,
			r->age_s, r->kept, r->stall_kept);
	}
}

void share_file_write(const struct gate_share *s)
{
	char tmp[] = RUN_SHARE ".tmp";
	FILE *f;
	int fd;

	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	share_lines(f, s);
	if (fclose(f) || rename(tmp, RUN_SHARE))
		unlink(tmp);
}

int share_file_read(struct gate_share *s)
{
	char line[256];
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->be_priority = 1;	/* a target line without it (an older run's) */
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
		/* rung, the tenth, the BE clients' priority, then confirm came later: without them 0, 1, 0 */
		if (sscanf(line, "target %u %lf %d %u %u %llu %llu %llu %lf %u %u %llu", &s->target_us,
			   &s->target_p99_us, &s->target_kept, &s->duty_pm, &s->be_threads,
			   (unsigned long long *)&s->target_windows,
			   (unsigned long long *)&s->target_kept_windows,
			   (unsigned long long *)&s->target_moves, &s->unreachable_us,
			   &s->rung, &s->be_priority,
			   (unsigned long long *)&s->target_confirm) >= 9)
			continue;
		if (sscanf(line, "lat %llu %llu %lf %lf %lf", (unsigned long long *)&s->lat.begun,
			   (unsigned long long *)&s->lat.count, &s->lat.p50_us, &s->lat.p99_us,
			   &s->lat.max_us) == 5)
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
