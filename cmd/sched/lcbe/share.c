// SPDX-License-Identifier: GPL-2.0
/*
 * share.c - lc-be's ledger in a file: the running policy (gate.c) writes,
 * every second, per GPU each BE process's share and longest stall to
 * RUN_SHARE; `sched status` and the exporter read it.  A floor or a bound
 * that is not kept becomes a warning line here, in one place for both.
 *
 * The file's format has one home, cmd/tsgw/share.c, which writes and reads
 * it (the exporter reads it there too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuctl.h"
#include "lcbe.h"

/*
 * An lc-timeslice given under GATE_TS_PROGRESS_US is kept as given, and said
 * (a derived one never goes under it).
 */
const char *share_floor_problem(const struct gate_opts *o, char *buf, size_t len)
{
	double need = o->floor_pct / 100.0 * (o->hint ? 1.0 / GATE_HINT_DUTY : 1.0), rm;
	char how[64];

	if (o->lc_ts && o->lc_ts < GATE_TS_PROGRESS_US) {
		snprintf(buf, len, "lc-timeslice %llu us is under what switching a TSG out costs "
			 "(~%u us on an H100): the LC may make no progress (116 us: 0 requests "
			 "in 40 s measured); kept as given", (unsigned long long)o->lc_ts,
			 GATE_TS_PROGRESS_US);
		return buf;
	}
	if (!o->floor_pct) {
		snprintf(buf, len, "be-floor 0: no share is promised to BE; a busy LC may hold "
			 "BE off for as long as it is busy");
		return buf;
	}
	if (!o->be_ts || !o->lc_ts)
		return NULL;
	if (o->be_ts < GATE_TS_PROGRESS_US && !o->rotate_ms) {
		snprintf(buf, len, "be-floor %u%% cannot be kept: be-timeslice %llu us is under what "
			 "switching a BE TSG out costs (~%u us on an H100): several BE processes "
			 "on the runlist together made no progress (0 it/s measured); use "
			 "be-timeslice %u or more, or be-rotate", o->floor_pct,
			 (unsigned long long)o->be_ts, GATE_TS_PROGRESS_US, GATE_TS_PROGRESS_US);
		return buf;
	}
	rm = (double)o->be_ts / (o->be_ts + o->lc_ts);
	if (need > 0.9)
		need = 0.9;
	if (rm >= need * 0.98)
		return NULL;
	/* an LC timeslice at the least one: only a longer BE one keeps the floor */
	if (o->lc_ts <= GATE_TS_PROGRESS_US)
		snprintf(how, sizeof(how), "an LC needs %u us: be-timeslice %.0f+",
			 GATE_TS_PROGRESS_US, ceil(o->lc_ts * need / (1.0 - need) - 1e-6));
	else
		snprintf(how, sizeof(how), "leave lc-timeslice out to have it derived");
	snprintf(buf, len, "be-floor %u%% cannot be kept: lc-timeslice %llu us against "
		 "be-timeslice %llu us leaves BE %.1f%% of a GPU while an LC is busy%s (%s)",
		 o->floor_pct, (unsigned long long)o->lc_ts, (unsigned long long)o->be_ts,
		 100 * rm, o->hint ? ", the hint may take half" : "", how);
	return buf;
}

