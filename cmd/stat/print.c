// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - one block of gpuctl stat's counters: perf stat's layout, -x
 * SEP values, or one JSON document (a line per interval under -I).
 */
#include <string.h>

#include "gpuctl.h"
#include "gpus.h"
#include "stat.h"
#include "units.h"

const struct stat_row stat_rows[TC_NR] = {
	[TC_GPU_FAULTS] = { "gpu_faults", "", "GPU page faults (fault buffer entries)" },
	[TC_DUPLICATES] = { "gpu_faults_duplicate", "", "of which duplicates" },
	[TC_BATCHES] = { "fault_batches", "", "fault batches serviced" },
	[TC_BATCH_US] = { "fault_batch_time", "us", "time servicing batches" },
	[TC_REPLAYS] = { "replays", "", "fault replays" },
	[TC_CPU_FAULTS] = { "cpu_faults", "", "CPU page faults on managed memory" },
	[TC_BYTES_HTOD] = { "bytes_htod", "B", "bytes host to device" },
	[TC_BYTES_DTOH] = { "bytes_dtoh", "B", "bytes device to host" },
	[TC_PREFETCH_BYTES] = { "prefetch_bytes", "B", "bytes moved by prefetching" },
	[TC_EVICTION_BYTES] = { "eviction_bytes", "B", "bytes evicted from the GPU" },
	[TC_EVICTIONS] = { "evictions", "", "GPU memory evictions" },
	[TC_THRASHING] = { "thrashing", "", "thrashing detected" },
};

/*
 * A row's GPU: for uvm-tools, nvidia-smi's index and the UUID (RM's list);
 * the bpf backend counts by UVM's own GPU index (uvm_gpu), whose UUID it
 * does not know; null when the row is all GPUs together.
 */
static void stat_row_gpu_json(json_writer_t *w, uint32_t gpu, const char *backend)
{
	const struct gpu_info *g;
	int n;

	if (gpu == GT_GPU_NONE) {
		jsonw_null_field(w, "gpu");
		jsonw_null_field(w, "uuid");
		return;
	}
	if (strcmp(backend, "uvm-tools")) {
		jsonw_uint_field(w, "uvm_gpu", gpu);
		return;
	}
	n = gpus_list(&g, false, NULL);
	jsonw_uint_field(w, "gpu", gpu);
	if ((int)gpu < n)
		jsonw_string_field(w, "uuid", g[gpu].uuid_str);
	else
		jsonw_null_field(w, "uuid");
}

