// SPDX-License-Identifier: GPL-2.0
/*
 * oneshot.c - `prefetch migrate` and `prefetch advise`: one UVM_MIGRATE or
 * one range hint on another process's managed memory, through its borrowed
 * /dev/nvidia-uvm file; the GPU counterpart of migratepages(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuctl.h"
#include "opts.h"
#include "target.h"
#include "units.h"
#include "engine.h"
#include "ut.h"
#include "nvml.h"
#include "uvm.h"

/* A size in units.h's grammar (4096, 0x1000, 64K, 2MiB, 1.5G): 0, or -1 after p_err. */
int pfe_parse_size(const char *what, const char *arg, uint64_t *out)
{
	return parse_size(what, arg, 0, UINT64_MAX, out) ? -1 : 0;
}

struct os_target {
	pid_t pid;
	uint64_t addr, len;
	const char *to;		/* a UUID, "cpu", or NULL: the process's first GPU */
	struct uvm_uuid dst;
	struct ut_session s;
};

/* What the rows fill (opts.h): -p PID, migrate's --to, --max-bytes, --async. */
struct os_opts {
	pid_t pid;
	const char *to;
	uint64_t max;
	bool async;
};

static const struct opt migrate_rows[] = {
	{ .name = "pid", .key = 'p', .kind = OPT_PID, .off = offsetof(struct os_opts, pid),
	  .arg = "PID", .help = "the process whose memory moves", .flags = OPT_ONCE },
	{ .name = "to", .kind = OPT_STRING, .off = offsetof(struct os_opts, to), .arg = "DEST",
	  .help = "a GPU's UUID or cpu (default: the process's first GPU)" },
	{ .name = "max-bytes", .kind = OPT_SIZE, .off = offsetof(struct os_opts, max), .arg = "BYTES",
	  .help = "move at most this much (64M, 1GiB)", .min = 4096, .max = UINT64_MAX },
	{ .name = "async", .kind = OPT_FLAG, .off = offsetof(struct os_opts, async),
	  .help = "return once the copies are queued" },
	{ .name = NULL },
};

static const struct opt advise_rows[] = {
	{ .name = "pid", .key = 'p', .kind = OPT_PID, .off = offsetof(struct os_opts, pid),
	  .arg = "PID", .help = "the process whose memory gets the hint", .flags = OPT_ONCE },
	{ .name = NULL },
};

const struct optset prefetch_migrate_opts = {
	.object = "prefetch", .command = "migrate", .rows = migrate_rows, .flags = OPTS_WORDS,
};
const struct optset prefetch_advise_opts = {
	.object = "prefetch", .command = "advise", .rows = advise_rows, .flags = OPTS_WORDS,
};

/*
 * -p PID ADDR LEN [...] by set's rows into t and o: 0 (*words: what follows
 * ADDR LEN), -1 (-h printed the help), or EXIT_USAGE after p_err.
 */
static int parse_target(struct os_target *t, struct os_opts *o, const struct optset *set,
			int argc, char **argv, struct opts_result *r, const char *what)
{
	unsigned long long v;

	if (opts_parse(set, argc, argv, o, r))
		return EXIT_USAGE;
	if (r->help)
		return -1;
	if (!o->pid)
		return usage_err("'%s' needs -p PID", what);
	t->pid = o->pid;
	t->to = o->to;
	if (r->argc < 2)
		return usage_err("'%s' needs ADDR and LENGTH", what);
	if (parse_u64("address", r->argv[0], 0, ~0ull, &v))
		return EXIT_USAGE;
	t->addr = v;
	if (pfe_parse_size("length", r->argv[1], &t->len))
		return EXIT_USAGE;
	if (!t->len || (t->addr & 4095) || (t->len & 4095) || t->addr + t->len < t->addr)
		return usage_err("ADDR and LENGTH must be non-zero multiples of 4096 (got 0x%llx, %llu)",
				 (unsigned long long)t->addr, (unsigned long long)t->len);
	r->argc -= 2;
	r->argv += 2;
	return 0;
}

