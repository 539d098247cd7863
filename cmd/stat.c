// SPDX-License-Identifier: GPL-2.0
/*
 * stat.c - gpuctl stat: UVM counters for the system, a process, or a
 * command, laid out like perf stat.  Counters only: no per-fault events,
 * so it costs next to nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "target.h"
#include "trace/backend.h"
#include "gpus.h"
#include "units.h"

static const struct {
	const char *name;
	const char *unit;
	const char *what;
} stat_rows[TC_NR] = {
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
static void stat_row_gpu_json(uint32_t gpu, const char *backend)
{
	const struct gpu_info *g;
	int n;

	if (gpu == GT_GPU_NONE) {
		jsonw_null_field(json_wtr, "gpu");
		jsonw_null_field(json_wtr, "uuid");
		return;
	}
	if (strcmp(backend, "uvm-tools")) {
		jsonw_uint_field(json_wtr, "uvm_gpu", gpu);
		return;
	}
	n = gpus_list(&g, false, NULL);
	jsonw_uint_field(json_wtr, "gpu", gpu);
	if ((int)gpu < n)
		jsonw_string_field(json_wtr, "uuid", g[gpu].uuid_str);
	else
		jsonw_null_field(json_wtr, "uuid");
}

static void commas(char *buf, size_t len, uint64_t v)
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

/* ": 1.0 MiB" for a row counted in bytes or microseconds, else "" (the count says it). */
static const char *human(const char *unit, uint64_t v)
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

static void print_block(const struct tb_counters *c, const uint64_t *prev, double t,
			bool interval, const char *sep, const char *target, const char *backend,
			double elapsed)
{
	if (json_output) {
		jsonw_start_object(json_wtr);
		if (interval)
			jsonw_float_field(json_wtr, "time_s", t);
		jsonw_string_field(json_wtr, "target", target);
		jsonw_string_field(json_wtr, "backend", backend);
		jsonw_name(json_wtr, "counters");
		jsonw_start_object(json_wtr);
		for (int i = 0; i < TC_NR; i++) {
			if (c->have[i])
				jsonw_uint_field(json_wtr, stat_rows[i].name,
						 c->total[i] - (prev ? prev[i] : 0));
			else
				jsonw_null_field(json_wtr, stat_rows[i].name);
		}
		jsonw_end_object(json_wtr);
		if (!interval) {
			jsonw_name(json_wtr, "per_process_gpu");
			jsonw_start_array(json_wtr);
			for (int r = 0; r < c->nrows; r++) {
				jsonw_start_object(json_wtr);
				jsonw_uint_field(json_wtr, "pid", c->rows[r].pid);
				stat_row_gpu_json(c->rows[r].gpu, backend);
				for (int i = 0; i < TC_NR; i++)
					if (c->have[i] && c->rows[r].v[i])
						jsonw_uint_field(json_wtr, stat_rows[i].name,
								 c->rows[r].v[i]);
				jsonw_end_object(json_wtr);
			}
			jsonw_end_array(json_wtr);
			jsonw_float_field(json_wtr, "elapsed_s", elapsed);
		}
		jsonw_end_object(json_wtr);	/* one document (a line) per interval */
		return;
	}
	if (sep) {
		for (int i = 0; i < TC_NR; i++) {
			if (interval)
				printf("%.3f%s", t, sep);
			if (c->have[i])
				printf("%llu", (unsigned long long)(c->total[i] - (prev ? prev[i] : 0)));
			else
				printf("<not supported>");
			printf("%s%s%s%s\n", sep, stat_rows[i].unit, sep, stat_rows[i].name);
		}
		return;
	}
	if (!interval)
		printf("\n Performance counter stats for %s (backend %s):\n\n", target, backend);
	for (int i = 0; i < TC_NR; i++) {
		char v[40];

		if (c->have[i])
			commas(v, sizeof(v), c->total[i] - (prev ? prev[i] : 0));
		else
			snprintf(v, sizeof(v), "<not supported>");
		if (interval)
			printf("%14.6f ", t);
		printf("%20s %-3s %-22s # %s%s\n", v, stat_rows[i].unit, stat_rows[i].name,
		       stat_rows[i].what, c->have[i] ? human(stat_rows[i].unit,
							     c->total[i] - (prev ? prev[i] : 0)) : "");
	}
	if (!interval && (c->nrows > 1 || (c->nrows == 1 && c->rows[0].gpu != GT_GPU_NONE))) {
		printf("\n %8s %4s %14s %14s %16s %16s\n", "PID", "GPU", "gpu_faults",
		       "cpu_faults", "bytes_htod", "bytes_dtoh");
		for (int r = 0; r < c->nrows; r++) {
			const struct tb_row *w = &c->rows[r];
			char g[8];
			char in[UNITS_BUF], out[UNITS_BUF];

			snprintf(g, sizeof(g), w->gpu == GT_GPU_NONE ? "-" : "%u", w->gpu);
			printf(" %8u %4s %14llu %14llu %16s %16s\n", w->pid, g,
			       (unsigned long long)w->v[TC_GPU_FAULTS],
			       (unsigned long long)w->v[TC_CPU_FAULTS],
			       units_fmt_size(w->v[TC_BYTES_HTOD], UNITS_HUMAN, in, sizeof(in)),
			       units_fmt_size(w->v[TC_BYTES_DTOH], UNITS_HUMAN, out, sizeof(out)));
		}
	}
	if (!interval)
		printf("\n %14.6f seconds time elapsed\n\n", elapsed);
	else
		printf("\n");
}

