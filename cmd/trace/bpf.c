// SPDX-License-Identifier: GPL-2.0
/*
 * bpf.c - the bpf trace back-end: the trace_uvm object (bpf/trace_uvm.bpf.c)
 * on the stock driver's functions through module BTF.  System-wide, with
 * per-process attribution for va_spaces created while it runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/btf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "trace_uvm.skel.h"

struct bpf_backend {
	struct trace_uvm *skel;
	struct ring_buffer *rb;
	uint64_t lost_seen;
};

/* Program, and the driver functions it may attach to (first found wins). */
/* The stock driver's functions the programs attach to: probe lists these. */
enum {
	A_EVENT_NOTIFY, A_BATCH, A_REPLAY_GPU, A_REPLAY_PARENT, A_EVICT, A_VA_CREATE, A_VA_DESTROY,
	A_NR
};
_Static_assert(A_NR == TB_BPF_ATTACH_NR, "backend.h counts the attach points");
const struct tb_attach tb_bpf_attach[TB_BPF_ATTACH_NR] = {
	[A_EVENT_NOTIFY] = { "uvm_perf_event_notify", "faults, migrations and other perf events" },
	[A_BATCH] = { "service_fault_batch", "replayable fault batches" },
	[A_REPLAY_GPU] = { "push_replay_on_gpu", "fault replays" },
	[A_REPLAY_PARENT] = { "push_replay_on_parent_gpu", "fault replays (older drivers)" },
	[A_EVICT] = { "evict_root_chunk", "evictions" },
	[A_VA_CREATE] = { "uvm_va_space_create", "process attach (va_space to pid)" },
	[A_VA_DESTROY] = { "uvm_va_space_destroy", "process exit" },
};

/* Each program and the functions it may attach to, first found wins. */
static const struct {
	const char *prog;
	int nfuncs;
	int funcs[2];	/* tb_bpf_attach rows */
} bpf_targets[] = {
	{ "trace_event_notify", 1, { A_EVENT_NOTIFY } },	/* required */
	{ "trace_batch_enter", 1, { A_BATCH } },
	{ "trace_batch_exit", 1, { A_BATCH } },
	{ "trace_replay", 2, { A_REPLAY_GPU, A_REPLAY_PARENT } },
	{ "trace_evict", 1, { A_EVICT } },
	{ "trace_va_space_create", 1, { A_VA_CREATE } },
	{ "trace_va_space_destroy", 1, { A_VA_DESTROY } },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The map's counter slots as gpuctl stat's counters. */
static const enum tb_ctr slot_ctr[GT_C_NR] = {
	[GT_C_FAULT_ENTRIES] = TC_GPU_FAULTS,
	[GT_C_DUPLICATES] = TC_DUPLICATES,
	[GT_C_CPU_FAULTS] = TC_CPU_FAULTS,
	[GT_C_BATCHES] = TC_BATCHES,
	[GT_C_BATCH_NS] = TC_BATCH_US,	/* divided by 1000 */
	[GT_C_REPLAYS] = TC_REPLAYS,
	[GT_C_BYTES_HTOD] = TC_BYTES_HTOD,
	[GT_C_BYTES_DTOH] = TC_BYTES_DTOH,
	[GT_C_PREFETCH_BYTES] = TC_PREFETCH_BYTES,
	[GT_C_EVICT_BYTES] = TC_EVICTION_BYTES,
	[GT_C_EVICTIONS] = TC_EVICTIONS,
	[GT_C_MIGRATIONS] = TC_NR,	/* not a stat counter */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	/* bpf_ktime_get_ns() */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int rb_event(void *ctx, void *data, size_t len)
{
	struct tb *t = ctx;
	struct gt_event e;

	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	tb_deliver(t, &e);
	return 0;
}

static void unload(struct bpf_backend *b)
{
	ring_buffer__free(b->rb);
	trace_uvm__destroy(b->skel);
	b->rb = NULL;
	b->skel = NULL;
}

/*
 * Opens, targets and loads the skeleton; attaches; a ring buffer calling
 * rb_event(ctx).  0, or -errno with reason set.
 */
static int load(struct bpf_backend *b, uint32_t tgid, uint32_t types, void *ctx,
		char *reason, size_t len)
{
	struct trace_uvm *skel;
	char mod[64];
	int err;

	if (probe_btf_type("uvm_perf_event_notify", BTF_KIND_FUNC, mod, sizeof(mod))) {
		snprintf(reason, len, "no module BTF has uvm_perf_event_notify "
			 "(load nvidia_uvm built with CONFIG_DEBUG_INFO_BTF_MODULES)");
		return -ENOENT;
	}
	skel = trace_uvm__open();
	if (!skel) {
		err = -errno;
		snprintf(reason, len, "opening the BPF object failed: %s", strerror(-err));
		return err;
	}
	skel->rodata->targ_tgid = tgid;
	skel->rodata->event_mask = types;
	for (size_t i = 0; i < N(bpf_targets); i++) {
		struct bpf_program *prog =
			bpf_object__find_program_by_name(skel->obj, bpf_targets[i].prog);
		const char *found = NULL;
		char m[64];

		if (!prog)
			continue;
		for (int j = 0; j < bpf_targets[i].nfuncs && !found; j++) {
			const char *f = tb_bpf_attach[bpf_targets[i].funcs[j]].func;

			if (!probe_btf_type(f, BTF_KIND_FUNC, m, sizeof(m)))
				found = f;
		}
		if (!found) {
			bpf_program__set_autoload(prog, false);
			continue;
		}
		/* libbpf finds the function in vmlinux or module BTF. */
		bpf_program__set_attach_target(prog, 0, found);
	}
	/* A refusal is reported below in one line (and it may just mean falling
	 * back to uvm-tools): keep libbpf's warnings for -d. */
	libbpf_quiet_begin();
	err = trace_uvm__load(skel);
	if (!err)
		err = trace_uvm__attach(skel);
	libbpf_quiet_end();
	if (err) {
		err = err < 0 ? err : -EINVAL;
		snprintf(reason, len, "fentry on %s:uvm_perf_event_notify refused: %s%s", mod,
			 strerror(-err), err == -EPERM || err == -EACCES ?
			 " (kernel policy or missing CAP_BPF/CAP_PERFMON)" : "");
		trace_uvm__destroy(skel);
		return err;
	}
	b->skel = skel;
	b->rb = ring_buffer__new(bpf_map__fd(skel->maps.events), rb_event, ctx, NULL);
	if (!b->rb) {
		err = -errno;
		snprintf(reason, len, "ring buffer: %s", strerror(-err));
		unload(b);
		return err;
	}
	return 0;
}

static bool bpf_usable(char *reason, size_t len)
{
	struct bpf_backend b = { 0 };
	char buf[256];

	if (!reason) {
		reason = buf;
		len = sizeof(buf);
	}
	reason[0] = '\0';
	if (load(&b, 0, 0, NULL, reason, len))
		return false;
	unload(&b);
	return true;
}

static int bpf_start(struct tb *t, char *reason, size_t len)
{
	struct bpf_backend *b = calloc(1, sizeof(*b));
	int err;

	if (!b) {
		snprintf(reason, len, "out of memory");
		return -ENOMEM;
	}
	err = load(b, (uint32_t)t->w->pid, t->o.types, t, reason, len);
	if (err) {
		free(b);
		return err;
	}
	t->priv = b;
	return 0;
}

/* The object's count of events the ring buffer had no room for, as LOST events. */
static void bpf_lost(struct tb *t)
{
	struct bpf_backend *b = t->priv;
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;
	uint32_t zero = 0;

	if (ncpu <= 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.lost), &zero, vals))
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	if (sum > b->lost_seen) {
		tb_deliver_lost(t, sum - b->lost_seen);
		b->lost_seen = sum;
	}
}

