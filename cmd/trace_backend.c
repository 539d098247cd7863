// SPDX-License-Identifier: GPL-2.0
/* trace_backend.c - bpf, uvm-tools and rm backends behind gpuctl trace and stat. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/btf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "trace_backend.h"
#include "rm.h"
#include "trace_rm.h"
#include "trace_uvm.skel.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

const char *const tb_kind_names[] = { "auto", "bpf", "uvm-tools", "rm", NULL };

/* bpf map counter slots (bpf/trace_uvm.bpf.c) */
enum {
	C_FAULT_ENTRIES, C_DUPLICATES, C_CPU_FAULTS, C_BATCHES, C_BATCH_NS, C_REPLAYS,
	C_BYTES_HTOD, C_BYTES_DTOH, C_PREFETCH_BYTES, C_EVICT_BYTES, C_EVICTIONS,
	C_MIGRATIONS, C_NR
};

struct ctr_key {
	uint32_t pid, gpu;
};

struct tb {
	enum tb_kind kind;
	struct tb_opts o;
	pid_t target;
	int pidfd;		/* -p target, to see it exit */
	pid_t child;		/* -- CMD */
	int child_status;	/* -1 running */
	bool target_gone;
	bool failed;
	/* bpf */
	struct trace_uvm *skel;
	struct ring_buffer *rb;
	uint64_t lost_seen;
	/* rm */
	struct rm_trace *rm;
	const char *comm;	/* of the event being delivered */
	/* uvm-tools */
	struct ut_session ut;
	bool ut_attached;
	uint32_t ut_events;	/* UT_EV_* mask */
	uint64_t ut_last_ts, ut_last_page;	/* the last GPU fault, to flag duplicates */
	uint32_t ut_last_batch;
	uint64_t ev_count[GT_EV_MAX];
	uint64_t evict_bytes, lost;
};