void share_write(const struct gate_opts *o, const struct gate_stats *st,
		 const struct gate_lat *lat, const struct gate_target *tgt,
		 const struct gate_share_row *rows, int n)
{
	struct gate_share sh = {
		.pid = getpid(), .floor_pct = o->floor_pct, .stall_ms = o->stall_ms,
		.rotate_ms = o->rotate_ms, .hint = !!o->hint, .lc_ts = o->lc_ts, .be_ts = o->be_ts,
		.min_off_ms = o->min_off_ms, .switches = st->switches,
		.suppressed = st->suppressed, .calls = st->calls, .busy_turns = st->busy_turns,
		.reported = st->reported, .lat = *lat,
	};

	if (tgt) {
		sh.target_us = o->target_us;
		sh.target_p99_us = tgt->p99_us;
		sh.target_kept = tgt->windows ? tgt->kept : -1;
		sh.duty_pm = tgt->duty_pm;
		sh.rung = tgt->rung;
		sh.be_threads = tgt->be_threads;	/* 0 unless under mps */
		sh.be_priority = tgt->be_priority;
		sh.target_windows = tgt->windows;
		sh.target_kept_windows = tgt->kept_windows;
		sh.target_moves = tgt->moves;
		sh.unreachable_us = tgt->unreachable_us;
		sh.target_confirm = tgt->miss_at ? tgt->windows - tgt->miss_at + 1 : 0;
	}
	sh.n = n < (int)(sizeof(sh.rows) / sizeof(sh.rows[0])) ? n :
	       (int)(sizeof(sh.rows) / sizeof(sh.rows[0]));
	memcpy(sh.rows, rows, sh.n * sizeof(rows[0]));
	share_file_write(&sh);
}

void share_remove(void)
{
	unlink(RUN_SHARE);
}