static int check_to(const char *to)
{
	struct uvm_uuid u;

	if (to && strcmp(to, "cpu") && uuid_parse(to, &u))
		return usage_err("'%s' is neither a GPU UUID (GPU-xxxxxxxx-...) nor 'cpu'", to);
	return 0;
}

/*
 * Borrows the process's UVM file, checks the range is managed memory and
 * the destination a GPU it uses: 0, or EXIT_FAIL after one error line.
 */
static int open_target(struct os_target *t, const char *what)
{
	struct uvm_uuid gpus[GPUCTL_MAX_GPUS], want;
	struct uvm_maps m;
	char err[256], a[48];
	int n, ok;

	if (need_caps(what, NEED_PTRACE))
		return EXIT_FAIL;
	if (!ut_available()) {
		err_code("NO_DRIVER");
		p_err("'%s' needs /dev/nvidia-uvm-tools, which is missing", what);
		return EXIT_FAIL;
	}
	if (ut_attach(&t->s, t->pid, err, sizeof(err))) {
		p_err("%s", err);
		ut_close(&t->s);
		return EXIT_FAIL;
	}
	uvm_maps_init(&m, t->pid);
	ok = !uvm_maps_load(&m) && uvm_maps_covers(&m, t->addr, t->len);
	uvm_maps_free(&m);
	if (!ok) {
		p_err("0x%llx-0x%llx is not managed memory of process %d (no /dev/nvidia-uvm mapping "
		      "covers it)", (unsigned long long)t->addr,
		      (unsigned long long)(t->addr + t->len), (int)t->pid);
		return EXIT_FAIL;
	}
	if (t->to && !strcmp(t->to, "cpu")) {
		t->dst = uvm_cpu_uuid;
		return 0;
	}
	n = uvm_gpus(t->s.uvm_fd, gpus, GPUCTL_MAX_GPUS);
	if (n <= 0) {
		p_err("process %d has no GPU registered with UVM", (int)t->pid);
		return EXIT_FAIL;
	}
	if (!t->to) {
		t->dst = gpus[0];
		return 0;
	}
	uuid_parse(t->to, &want);
	for (int i = 0; i < n; i++) {
		if (!memcmp(&gpus[i], &want, sizeof(want))) {
			t->dst = want;
			return 0;
		}
	}
	p_err("process %d does not use GPU %s", (int)t->pid, uuid_format(&want, a, sizeof(a)));
	return EXIT_FAIL;
}

static int driver_refused(const struct os_target *t, const char *call, int ret, uint32_t st)
{
	if (ret)
		p_err("%s on process %d failed: %s", call, (int)t->pid, strerror(-ret));
	else
		p_err("%s on process %d refused: %s (status 0x%x)", call, (int)t->pid,
		      uvm_status_text(st), st);
	return EXIT_FAIL;
}