int tb_parse_kind(const char *s, enum tb_kind *out)
{
	for (int i = 0; tb_kind_names[i]; i++) {
		if (!strcmp(s, tb_kind_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *tb_name(const struct tb *t)
{
	return tb_kind_names[t->kind];
}

pid_t tb_target(const struct tb *t)
{
	return t->target;
}

uint64_t tb_now_ns(const struct tb *t)
{
	struct timespec ts;

	if (t->kind == TB_RM)
		return rm_trace_now_ns();
	clock_gettime(t->kind == TB_UVM_TOOLS ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void deliver(struct tb *t, const struct gt_event *e)
{
	if (e->type < GT_EV_MAX)
		t->ev_count[e->type]++;
	if (e->type == GT_EV_EVICTION)
		t->evict_bytes += e->bytes;
	if (t->o.fn && (t->o.types & (1u << e->type)))
		t->o.fn(e, t->o.arg);
}

static void deliver_lost(struct tb *t, uint64_t n)
{
	struct gt_event e = { .type = GT_EV_LOST, .count = (uint32_t)n,
			      .gpu = GT_GPU_NONE };

	t->lost += n;
	e.ts_ns = tb_now_ns(t);
	if (t->o.fn)
		t->o.fn(&e, t->o.arg);
}

/* ------------------------------------------------------------------ bpf */

/* Program, and the driver functions it may attach to (first found wins). */
static const struct {
	const char *prog;
	const char *funcs[3];
	bool required;
} bpf_targets[] = {
	{ "trace_event_notify", { "uvm_perf_event_notify" }, true },
	{ "trace_batch_enter", { "service_fault_batch" }, false },
	{ "trace_batch_exit", { "service_fault_batch" }, false },
	{ "trace_replay", { "push_replay_on_gpu", "push_replay_on_parent_gpu" }, false },
	{ "trace_evict", { "evict_root_chunk" }, false },
	{ "trace_va_space_create", { "uvm_va_space_create" }, false },
	{ "trace_va_space_destroy", { "uvm_va_space_destroy" }, false },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int rb_event(void *ctx, void *data, size_t len)
{
	struct tb *t = ctx;
	struct gt_event e;

	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	deliver(t, &e);
	return 0;
}

/* Opens, targets and loads the skeleton; attaches.  -errno, reason set. */
static int bpf_start(struct tb *t, uint32_t tgid, uint32_t types, char *reason, size_t len)
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
		snprintf(reason, len, "opening the BPF object failed: %s", strerror(errno));
		return -errno;
	}
	skel->rodata->targ_tgid = tgid;
	skel->rodata->event_mask = types;
	for (size_t i = 0; i < N(bpf_targets); i++) {
		struct bpf_program *prog =
			bpf_object__find_program_by_name(skel->obj, bpf_targets[i].prog);
		const char *found = NULL;

		if (!prog)
			continue;
		for (int j = 0; j < 3 && bpf_targets[i].funcs[j] && !found; j++)
			if (!probe_btf_type(bpf_targets[i].funcs[j], BTF_KIND_FUNC, mod, sizeof(mod)))
				found = bpf_targets[i].funcs[j];
		if (!found) {
			bpf_program__set_autoload(prog, false);
			continue;
		}
		/* libbpf finds the function in vmlinux or module BTF. */
		bpf_program__set_attach_target(prog, 0, found);
	}
	/* A refusal is reported below in one line (and it may just mean falling
	 * back to uvm-tools): keep libbpf's warnings for -d. */
	libbpf_print_fn_t old = debug_output ? NULL : libbpf_set_print(NULL);

	err = trace_uvm__load(skel);
	if (!err)
		err = trace_uvm__attach(skel);
	if (!debug_output)
		libbpf_set_print(old);
	if (err) {
		err = err < 0 ? err : -EINVAL;
		snprintf(reason, len, "fentry on %s:uvm_perf_event_notify refused: %s%s", mod,
			 strerror(-err), err == -EPERM || err == -EACCES ?
			 " (kernel policy or missing CAP_BPF/CAP_PERFMON)" : "");
		trace_uvm__destroy(skel);
		return err;
	}
	t->skel = skel;
	t->rb = ring_buffer__new(bpf_map__fd(skel->maps.events), rb_event, t, NULL);
	if (!t->rb) {
		snprintf(reason, len, "ring buffer: %s", strerror(errno));
		trace_uvm__destroy(skel);
		t->skel = NULL;
		return -errno;
	}
	return 0;
}

bool tb_bpf_usable(char *reason, size_t len)
{
	struct tb t = { 0 };
	int err;

	reason[0] = '\0';
	err = bpf_start(&t, 0, 0, reason, len);
	if (err)
		return false;
	ring_buffer__free(t.rb);
	trace_uvm__destroy(t.skel);
	return true;
}

static void bpf_lost(struct tb *t)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;
	uint32_t zero = 0;

	if (ncpu <= 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return;
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.lost), &zero, vals))
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	if (sum > t->lost_seen) {
		deliver_lost(t, sum - t->lost_seen);
		t->lost_seen = sum;
	}
}

/* ------------------------------------------------------------------- rm */

static void rm_event(const struct gt_event *e, const char *comm, void *arg)
{
	struct tb *t = arg;

	t->comm = comm;
	deliver(t, e);
	t->comm = NULL;
}

const char *tb_event_comm(const struct tb *t)
{
	return t->comm;
}

static void rm_lost(struct tb *t)
{
	uint64_t n = rm_trace_new_drops(t->rm);

	if (n)
		deliver_lost(t, n);
}

/* TSG events come from the rm backend alone, and it has no others; 0 or EXIT_USAGE. */
static int rm_choose(const struct tb_opts *o, enum tb_kind *kind)
{
	if (!(o->types & GT_TSG_TYPES))
		return 0;
	if (o->types & ~GT_TSG_TYPES) {
		p_err("TSG events are traced alone (rm backend), not with UVM events");
		return EXIT_USAGE;
	}
	if (*kind != TB_AUTO && *kind != TB_RM) {
		p_err("only the rm backend traces TSG events, not %s: leave --backend out "
		      "or give --backend rm", tb_kind_names[*kind]);
		return EXIT_USAGE;
	}
	*kind = TB_RM;
	return 0;
}

/* ----------------------------------------------------------- uvm-tools */

static uint32_t ut_mask(uint32_t types)
{
	uint32_t m = 0;

	if (types & (1u << GT_EV_GPU_FAULT))
		m |= 1u << UT_EV_GPU_FAULT;
	if (types & (1u << GT_EV_CPU_FAULT))
		m |= 1u << UT_EV_CPU_FAULT;
	if (types & (1u << GT_EV_MIGRATION))
		m |= 1u << UT_EV_MIGRATION;
	if (types & (1u << GT_EV_EVICTION))
		m |= 1u << UT_EV_EVICTION;
	if (types & (1u << GT_EV_REPLAY))
		m |= 1u << UT_EV_GPU_FAULT_REPLAY;
	if (types & (1u << GT_EV_THRASHING))
		m |= 1u << UT_EV_THRASHING;
	return m;
}

static void ut_entry(const uint8_t *entry, void *arg)
{
	struct tb *t = arg;
	struct gt_event e;

	if (!ut_decode(entry, t->ut.q.abi, &e))
		return;
	/*
	 * The driver reports a fault and then each instance merged into it
	 * (same page, other uTLB or access type) with the same batch and the
	 * same timestamp: those are the batch's duplicates.
	 */
	if (e.type == GT_EV_GPU_FAULT) {
		if (e.ts_ns == t->ut_last_ts && e.batch == t->ut_last_batch &&
		    e.addr >> 12 == t->ut_last_page)
			e.flags |= GT_F_DUPLICATE;
		t->ut_last_ts = e.ts_ns;
		t->ut_last_batch = e.batch;
		t->ut_last_page = e.addr >> 12;
	}
	if (!e.pid)
		e.pid = t->target;
	deliver(t, &e);
}

/* 1 attached, 0 not yet (no GPU context), -errno failure (p_err done). */
static int ut_try_attach(struct tb *t, bool quiet_if_absent)
{
	char err[256];
	/* Events only as many as asked: fault streams need room, stat very little. */
	uint32_t entries = (t->ut_events & ((1u << UT_EV_GPU_FAULT) | (1u << UT_EV_MIGRATION) |
					    (1u << UT_EV_CPU_FAULT))) ? 1u << 16 : 1u << 12;
	int ret = ut_attach(&t->ut, t->target, err, sizeof(err));

	if (ret == -ENOENT || ret == -EAGAIN) {
		ut_close(&t->ut);
		if (quiet_if_absent)
			return 0;
	}
	if (ret) {
		p_err("%s", err);
		ut_close(&t->ut);
		return ret;
	}
	/* Counters for stat; for a trace only to check the events by (-d). */
	if (!t->o.types || debug_output) {
		ret = ut_enable_counters(&t->ut, UT_CTR_STAT_MASK, err, sizeof(err));
		if (ret) {
			p_err("%s", err);
			ut_close(&t->ut);
			return ret;
		}
	}
	if (t->ut_events) {
		ret = ut_open_queue(&t->ut, entries, t->ut_events, entries / 2, err, sizeof(err));
		if (ret) {
			p_err("%s", err);
			ut_close(&t->ut);
			return ret;
		}
		if (debug_output)
			fprintf(stderr, "uvm-tools: %u-entry V2 event queue through the %s interface\n",
				entries, t->ut.q.abi == UT_ABI_550 ? "550 (versioned ioctl 56)" :
				"565+ (ioctl 76)");
	}
	t->ut_attached = true;
	return 1;
}

static void ut_drain(struct tb *t)
{
	uint64_t drops;

	if (!t->ut_attached || t->ut.queue_fd < 0)
		return;
	while (ut_queue_consume(&t->ut.q, 0, ut_entry, t))
		;
	drops = ut_queue_new_drops(&t->ut.q);
	if (drops)
		deliver_lost(t, drops);
}

/* ------------------------------------------------------------- targets */

static int fork_held(struct tb *t, int go[2], int report[2])
{
	if (pipe2(go, O_CLOEXEC) || pipe2(report, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		return -1;
	}
	t->child = fork();
	if (t->child < 0) {
		p_err("fork: %s", strerror(errno));
		return -1;
	}
	if (!t->child) {
		char c;
		int e;

		close(go[1]);
		close(report[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* gpuctl gave up: do not run */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* gpuctl's stdout carries JSON or a record: the command's goes to stderr. */
		if (json_output || t->o.stdout_is_data)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(t->o.cmd[0], t->o.cmd);
		e = errno;
		if (write(report[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(report[1]);
	t->target = t->child;
	t->child_status = -1;
	return 0;
}

/* Lets the command run; 0, or -1 when exec failed (p_err done). */
static int release_child(struct tb *t, int go[2], int report[2])
{
	int e = 0;
	ssize_t n;

	if (write(go[1], "g", 1) != 1) {
		p_err("starting the command failed: %s", strerror(errno));
		return -1;
	}
	close(go[1]);
	n = read(report[0], &e, sizeof(e));	/* EOF: exec succeeded */
	close(report[0]);
	if (n == sizeof(e)) {
		waitpid(t->child, NULL, 0);
		t->child = 0;
		p_err("cannot run '%s': %s", t->o.cmd[0], strerror(e));
		return -1;
	}
	return 0;
}

struct tb *tb_start(const struct tb_opts *o, int *rc)
{
	struct tb *t = calloc(1, sizeof(*t));
	int go[2] = { -1, -1 }, report[2] = { -1, -1 };
	char reason[256] = "";
	enum tb_kind kind = o->kind;

	*rc = EXIT_FAIL;
	if (!t) {
		p_err("out of memory");
		return NULL;
	}
	t->o = *o;
	t->pidfd = -1;
	t->child_status = -1;
	t->ut.uvm_fd = t->ut.queue_fd = t->ut.counter_fd = -1;

	*rc = rm_choose(o, &kind);
	if (*rc) {
		free(t);
		return NULL;
	}
	*rc = EXIT_FAIL;
	if (o->pid) {
		if (kill(o->pid, 0) && errno == ESRCH) {
			p_err("no process with pid %d", o->pid);
			free(t);
			return NULL;
		}
		t->target = o->pid;
		t->pidfd = syscall(SYS_pidfd_open, o->pid, 0);
	}
	if (kind == TB_RM && !(o->types & GT_TSG_TYPES)) {
		p_err("the rm backend only traces TSG events ('%s trace tsg')", bin_name);
		*rc = EXIT_USAGE;
		free(t);
		return NULL;
	}
	if (kind == TB_UVM_TOOLS && !o->pid && !o->cmd) {
		p_err("the uvm-tools backend traces one process: give -p PID or -- CMD");
		*rc = EXIT_USAGE;
		free(t);
		return NULL;
	}
	if (o->cmd && fork_held(t, go, report))
		goto fail;
	if (kind == TB_RM) {
		t->rm = rm_trace_start(rm_device_path(o->device), (uint32_t)t->target,
				       rm_event, t);
		if (!t->rm)
			goto fail;
	}

	if (kind == TB_AUTO || kind == TB_BPF) {
		/* bpf sees va_space creation, so it is exact for -- CMD and system-wide;
		 * for an existing -p PID uvm-tools is (the va_space predates us). */
		if (kind == TB_AUTO && o->pid && ut_available()) {
			kind = TB_UVM_TOOLS;
		} else if (!bpf_start(t, t->target, o->types, reason, sizeof(reason))) {
			kind = TB_BPF;
		} else if (kind == TB_BPF) {
			p_err("bpf backend: %s", reason);
			goto fail;
		} else if (!t->target) {
			p_err("system-wide tracing needs the bpf backend, and %s; "
			      "give -p PID or -- CMD to use the uvm-tools backend", reason);
			goto fail;
		} else if (!ut_available()) {
			p_err("no trace backend: bpf: %s; uvm-tools: /dev/nvidia-uvm-tools missing",
			      reason);
			goto fail;
		} else {
			p_info("bpf backend unavailable (%s); using uvm-tools", reason);
			kind = TB_UVM_TOOLS;
		}
	}
	t->kind = kind;
	if (kind == TB_UVM_TOOLS) {
		t->ut_events = ut_mask(o->types);
		if (!o->types)	/* stat: the rare events its counters need */
			t->ut_events = (1u << UT_EV_GPU_FAULT_REPLAY) | (1u << UT_EV_EVICTION) |
				       (1u << UT_EV_THRASHING);
		if (!o->cmd) {
			int r = ut_try_attach(t, false);

			if (r < 0)
				goto fail;
		}
	}
	if (o->cmd && release_child(t, go, report))
		goto fail;
	*rc = EXIT_OK;
	return t;

fail:
	if (t->child > 0) {
		close(go[1]);	/* the held child exits without running */
		waitpid(t->child, NULL, 0);
	}
	if (t->rb)
		ring_buffer__free(t->rb);
	if (t->skel)
		trace_uvm__destroy(t->skel);
	rm_trace_free(t->rm);
	if (t->pidfd >= 0)
		close(t->pidfd);
	free(t);
	return NULL;
}

static void check_target(struct tb *t)
{
	if (t->child > 0 && t->child_status < 0) {
		int st;

		if (waitpid(t->child, &st, WNOHANG) == t->child) {
			t->child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			t->target_gone = true;
		}
	} else if (t->pidfd >= 0) {
		struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

		if (poll(&p, 1, 0) > 0)
			t->target_gone = true;
	}
}

bool tb_poll(struct tb *t, int timeout_ms)
{
	if (t->kind == TB_BPF) {
		ring_buffer__poll(t->rb, timeout_ms);
		bpf_lost(t);
	} else if (t->kind == TB_RM) {
		rm_trace_poll(t->rm, timeout_ms);
		rm_lost(t);
	} else {
		if (!t->ut_attached) {
			/* -- CMD: wait for the command's GPU context, then attach. */
			struct timespec d = { 0, 1000000 };
			int waited = 0;

			while (!t->ut_attached && waited < timeout_ms) {
				check_target(t);
				if (t->target_gone)
					break;
				if (ut_try_attach(t, true) < 0) {
					t->failed = true;
					t->target_gone = true;
					break;
				}
				if (!t->ut_attached) {
					nanosleep(&d, NULL);
					waited++;
				}
			}
		} else if (t->ut.queue_fd >= 0) {
			ut_wait(&t->ut, timeout_ms);
			ut_drain(t);
		} else {
			struct timespec d = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };

			/* Counters only: nothing to wait for but time or the target. */
			if (t->pidfd >= 0) {
				struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

				poll(&p, 1, timeout_ms);
			} else if (t->child > 0) {
				for (int i = 0; i < timeout_ms && t->child_status < 0; i += 5) {
					struct timespec s = { 0, 5000000 };

					check_target(t);
					if (t->child_status >= 0)
						break;
					nanosleep(&s, NULL);
				}
			} else {
				nanosleep(&d, NULL);
			}
		}
	}
	check_target(t);
	return !t->target_gone;
}

void tb_read_counters(struct tb *t, struct tb_counters *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
	if (t->kind == TB_BPF) {
		int fd = bpf_map__fd(t->skel->maps.counters), ncpu = libbpf_num_possible_cpus();
		struct ctr_key key, next, *prev = NULL;
		uint64_t *vals = calloc((size_t)ncpu * C_NR, sizeof(uint64_t));

		for (int i = 0; i < TC_NR; i++)
			c->have[i] = i != TC_THRASHING;
		if (!vals)
			return;
		while (!bpf_map_get_next_key(fd, prev, &next)) {
			struct tb_row row = { .pid = next.pid, .gpu = next.gpu }, *n;
			uint64_t s[C_NR] = { 0 };

			key = next;
			prev = &key;
			if (bpf_map_lookup_elem(fd, &key, vals))
				continue;
			for (int cpu = 0; cpu < ncpu; cpu++)
				for (int i = 0; i < C_NR; i++)
					s[i] += vals[cpu * C_NR + i];
			if (t->target && key.pid && key.pid != (uint32_t)t->target)
				continue;
			row.v[TC_GPU_FAULTS] = s[C_FAULT_ENTRIES];
			row.v[TC_DUPLICATES] = s[C_DUPLICATES];
			row.v[TC_BATCHES] = s[C_BATCHES];
			row.v[TC_BATCH_US] = s[C_BATCH_NS] / 1000;
			row.v[TC_REPLAYS] = s[C_REPLAYS];
			row.v[TC_CPU_FAULTS] = s[C_CPU_FAULTS];
			row.v[TC_BYTES_HTOD] = s[C_BYTES_HTOD];
			row.v[TC_BYTES_DTOH] = s[C_BYTES_DTOH];
			row.v[TC_PREFETCH_BYTES] = s[C_PREFETCH_BYTES];
			row.v[TC_EVICTION_BYTES] = s[C_EVICT_BYTES];
			row.v[TC_EVICTIONS] = s[C_EVICTIONS];
			for (int i = 0; i < TC_NR; i++)
				c->total[i] += row.v[i];
			n = realloc(c->rows, (c->nrows + 1) * sizeof(*n));
			if (!n)
				break;
			c->rows = n;
			c->rows[c->nrows++] = row;
		}
		free(vals);
		return;
	}
	/* uvm-tools: the driver's counters, and events for the rest. */
	ut_drain(t);
	/*
	 * The driver defines prefetch byte counters but never counts them
	 * (565-595 sources, 580.159.04 measured): not supported rather than 0.
	 */
	c->have[TC_GPU_FAULTS] = c->have[TC_CPU_FAULTS] = true;
	c->have[TC_BYTES_HTOD] = c->have[TC_BYTES_DTOH] = true;
	c->have[TC_REPLAYS] = c->have[TC_EVICTIONS] = c->have[TC_EVICTION_BYTES] = true;
	c->have[TC_THRASHING] = true;
	if (t->ut_attached && t->ut.counters) {
		volatile uint64_t *v = t->ut.counters;

		c->total[TC_GPU_FAULTS] = v[UT_CTR_GPU_FAULTS];
		c->total[TC_CPU_FAULTS] = v[UT_CTR_CPU_FAULTS];
		c->total[TC_BYTES_HTOD] = v[UT_CTR_BYTES_HTOD];
		c->total[TC_BYTES_DTOH] = v[UT_CTR_BYTES_DTOH];
	}
	c->total[TC_REPLAYS] = t->ev_count[GT_EV_REPLAY];
	c->total[TC_EVICTIONS] = t->ev_count[GT_EV_EVICTION];
	c->total[TC_EVICTION_BYTES] = t->evict_bytes;
	c->total[TC_THRASHING] = t->ev_count[GT_EV_THRASHING];
	c->rows = calloc(1, sizeof(*c->rows));
	if (c->rows) {
		c->rows[0].pid = t->target;
		c->rows[0].gpu = GT_GPU_NONE;
		memcpy(c->rows[0].v, c->total, sizeof(c->total));
		c->nrows = 1;
	}
}

void tb_stop(struct tb *t, bool kill_cmd)
{
	if (t->kind == TB_BPF) {
		ring_buffer__consume(t->rb);
		bpf_lost(t);
	} else if (t->ut_attached) {
		ut_flush(&t->ut);
		ut_drain(t);
		/* The driver's own counts over the same span, to check the events by. */
		if (debug_output)
			fprintf(stderr, "uvm-tools: driver counters since attach: gpu_faults %llu "
				"bytes_htod %llu bytes_dtoh %llu cpu_faults %llu\n",
				(unsigned long long)t->ut.counters[UT_CTR_GPU_FAULTS],
				(unsigned long long)t->ut.counters[UT_CTR_BYTES_HTOD],
				(unsigned long long)t->ut.counters[UT_CTR_BYTES_DTOH],
				(unsigned long long)t->ut.counters[UT_CTR_CPU_FAULTS]);
	}
	if (t->child > 0 && t->child_status < 0) {
		int st;

		if (kill_cmd)
			kill(t->child, SIGTERM);
		if (waitpid(t->child, &st, 0) == t->child)
			t->child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	/* After the command: what it freed on its way out is seen, too. */
	if (t->kind == TB_RM) {
		rm_trace_drain(t->rm);
		rm_lost(t);
	}
}

bool tb_failed(const struct tb *t)
{
	return t->failed;
}

int tb_cmd_status(struct tb *t)
{
	return t->child > 0 ? t->child_status : -1;
}

void tb_free(struct tb *t)
{
	if (!t)
		return;
	if (t->rb)
		ring_buffer__free(t->rb);
	if (t->skel)
		trace_uvm__destroy(t->skel);
	rm_trace_free(t->rm);
	if (t->ut_attached || t->ut.uvm_fd >= 0)
		ut_close(&t->ut);
	if (t->pidfd >= 0)
		close(t->pidfd);
	free(t);
}
