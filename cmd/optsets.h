/* SPDX-License-Identifier: GPL-2.0 */
/*
 * optsets.h - every command whose options are rows (opts.h), one line each:
 * the faces define them, gpuctl __complete (complete.c) and the man-page
 * test read them.  A face that turns its options into rows adds its set here.
 */
#ifndef GPUCTL_OPTSETS_H
#define GPUCTL_OPTSETS_H

#include "opts.h"

extern const struct optset stat_opts;	/* stat.c */
extern const struct optset probe_opts;	/* probe.c */
extern const struct optset exporter_serve_opts, exporter_textfile_opts;	/* exporter.c */
extern const struct optset prefetch_load_opts;	/* prefetch/args.c */
extern const struct optset prefetch_list_opts, prefetch_set_opts, prefetch_unload_opts;	/* prefetch.c */
extern const struct optset prefetch_migrate_opts, prefetch_advise_opts;	/* pfengine/oneshot.c */
extern const struct optset run_opts;	/* run.c */
extern const struct optset sched_watch_opts, sched_list_opts, sched_set_ts_opts, sched_set_il_opts,
	sched_preempt_opts, sched_run_opts, sched_status_opts, sched_stop_opts,
	sched_unload_opts;	/* sched.c */
extern const struct optset sched_exec_opts;	/* sched/exec/exec.c */
extern const struct optset trace_faults_opts, trace_migrations_opts, trace_evictions_opts,
	trace_replays_opts, trace_prefetch_opts, trace_tsg_opts, trace_record_opts,
	trace_report_opts;	/* trace.c */

#define GPUCTL_OPTSETS &stat_opts, &probe_opts, &exporter_serve_opts, &exporter_textfile_opts, \
	&prefetch_load_opts, &prefetch_list_opts, &prefetch_set_opts, &prefetch_unload_opts, \
	&prefetch_migrate_opts, &prefetch_advise_opts, &run_opts, \
	&sched_watch_opts, &sched_list_opts, &sched_set_ts_opts, &sched_set_il_opts, \
	&sched_preempt_opts, &sched_run_opts, &sched_status_opts, &sched_stop_opts, &sched_unload_opts, \
	&sched_exec_opts, &trace_faults_opts, &trace_migrations_opts, &trace_evictions_opts, \
	&trace_replays_opts, &trace_prefetch_opts, &trace_tsg_opts, &trace_record_opts, \
	&trace_report_opts

#endif