static int stat_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output) {
		jsonw_null(json_wtr);
		return EXIT_OK;
	}
	printf("Usage: %1$s stat [-p PID] [-I MS] [--interval-count N] [-x SEP] [-j] [-- CMD ARGS...]\n"
	       "       %1$s stat [--duration S] [--backend auto|bpf|uvm-tools] ...\n"
	       "       %1$s stat help\n"
	       "\n"
	       "UVM counters (GPU faults, duplicates, batches, replays, CPU faults, bytes\n"
	       "host->device and device->host, prefetch and eviction bytes, thrashing),\n"
	       "system-wide, for one process, or for CMD, which it runs.  -I prints the\n"
	       "counts of every interval; -x SEP writes SEP-separated values.\n",
	       bin_name);
	return EXIT_OK;
}

struct sopts {
	struct tb_opts tb;
	unsigned long long interval_ms, icount, duration;
	const char *sep;	/* -x */
	char target[256];	/* "'CMD ARGS'", "process id N", "system wide" */
};

static int parse_opts(int argc, char **argv, struct sopts *o)
{

	while (argc > 0) {
		const char *a = argv[0];

		if (!strcmp(a, "--") || !strcmp(a, "-p") || !strcmp(a, "--pid")) {
			int n = target_take(&o->tb.target, argc, argv);

			if (n < 0)
				return -n;
			argc -= n;
			argv += n;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			tb_json_on();
			argc--;
			argv++;
			continue;
		}
		if (argc < 2)
			return usage_err(a[0] == '-' ? "option '%s' needs a value" :
					 "unexpected argument '%s'", a);
		if (!strcmp(a, "-I") || !strcmp(a, "--interval")) {
			if (parse_u64("interval (ms)", argv[1], 1, 3600000, &o->interval_ms))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--interval-count")) {
			if (parse_u64("interval count", argv[1], 1, ~0ull >> 1, &o->icount))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--duration")) {
			if (parse_u64("duration", argv[1], 1, 86400 * 365, &o->duration))
				return EXIT_USAGE;
		} else if (!strcmp(a, "-x")) {
			if (!argv[1][0])
				return usage_err("-x needs a non-empty separator");
			o->sep = argv[1];
		} else if (!strcmp(a, "--backend")) {
			if (tb_parse_kind(argv[1], &o->tb.kind) || o->tb.kind == TB_RM)
				return usage_err("unknown backend '%s' (auto, bpf, uvm-tools)", argv[1]);
		} else {
			return usage_err("unknown option '%s'; try '%s stat help'", a, bin_name);
		}
		argc -= 2;
		argv += 2;
	}
	if (target_check(&o->tb.target, 0))
		return EXIT_USAGE;
	if (o->icount && !o->interval_ms)
		return usage_err("--interval-count needs -I MS");
	return 0;
}