int pfe_migrate_main(int argc, char **argv)
{
	struct os_target t = { 0 };
	struct os_opts o = { 0 };
	struct opts_result r;
	uint64_t max = 0, len, free_b = 0;
	bool async = false, have_free = false;
	char name[48], err[200], hl[UNITS_BUF], ht[UNITS_BUF];
	uint32_t st = 0;
	double t0;
	int ret;

	ut_session_init(&t.s);
	ret = parse_target(&t, &o, &prefetch_migrate_opts, argc, argv, &r, "prefetch migrate");
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (r.argc)
		return usage_err("unexpected argument '%s'", r.argv[0]);
	max = o.max;
	async = o.async;
	if (check_to(t.to))
		return EXIT_USAGE;
	ret = open_target(&t, "prefetch migrate");
	if (ret) {
		ut_close(&t.s);
		return ret;
	}
	len = t.len;
	if (!uuid_is_cpu(&t.dst)) {
		have_free = !gpu_free_bytes(&t.dst, &free_b, err, sizeof(err));
		if (!have_free && !max) {
			p_err("cannot read the GPU's free memory (%s): give --max-bytes BYTES", err);
			ut_close(&t.s);
			return EXIT_FAIL;
		}
	}
	max = pfe_budget(max, have_free, free_b, 0);
	if (len > max) {
		char why[64] = "--max-bytes";

		if (have_free)
			snprintf(why, sizeof(why), "the GPU's free memory less %llu MiB",
				 PFE_RESERVE_BYTES >> 20);
		len = max & ~4095ull;
		p_info("capped: %s of the %s asked for (%s)",
		       units_fmt_size(len, UNITS_HUMAN, hl, sizeof(hl)),
		       units_fmt_size(t.len, UNITS_HUMAN, ht, sizeof(ht)), why);
		if (!len) {
			p_err("the GPU has no memory free to migrate into");
			ut_close(&t.s);
			return EXIT_FAIL;
		}
	}
	t0 = mono_s();
	ret = uvm_migrate(t.s.uvm_fd, t.addr, len, &t.dst, async, &st);
	t0 = mono_s() - t0;
	ut_close(&t.s);
	if (ret || st)
		return driver_refused(&t, "UVM_MIGRATE", ret, st);
	uuid_format(&t.dst, name, sizeof(name));
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", t.pid);
		jsonw_uint_field(json_wtr, "addr", t.addr);
		jsonw_uint_field(json_wtr, "bytes", len);
		jsonw_uint_field(json_wtr, "asked", t.len);
		jsonw_string_field(json_wtr, "to", uuid_is_cpu(&t.dst) ? "cpu" : name);
		jsonw_float_field(json_wtr, "ms", t0 * 1e3);
		jsonw_end_object(json_wtr);
	} else {
		printf("migrated %s of process %d at 0x%llx to %s in %s%s\n",
		       units_fmt_size(len, UNITS_HUMAN, hl, sizeof(hl)), (int)t.pid,
		       (unsigned long long)t.addr, uuid_is_cpu(&t.dst) ? "cpu" : name,
		       units_fmt_duration(t0 > 0 ? (uint64_t)(t0 * 1e9) : 0, UNITS_HUMAN, ht, sizeof(ht)),
		       async ? " (async: started)" : "");
	}
	return EXIT_OK;
}

int pfe_advise_main(int argc, char **argv)
{
	struct os_target t = { 0 };
	struct os_opts o = { 0 };
	struct opts_result r;
	enum uvm_hint h = HINT_NR;
	uint32_t st = 0;
	char call[64];
	int ret;

	ut_session_init(&t.s);
	ret = parse_target(&t, &o, &prefetch_advise_opts, argc, argv, &r, "prefetch advise");
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	argc = r.argc;
	argv = r.argv;
	if (argc < 1)
		return usage_err("'prefetch advise' needs a HINT");
	for (int i = 0; i < HINT_NR; i++)
		if (!strcmp(argv[0], uvm_hint_names[i]))
			h = i;
	if (h == HINT_NR)
		return usage_err("unknown hint '%s'", argv[0]);
	if (argc > 1 && (h == HINT_PREFERRED || h == HINT_ACCESSED_BY ||
			 h == HINT_UNSET_ACCESSED_BY))
		t.to = argv[1];
	else if (argc > 1)
		return usage_err("unexpected argument '%s'", argv[1]);
	if (argc > 2)
		return usage_err("unexpected argument '%s'", argv[2]);
	if (check_to(t.to))
		return EXIT_USAGE;
	ret = open_target(&t, "prefetch advise");
	if (!ret) {
		ret = uvm_hint(t.s.uvm_fd, h, t.addr, t.len, &t.dst, &st);
		snprintf(call, sizeof(call), "advise %s", uvm_hint_names[h]);
		ret = ret || st ? driver_refused(&t, call, ret, st) : EXIT_OK;
	}
	ut_close(&t.s);
	if (ret)
		return ret;
	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_int_field(json_wtr, "pid", t.pid);
		jsonw_string_field(json_wtr, "hint", uvm_hint_names[h]);
		jsonw_uint_field(json_wtr, "addr", t.addr);
		jsonw_uint_field(json_wtr, "bytes", t.len);
		jsonw_end_object(json_wtr);
	} else {
		printf("%s set on 0x%llx-0x%llx of process %d\n", uvm_hint_names[h],
		       (unsigned long long)t.addr, (unsigned long long)(t.addr + t.len), (int)t.pid);
	}
	return EXIT_OK;
}