static void bpf_poll(struct tb *t, int timeout_ms)
{
	struct bpf_backend *b = t->priv;

	ring_buffer__poll(b->rb, timeout_ms);
	bpf_lost(t);
}

static void bpf_stop(struct tb *t)
{
	struct bpf_backend *b = t->priv;

	ring_buffer__consume(b->rb);
	bpf_lost(t);
}

/* One (pid, GPU) entry of the counters map, summed over CPUs, as a row. */
static void row_of(const struct gt_ctr_key *key, const uint64_t *vals, int ncpu,
		   struct tb_row *row)
{
	uint64_t s[GT_C_NR] = { 0 };

	for (int cpu = 0; cpu < ncpu; cpu++)
		for (int i = 0; i < GT_C_NR; i++)
			s[i] += vals[cpu * GT_C_NR + i];
	memset(row, 0, sizeof(*row));
	row->pid = key->pid;
	row->gpu = key->gpu;
	for (int i = 0; i < GT_C_NR; i++)
		if (slot_ctr[i] != TC_NR)
			row->v[slot_ctr[i]] = i == GT_C_BATCH_NS ? s[i] / 1000 : s[i];
}

static void bpf_counters(struct tb *t, struct tb_counters *c)
{
	struct bpf_backend *b = t->priv;
	int fd = bpf_map__fd(b->skel->maps.counters), ncpu = libbpf_num_possible_cpus();
	struct gt_ctr_key key, next, *prev = NULL;
	uint64_t *vals;

	for (int i = 0; i < TC_NR; i++)
		c->have[i] = i != TC_THRASHING;
	if (ncpu <= 0 || !(vals = calloc((size_t)ncpu * GT_C_NR, sizeof(uint64_t))))
		return;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct tb_row row, *n;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		if (t->w->pid && key.pid && key.pid != (uint32_t)t->w->pid)
			continue;
		row_of(&key, vals, ncpu, &row);
		for (int i = 0; i < TC_NR; i++)
			c->total[i] += row.v[i];
		n = realloc(c->rows, (c->nrows + 1) * sizeof(*n));
		if (!n)
			break;
		c->rows = n;
		c->rows[c->nrows++] = row;
	}
	free(vals);
}

static void bpf_free(struct tb *t)
{
	struct bpf_backend *b = t->priv;

	if (!b)
		return;
	unload(b);
	free(b);
	t->priv = NULL;
}

const struct tb_ops tb_bpf_ops = {
	.name = "bpf",
	.scope = "system-wide",
	.caps = NEED_BPF,
	.usable = bpf_usable,
	.start = bpf_start,
	.poll = bpf_poll,
	.counters = bpf_counters,
	.stop = bpf_stop,
	.free = bpf_free,
	.now_ns = mono_ns,
};