static void target_name(struct sopts *o)
{
	size_t used = 0, len = sizeof(o->target);

	if (o->tb.target.cmd) {
		used += snprintf(o->target, len, "'");
		for (int i = 0; o->tb.target.cmd[i] && used < len - 2; i++)
			used += snprintf(o->target + used, len - used, "%s%s", i ? " " : "",
					 o->tb.target.cmd[i]);
		if (used < len - 1)
			snprintf(o->target + used, len - used, "'");
	} else if (o->tb.target.pid) {
		snprintf(o->target, len, "process id %d", o->tb.target.pid);
	} else {
		snprintf(o->target, len, "system wide");
	}
}

/*
 * Counts until Ctrl-C, the duration, the interval count or the target's end:
 * true at the target's end (-- CMD ended by itself), false when stat stopped.
 */
static bool count_loop(struct sopts *o, struct tb *t, struct tb_counters *c, double start)
{
	uint64_t prev[TC_NR] = { 0 };
	unsigned long long intervals = 0;
	double next = start + o->interval_ms / 1000.0;

	while (!stop_requested()) {
		int wait = 100;

		if (o->interval_ms) {
			double left = next - mono_s();

			wait = left > 0 ? (int)(left * 1000) + 1 : 0;
			if (wait > 100)
				wait = 100;
		}
		if (!tb_poll(t, wait))
			return true;
		if (o->duration && mono_s() - start >= o->duration)
			break;
		if (o->interval_ms && mono_s() >= next) {
			tb_read_counters(t, c);
			print_block(c, prev, mono_s() - start, true, o->sep, o->target, tb_name(t), 0);
			fflush(stdout);
			memcpy(prev, c->total, sizeof(prev));
			next += o->interval_ms / 1000.0;
			if (o->icount && ++intervals >= o->icount)
				break;
		}
	}
	return false;
}

static int do_stat(int argc, char **argv)
{
	struct sopts o = { .tb = { .what = "stat" } };
	struct tb_counters c = { 0 };
	double start, elapsed;
	struct tb *t;
	int rc, status;
	bool ended;

	if (argc > 0 && (is_prefix(argv[0], "help") && strcmp(argv[0], "h")))
		return stat_help(argc - 1, argv + 1);
	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	target_name(&o);
	o.tb.types = 0;	/* counters; uvm-tools adds its rare events itself */
	stop_signals_install();
	t = tb_start(&o.tb, &rc);
	if (!t)
		return rc;
	start = mono_s();
	ended = count_loop(&o, t, &c, start);
	tb_stop(t, !ended || tb_failed(t));
	if (tb_failed(t)) {
		tb_free(t);
		free(c.rows);
		return EXIT_FAIL;
	}
	elapsed = mono_s() - start;
	status = tb_cmd_status(t);
	tb_read_counters(t, &c);
	if (!o.interval_ms)
		print_block(&c, NULL, elapsed, false, o.sep, o.target, tb_name(t), elapsed);
	else if (!json_output && !o.sep)
		printf(" %14.6f seconds time elapsed\n", elapsed);
	free(c.rows);
	tb_free(t);
	/* -- CMD: its failure is the caller's, as with perf stat (unless stat stopped it) */
	if (status > 0 && ended && !stop_requested()) {
		p_info("the command exited with status %d", status);
		return status;
	}
	return EXIT_OK;
}

/* stat takes options, not commands: its table is help alone. */
static const struct cmd stat_cmds[] = {
	{ "help", stat_help },
	{ NULL, NULL },
};

const struct object stat_object = { "stat", do_stat, stat_cmds, NULL };