void stat_commas(char *buf, size_t len, uint64_t v)
{
	char raw[32];
	int n, o = 0;

	n = snprintf(raw, sizeof(raw), "%llu", (unsigned long long)v);
	for (int i = 0; i < n && o < (int)len - 1; i++) {
		if (i && (n - i) % 3 == 0 && o < (int)len - 2)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
}

const char *stat_human(const char *unit, uint64_t v)
{
	static char buf[UNITS_BUF + 4];
	char h[UNITS_BUF];

	if (!strcmp(unit, "B"))
		units_fmt_size(v, UNITS_HUMAN, h, sizeof(h));
	else if (!strcmp(unit, "us"))
		units_fmt_duration(v > UINT64_MAX / 1000 ? UINT64_MAX : v * 1000, UNITS_HUMAN, h,
				   sizeof(h));
	else
		return "";
	snprintf(buf, sizeof(buf), ": %s", h);
	return buf;
}

void stat_print_block(const struct stat_out *so, const struct tb_counters *c,
		      const uint64_t *prev, double t, bool interval, int cmd_status)
{
	json_writer_t *w = so->w;

	if (json_output) {
		jsonw_start_object(w);
		if (interval)
			jsonw_float_field(w, "time_s", t);
		jsonw_string_field(w, "target", so->target);
		jsonw_string_field(w, "backend", so->backend);
		jsonw_name(w, "counters");
		jsonw_start_object(w);
		for (int i = 0; i < TC_NR; i++) {
			if (c->have[i])
				jsonw_uint_field(w, stat_rows[i].name,
						 c->total[i] - (prev ? prev[i] : 0));
			else
				jsonw_null_field(w, stat_rows[i].name);
		}
		jsonw_end_object(w);
		if (!interval) {
			jsonw_name(w, "per_process_gpu");
			jsonw_start_array(w);
			for (int r = 0; r < c->nrows; r++) {
				jsonw_start_object(w);
				jsonw_uint_field(w, "pid", c->rows[r].pid);
				stat_row_gpu_json(w, c->rows[r].gpu, so->backend);
				for (int i = 0; i < TC_NR; i++)
					if (c->have[i] && c->rows[r].v[i])
						jsonw_uint_field(w, stat_rows[i].name,
								 c->rows[r].v[i]);
				jsonw_end_object(w);
			}
			jsonw_end_array(w);
			jsonw_float_field(w, "elapsed_s", t);
			if (cmd_status >= 0)
				jsonw_int_field(w, "command_status", cmd_status);
			else
				jsonw_null_field(w, "command_status");
		}
		jsonw_end_object(w);	/* one document (a line) per interval */
		return;
	}
	if (so->sep) {
		for (int i = 0; i < TC_NR; i++) {
			if (interval)
				fprintf(so->f, "%.3f%s", t, so->sep);
			if (c->have[i])
				fprintf(so->f, "%llu",
					(unsigned long long)(c->total[i] - (prev ? prev[i] : 0)));
			else
				fprintf(so->f, "<not supported>");
			fprintf(so->f, "%s%s%s%s\n", so->sep, stat_rows[i].unit, so->sep,
				stat_rows[i].name);
		}
		return;
	}
	if (!interval)
		fprintf(so->f, "\n Performance counter stats for %s (backend %s):\n\n", so->target,
			so->backend);
	for (int i = 0; i < TC_NR; i++) {
		char v[40];

		if (c->have[i])
			stat_commas(v, sizeof(v), c->total[i] - (prev ? prev[i] : 0));
		else
			snprintf(v, sizeof(v), "<not supported>");
		if (interval)
			fprintf(so->f, "%14.6f ", t);
		fprintf(so->f, "%20s %-3s %-22s # %s%s\n", v, stat_rows[i].unit, stat_rows[i].name,
		       stat_rows[i].what, c->have[i] ? stat_human(stat_rows[i].unit,
							     c->total[i] - (prev ? prev[i] : 0)) : "");
	}
	if (!interval && (c->nrows > 1 || (c->nrows == 1 && c->rows[0].gpu != GT_GPU_NONE))) {
		fprintf(so->f, "\n %8s %4s %14s %14s %16s %16s\n", "PID", "GPU", "gpu_faults",
		       "cpu_faults", "bytes_htod", "bytes_dtoh");
		for (int r = 0; r < c->nrows; r++) {
			const struct tb_row *w = &c->rows[r];
			char g[8];
			char in[UNITS_BUF], out[UNITS_BUF];

			snprintf(g, sizeof(g), w->gpu == GT_GPU_NONE ? "-" : "%u", w->gpu);
			fprintf(so->f, " %8u %4s %14llu %14llu %16s %16s\n", w->pid, g,
			       (unsigned long long)w->v[TC_GPU_FAULTS],
			       (unsigned long long)w->v[TC_CPU_FAULTS],
			       units_fmt_size(w->v[TC_BYTES_HTOD], UNITS_HUMAN, in, sizeof(in)),
			       units_fmt_size(w->v[TC_BYTES_DTOH], UNITS_HUMAN, out, sizeof(out)));
		}
	}
	if (!interval)
		fprintf(so->f, "\n %14.6f seconds time elapsed\n\n", t);
	else
		fprintf(so->f, "\n");
}

