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
#include "trace/backend.h"

static const struct {
	const char *name;
	const char *unit;
	const char *what;
} counters[TC_NR] = {
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
				jsonw_uint_field(json_wtr, counters[i].name,
						 c->total[i] - (prev ? prev[i] : 0));
			else
				jsonw_null_field(json_wtr, counters[i].name);
		}
		jsonw_end_object(json_wtr);
		if (!interval) {
			jsonw_name(json_wtr, "per_process_gpu");
			jsonw_start_array(json_wtr);
			for (int r = 0; r < c->nrows; r++) {
				jsonw_start_object(json_wtr);
				jsonw_uint_field(json_wtr, "pid", c->rows[r].pid);
				if (c->rows[r].gpu == GT_GPU_NONE)
					jsonw_null_field(json_wtr, "gpu");
				else
					jsonw_uint_field(json_wtr, "gpu", c->rows[r].gpu);
				for (int i = 0; i < TC_NR; i++)
					if (c->have[i] && c->rows[r].v[i])
						jsonw_uint_field(json_wtr, counters[i].name,
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
			printf("%s%s%s%s\n", sep, counters[i].unit, sep, counters[i].name);
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
		printf("%20s %-3s %-22s # %s\n", v, counters[i].unit, counters[i].name,
		       counters[i].what);
	}
	if (!interval && c->nrows > 1) {
		printf("\n %8s %4s %14s %14s %16s %16s\n", "PID", "GPU", "gpu_faults",
		       "cpu_faults", "bytes_htod", "bytes_dtoh");
		for (int r = 0; r < c->nrows; r++) {
			const struct tb_row *w = &c->rows[r];
			char g[8];

			snprintf(g, sizeof(g), w->gpu == GT_GPU_NONE ? "-" : "%u", w->gpu);
			printf(" %8u %4s %14llu %14llu %16llu %16llu\n", w->pid, g,
			       (unsigned long long)w->v[TC_GPU_FAULTS],
			       (unsigned long long)w->v[TC_CPU_FAULTS],
			       (unsigned long long)w->v[TC_BYTES_HTOD],
			       (unsigned long long)w->v[TC_BYTES_DTOH]);
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

static int do_stat(int argc, char **argv)
{
	struct tb_opts o = { .what = "stat" };
	unsigned long long interval_ms = 0, icount = 0, duration = 0, v;
	const char *sep = NULL;
	struct tb_counters c = { 0 };
	uint64_t prev[TC_NR] = { 0 };
	char target[256];
	double start, next, elapsed;
	unsigned long long intervals = 0;
	struct tb *t;
	int rc, status;

	if (argc > 0 && (is_prefix(argv[0], "help") && strcmp(argv[0], "h")))
		return stat_help(argc - 1, argv + 1);
	while (argc > 0) {
		const char *a = argv[0];

		if (!strcmp(a, "--")) {
			if (argc < 2)
				return usage_err("'--' must be followed by a command");
			o.cmd = argv + 1;
			break;
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
		if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			if (parse_u64("pid", argv[1], 1, 4194304, &v))
				return EXIT_USAGE;
			o.pid = (pid_t)v;
		} else if (!strcmp(a, "-I") || !strcmp(a, "--interval")) {
			if (parse_u64("interval (ms)", argv[1], 1, 3600000, &interval_ms))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--interval-count")) {
			if (parse_u64("interval count", argv[1], 1, ~0ull >> 1, &icount))
				return EXIT_USAGE;
		} else if (!strcmp(a, "--duration")) {
			if (parse_u64("duration", argv[1], 1, 86400 * 365, &duration))
				return EXIT_USAGE;
		} else if (!strcmp(a, "-x")) {
			if (!argv[1][0])
				return usage_err("-x needs a non-empty separator");
			sep = argv[1];
		} else if (!strcmp(a, "--backend")) {
			if (tb_parse_kind(argv[1], &o.kind) || o.kind == TB_RM)
				return usage_err("unknown backend '%s' (auto, bpf, uvm-tools)", argv[1]);
		} else {
			return usage_err("unknown option '%s'; try '%s stat help'", a, bin_name);
		}
		argc -= 2;
		argv += 2;
	}
	if (o.pid && o.cmd)
		return usage_err("give either -p PID or -- CMD, not both");
	if (icount && !interval_ms)
		return usage_err("--interval-count needs -I MS");

	if (o.cmd) {
		size_t used = 0;

		used += snprintf(target, sizeof(target), "'");
		for (int i = 0; o.cmd[i] && used < sizeof(target) - 2; i++)
			used += snprintf(target + used, sizeof(target) - used, "%s%s", i ? " " : "",
					 o.cmd[i]);
		if (used < sizeof(target) - 1)
			snprintf(target + used, sizeof(target) - used, "'");
	} else if (o.pid) {
		snprintf(target, sizeof(target), "process id %d", o.pid);
	} else {
		snprintf(target, sizeof(target), "system wide");
	}
	o.types = 0;	/* counters; uvm-tools adds its rare events itself */
	stop_signals_install();
	t = tb_start(&o, &rc);
	if (!t)
		return rc;
	start = mono_s();
	next = start + interval_ms / 1000.0;
	while (!stop_requested()) {
		int wait = 100;

		if (interval_ms) {
			double left = next - mono_s();

			wait = left > 0 ? (int)(left * 1000) + 1 : 0;
			if (wait > 100)
				wait = 100;
		}
		if (!tb_poll(t, wait))
			break;
		if (duration && mono_s() - start >= duration)
			break;
		if (interval_ms && mono_s() >= next) {
			tb_read_counters(t, &c);
			print_block(&c, prev, mono_s() - start, true, sep, target, tb_name(t), 0);
			fflush(stdout);
			memcpy(prev, c.total, sizeof(prev));
			next += interval_ms / 1000.0;
			if (icount && ++intervals >= icount)
				break;
		}
	}
	tb_stop(t, stop_requested() || duration || icount || tb_failed(t));
	if (tb_failed(t)) {
		tb_free(t);
		free(c.rows);
		return EXIT_FAIL;
	}
	elapsed = mono_s() - start;
	status = tb_cmd_status(t);
	tb_read_counters(t, &c);
	if (!interval_ms)
		print_block(&c, NULL, elapsed, false, sep, target, tb_name(t), elapsed);
	else if (!json_output && !sep)
		printf(" %14.6f seconds time elapsed\n", elapsed);
	free(c.rows);
	tb_free(t);
	if (status > 0)
		p_info("the command exited with status %d", status);
	return EXIT_OK;
}

/* stat takes options, not commands: its table is help alone. */
static const struct cmd stat_cmds[] = {
	{ "help", stat_help },
	{ NULL, NULL },
};

const struct object stat_object = { "stat", do_stat, stat_cmds, NULL };
