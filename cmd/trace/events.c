// SPDX-License-Identifier: GPL-2.0
/* events.c - one line per event, text or JSON, for live traces and reports. */
#include <string.h>

#include "gpuctl.h"
#include "record.h"
#include "report.h"
#include "rm.h"		/* rm_level_name */
#include "units.h"

void tr_print_header(FILE *out, bool tsg)
{
	if (json_output)
		return;
	if (tsg) {
		fprintf(out, "%-12s %7s %-16s %-9s %-10s %-10s %5s %s\n", "TIME(s)", "PID", "COMM",
			"EVENT", "CLIENT", "TSG", "SEQ", "VALUE");
		return;
	}
	fprintf(out, "%-12s %7s %4s %-10s %-18s %-8s %-9s %10s %10s\n", "TIME(s)", "PID", "GPU",
		"EVENT", "ADDRESS", "ACCESS", "CAUSE", "BYTES", "LATENCY");
}

/* "timeslice 500us", "interleave high", "preempt", "with its client", "at exit", "-" */
static void tsg_value(const struct gt_event *e, char *buf, size_t len)
{
	if (e->type == GT_EV_TSG_FREE)
		snprintf(buf, len, "%s", e->flags & GT_F_WITH_CLIENT ? "with its client" :
			 e->flags & GT_F_AT_EXIT ? "at exit" : "-");
	else if (e->type != GT_EV_TSG_SET)
		snprintf(buf, len, "-");
	else if (e->cause == GT_TSG_CTL_TIMESLICE)
		snprintf(buf, len, "timeslice %lluus", (unsigned long long)e->bytes);
	else if (e->cause == GT_TSG_CTL_INTERLEAVE)
		snprintf(buf, len, "interleave %s", e->bytes <= 2 ?
			 rm_level_name((__u32)e->bytes) : "?");
	else
		snprintf(buf, len, "%s", gt_tsg_ctl_name(e->cause));
}

/* A TSG event; comm is NULL when not known (a record has none). */
static void print_tsg_event(FILE *out, const struct gt_event *e, const char *comm, double t)
{
	char name[17] = "", value[48];

	/* A process name is at most 16 bytes and need not end in a NUL. */
	if (comm)
		memcpy(name, comm, strnlen(comm, 16));
	if (json_output) {
		json_writer_t *w = json_wtr;

		jsonw_start_object(w);
		jsonw_float_field(w, "time_s", t);
		jsonw_string_field(w, "event", gt_type_name(e->type));
		jsonw_uint_field(w, "pid", e->pid);
		jsonw_string_field(w, "comm", comm ? name : NULL);
		jsonw_stringf_field(w, "client", "0x%x", e->batch);
		jsonw_stringf_field(w, "tsg", "0x%llx", (unsigned long long)e->addr);
		jsonw_uint_field(w, "seq", e->count);
		if (e->type == GT_EV_TSG_SET) {
			jsonw_string_field(w, "control", e->cause == GT_TSG_CTL_NONE ? NULL :
					   gt_tsg_ctl_name(e->cause));
			jsonw_uint_field(w, "value", e->bytes);
		} else if (e->type == GT_EV_TSG_FREE) {
			jsonw_bool_field(w, "with_client", e->flags & GT_F_WITH_CLIENT);
			jsonw_bool_field(w, "at_exit", e->flags & GT_F_AT_EXIT);
		}
		jsonw_end_object(w);
		return;
	}
	char safe[4 * 16 + 1];

	str_printable(safe, sizeof(safe), name, sizeof(name));
	tsg_value(e, value, sizeof(value));
	fprintf(out, "%-12.6f %7u %-16s %-9s 0x%-8x 0x%-8llx %5u %s\n", t, e->pid,
		safe[0] ? safe : "-", gt_type_name(e->type), e->batch,
		(unsigned long long)e->addr, e->count, value);
}

static void json_event(const struct gt_event *e, double t)
{
	json_writer_t *w = json_wtr;

	jsonw_start_object(w);
	jsonw_float_field(w, "time_s", t);
	jsonw_string_field(w, "event", gt_type_name(e->type));
	jsonw_uint_field(w, "pid", e->pid);
	if (e->gpu != GT_GPU_NONE)
		jsonw_uint_field(w, "gpu", e->gpu);
	else
		jsonw_null_field(w, "gpu");
	jsonw_stringf_field(w, "addr", "0x%llx", (unsigned long long)e->addr);
	/* none is null under -j ("-" in the text) */
	jsonw_string_field(w, "access", e->access == GT_ACC_NONE ? NULL : gt_access_name(e->access));
	jsonw_string_field(w, "cause", e->cause == GT_CAUSE_NONE ? NULL : gt_cause_name(e->cause));
	jsonw_uint_field(w, "bytes", e->bytes);
	jsonw_uint_field(w, "latency_ns", e->latency_ns);
	jsonw_uint_field(w, "batch", e->batch);
	jsonw_uint_field(w, "count", e->count);
	jsonw_bool_field(w, "duplicate", e->flags & GT_F_DUPLICATE);
	jsonw_end_object(w);
}

void tr_print_event(FILE *out, const struct gt_event *e, uint64_t t0, const char *comm)
{
	double t = e->ts_ns >= t0 ? (e->ts_ns - t0) / 1e9 : 0;
	char gpu[8], lat[UNITS_BUF], acc[16], bytes[UNITS_BUF];

	if (gt_is_tsg(e->type)) {
		print_tsg_event(out, e, comm, t);
		return;
	}
	if (json_output) {
		json_event(e, t);
		return;
	}
	if (e->gpu == GT_GPU_NONE)
		snprintf(gpu, sizeof(gpu), "-");
	else
		snprintf(gpu, sizeof(gpu), "%u", e->gpu);
	if (e->latency_ns)
		units_fmt_duration(e->latency_ns, UNITS_HUMAN, lat, sizeof(lat));
	else
		snprintf(lat, sizeof(lat), "-");
	snprintf(acc, sizeof(acc), "%s%s", gt_access_name(e->access),
		 e->flags & GT_F_DUPLICATE ? "*" : "");
	fprintf(out, "%-12.6f %7u %4s %-10s 0x%-16llx %-8s %-9s %10s %10s\n", t, e->pid, gpu,
		gt_type_name(e->type), (unsigned long long)e->addr, acc, gt_cause_name(e->cause),
		units_fmt_size(e->bytes, UNITS_HUMAN, bytes, sizeof(bytes)), lat);
}