static void share_warn(struct gate_share *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void share_warn(struct gate_share *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nwarn == (int)(sizeof(s->warn) / sizeof(s->warn[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(s->warn[s->nwarn++], sizeof(s->warn[0]), fmt, ap);
	va_end(ap);
}

int share_read(struct gate_share *s)
{
	struct gate_opts o = { 0 };
	char prob[SHARE_WARN_LEN];
	int err = share_file_read(s);

	if (err)
		return err;
	o.floor_pct = s->floor_pct;
	o.lc_ts = s->lc_ts;
	o.be_ts = s->be_ts;
	o.hint = s->hint ? "" : NULL;
	o.rotate_ms = s->rotate_ms;
	if (share_floor_problem(&o, prob, sizeof(prob)))
		share_warn(s, "%s", prob);
	for (int i = 0; i < s->n; i++) {
		const struct gate_share_row *r = &s->rows[i];

		if (!r->kept)
			share_warn(s, "GPU %u: BE pid %u (%s) keeps %.1f%% of the GPU, under its "
				   "floor of %.1f%%", r->gpu, r->pid, r->comm, r->share_pct,
				   r->floor_pct);
		if (!r->stall_kept)
			share_warn(s, "GPU %u: BE pid %u (%s) was held off %.0f ms, over be-stall "
				   "%u ms", r->gpu, r->pid, r->comm, r->longest_off_ms, s->stall_ms);
	}
	return 0;
}

/* lc-p99's rungs (TARGET_RUNG_*), as -j and the text name them */
static const char *const rung_name[] = {
	[TARGET_RUNG_RM] = "rm", [TARGET_RUNG_LEVELS] = "levels", [TARGET_RUNG_LCBE] = "lc-be",
};
static const char *const rung_text[] = {
	[TARGET_RUNG_RM] = "RM's values (no miss yet)",
	[TARGET_RUNG_LEVELS] = "the classes' interleave levels, RM's timeslices",
	[TARGET_RUNG_LCBE] = "lc-be's timeslices and levels",
};

/* The share file's rung, a file's number past the last read as the last. */
static __u32 rung_of(const struct gate_share *sh)
{
	return sh->rung < TARGET_RUNG_LCBE ? sh->rung : TARGET_RUNG_LCBE;
}

/* lc-p99 in status: the target, the last span, the knobs. */
static void target_json(const struct gate_share *sh)
{
	jsonw_name(json_wtr, "lc_p99_target");
	jsonw_start_object(json_wtr);
	jsonw_uint_field(json_wtr, "target_us", sh->target_us);
	if (sh->target_kept >= 0) {
		jsonw_float_field(json_wtr, "p99_us", sh->target_p99_us);
		jsonw_bool_field(json_wtr, "kept", sh->target_kept);
	} else {
		jsonw_null_field(json_wtr, "p99_us");
		jsonw_null_field(json_wtr, "kept");
	}
	jsonw_u64_field(json_wtr, "windows", sh->target_windows);
	jsonw_u64_field(json_wtr, "kept_windows", sh->target_kept_windows);
	jsonw_u64_field(json_wtr, "moves", sh->target_moves);
	jsonw_string_field(json_wtr, "tsg_rung", rung_name[rung_of(sh)]);
	/* a miss on RM's values waits for a span without it before the rung leaves them */
	jsonw_bool_field(json_wtr, "confirming", sh->target_confirm > 0);
	jsonw_u64_field(json_wtr, "confirming_windows", sh->target_confirm);
	jsonw_float_field(json_wtr, "be_held_off_max_pct", sh->duty_pm / 10.0);
	if (sh->be_threads) {
		jsonw_uint_field(json_wtr, "mps_be_threads_pct", sh->be_threads);
		jsonw_uint_field(json_wtr, "mps_be_priority", sh->be_priority);
	}
	if (sh->unreachable_us > 0)
		jsonw_float_field(json_wtr, "unreachable_p99_us", sh->unreachable_us);
	jsonw_end_object(json_wtr);
}

static void target_text(const struct gate_share *sh)
{
	printf("LC P99 target %.2f ms: ", sh->target_us / 1e3);
	if (sh->target_kept < 0)
		printf("no second with enough timed requests yet");
	else
		printf("last %d s %.2f ms, %s (%llu of %llu seconds kept)", GATE_LAT_SPAN,
		       sh->target_p99_us / 1e3,
		       sh->target_kept ? "kept" : "NOT KEPT",
		       (unsigned long long)sh->target_kept_windows,
		       (unsigned long long)sh->target_windows);
	/* under mps the gate leaves MPS clients alone: the TSG knobs reach BE outside MPS only */
	printf("; knobs%s: TSGs at ", sh->be_threads ? " (for BE outside MPS)" : "");
	if (sh->target_confirm && rung_of(sh) == TARGET_RUNG_RM)
		printf("RM's values (above the target since %llu s: confirming before leaving "
		       "them)", (unsigned long long)sh->target_confirm);
	else
		printf("%s", rung_text[rung_of(sh)]);
	printf(", the hint may hold BE off up to %.0f%% of the time", sh->duty_pm / 10.0);
	if (sh->be_threads)
		printf("; MPS BE clients started from now get priority %u and %u%% of the SMs",
		       sh->be_priority, sh->be_threads);
	printf(" (moved %llu times)\n", (unsigned long long)sh->target_moves);
	if (sh->unreachable_us > 0)
		printf("warning: target not kept: with BE held off as much as be-floor allows, the "
		       "LC's P99 is %.2f ms; the floor wins over the target\n",
		       sh->unreachable_us / 1e3);
}

void share_print(pid_t runner)
{
	struct gate_share sh;

	if (share_read(&sh) || sh.pid != runner)
		return;
	if (json_output) {
		jsonw_name(json_wtr, "be_floor");
		jsonw_start_object(json_wtr);
		jsonw_uint_field(json_wtr, "floor_pct", sh.floor_pct);
		jsonw_uint_field(json_wtr, "stall_ms", sh.stall_ms);
		jsonw_u64_field(json_wtr, "lc_timeslice_us", sh.lc_ts);
		jsonw_u64_field(json_wtr, "be_timeslice_us", sh.be_ts);
		if (sh.hint) {
			jsonw_name(json_wtr, "hint_gate");
			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "min_off_ms", sh.min_off_ms);
			jsonw_u64_field(json_wtr, "switches", sh.switches);
			jsonw_u64_field(json_wtr, "suppressed", sh.suppressed);
			jsonw_u64_field(json_wtr, "rm_calls", sh.calls);
			jsonw_u64_field(json_wtr, "lc_busy_turns_seen", sh.busy_turns);
			jsonw_u64_field(json_wtr, "lc_requests_reported_by_hint_writers",
					sh.reported);
			jsonw_name(json_wtr, "lc_latency_last_second");
			jsonw_start_object(json_wtr);
			jsonw_u64_field(json_wtr, "begun", sh.lat.begun);
			jsonw_u64_field(json_wtr, "timed", sh.lat.count);
			if (sh.lat.count) {
				jsonw_float_field(json_wtr, "p50_us", sh.lat.p50_us);
				jsonw_float_field(json_wtr, "p99_us", sh.lat.p99_us);
				jsonw_float_field(json_wtr, "max_us", sh.lat.max_us);
			}
			jsonw_end_object(json_wtr);
			jsonw_end_object(json_wtr);
		}
		if (sh.target_us)
			target_json(&sh);
		jsonw_name(json_wtr, "be");
		jsonw_start_array(json_wtr);
		for (int i = 0; i < sh.n; i++) {
			const struct gate_share_row *r = &sh.rows[i];

			jsonw_start_object(json_wtr);
			jsonw_uint_field(json_wtr, "gpu", r->gpu);
			jsonw_uint_field(json_wtr, "pid", r->pid);
			jsonw_string_field(json_wtr, "comm", r->comm);
			jsonw_float_field(json_wtr, "on_pct", r->on_pct);
			jsonw_float_field(json_wtr, "share_pct", r->share_pct);
			jsonw_float_field(json_wtr, "floor_pct", r->floor_pct);
			jsonw_float_field(json_wtr, "longest_off_ms", r->longest_off_ms);
			jsonw_float_field(json_wtr, "rm_wait_ms", r->rm_wait_ms);
			jsonw_float_field(json_wtr, "longest_stall_ms", r->stall_ms);
			jsonw_bool_field(json_wtr, "floor_kept", r->kept);
			jsonw_bool_field(json_wtr, "stall_kept", r->stall_kept);
			jsonw_end_object(json_wtr);
		}
		jsonw_end_array(json_wtr);
		jsonw_name(json_wtr, "warnings");
		jsonw_start_array(json_wtr);
		for (int i = 0; i < sh.nwarn; i++)
			jsonw_string(json_wtr, sh.warn[i]);
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
		return;
	}
	printf("BE floor: %u%% of each GPU for its BE processes, held off %u ms at most "
	       "(LC timeslice %llu us, BE %llu us)\n", sh.floor_pct, sh.stall_ms,
	       (unsigned long long)sh.lc_ts, (unsigned long long)sh.be_ts);
	if (sh.hint)
		printf("hint gate: BE switched %llu times (%llu RM calls), %llu switches saved by "
		       "hint-min-off %u ms; the LC turned busy %llu times as the gate saw it "
		       "(the hint file's writers report %llu requests: not checked)\n",
		       (unsigned long long)sh.switches, (unsigned long long)sh.calls,
		       (unsigned long long)sh.suppressed, sh.min_off_ms,
		       (unsigned long long)sh.busy_turns, (unsigned long long)sh.reported);
	if (sh.hint && sh.lat.count)
		printf("LC latency, last second (the hint library's report): %llu requests, P50 "
		       "%.2f ms, P99 %.2f ms, max %.2f ms\n", (unsigned long long)sh.lat.count,
		       sh.lat.p50_us / 1e3, sh.lat.p99_us / 1e3, sh.lat.max_us / 1e3);
	else if (sh.hint && sh.lat.begun)
		printf("LC latency: %llu requests begun in the last second, none timed "
		       "(a libgpuctl-hint.so older than this gpuctl?)\n",
		       (unsigned long long)sh.lat.begun);
	if (sh.target_us)
		target_text(&sh);
	if (sh.n)
		printf("  %-4s %-8s %-15s %6s %7s %7s %12s %10s %s\n", "GPU", "PID", "COMM", "ON%",
		       "SHARE%", "FLOOR%", "LONGEST-OFF", "RM-WAIT", "FLOOR");
	for (int i = 0; i < sh.n; i++) {
		const struct gate_share_row *r = &sh.rows[i];

		printf("  %-4u %-8u %-15s %6.1f %7.1f %7.1f %9.0f ms %7.1f ms %s\n", r->gpu, r->pid,
		       r->comm, r->on_pct, r->share_pct, r->floor_pct, r->longest_off_ms,
		       r->rm_wait_ms, r->kept && r->stall_kept ? "kept" : "NOT KEPT");
	}
	for (int i = 0; i < sh.nwarn; i++)
		printf("warning: %s\n", sh.warn[i]);
}
