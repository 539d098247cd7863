// SPDX-License-Identifier: GPL-2.0
/*
 * backend.c - choosing a trace back-end, running it around the workload,
 * and handing its events on.  The back-ends themselves: bpf.c, uvmtools.c,
 * rm.c, behind struct tb_ops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/capability.h>

#include "backend.h"

const struct tb_ops *const tb_backends[TB_KINDS] = {
	[TB_AUTO] = NULL,
	[TB_BPF] = &tb_bpf_ops,
	[TB_UVM_TOOLS] = &tb_uvm_tools_ops,
	[TB_RM] = &tb_rm_ops,
};

int tb_parse_kind(const char *s, enum tb_kind *out)
{
	if (!strcmp(s, "auto")) {
		*out = TB_AUTO;
		return 0;
	}
	for (int i = TB_AUTO + 1; i < TB_KINDS; i++) {
		if (!strcmp(s, tb_backends[i]->name)) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

void tb_json_on(void)
{
	if (json_wtr)
		return;
	json_output = true;
	json_wtr = json_stdout_writer();
}

const char *tb_name(const struct tb *t)
{
	return t->name[0] ? t->name : t->ops->name;
}

pid_t tb_target(const struct tb *t)
{
	return t->w->pid;
}

uint64_t tb_now_ns(const struct tb *t)
{
	return t->ops->now_ns();
}

const char *tb_event_comm(const struct tb *t)
{
	return t->comm;
}

bool tb_failed(const struct tb *t)
{
	return t->failed || (t->second && t->second->failed);
}

int tb_cmd_status(const struct tb *t)
{
	return workload_status(t->w);
}

void tb_deliver(struct tb *t, const struct gt_event *e)
{
	if (t->o.fn && e->type < 32 && (t->o.types & (1u << e->type)))
		t->o.fn(e, t->o.arg);
}

void tb_deliver_lost(struct tb *t, uint64_t n)
{
	struct gt_event e = { .type = GT_EV_LOST, .count = (uint32_t)n, .gpu = GT_GPU_NONE };

	e.ts_ns = tb_now_ns(t);
	if (t->o.fn)
		t->o.fn(&e, t->o.arg);
}

/* CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN: asked quietly, for the automatic choice. */
static bool bpf_caps_held(void)
{
	static const int bpf[2] = { CAP_BPF, CAP_PERFMON };

	return caps_missing(bpf, 2, NULL, 0) == 0 || cap_held(CAP_SYS_ADMIN) > 0;
}

/* UVM events and TSG events together: two back-ends (pair.c). */
static bool both_kinds(const struct tb_opts *o)
{
	return (o->types & GT_TSG_TYPES) && (o->types & ~GT_TSG_TYPES);
}

/*
 * The kind the events need: TSG events come from the rm backend alone, and
 * it has no others; with UVM events too, --backend picks the UVM events'
 * and rm runs beside it.  0, or EXIT_USAGE after p_err.
 */
static int kind_for_events(const struct tb_opts *o, enum tb_kind *kind)
{
	if (both_kinds(o) && *kind == TB_RM) {
		p_err("with UVM events and TSG events, --backend names the UVM events' backend "
		      "(bpf or uvm-tools; rm runs beside it for the TSG events)");
		return EXIT_USAGE;
	}
	if ((o->types & GT_TSG_TYPES) && !both_kinds(o)) {
		if (*kind != TB_AUTO && *kind != TB_RM) {
			p_err("only the rm backend traces TSG events, not %s: leave --backend out "
			      "or give --backend rm", tb_backends[*kind]->name);
			return EXIT_USAGE;
		}
		*kind = TB_RM;
		return 0;
	}
	if (*kind == TB_RM) {
		p_err("the rm backend only traces TSG events ('%s trace tsg')", bin_name);
		return EXIT_USAGE;
	}
	if (*kind == TB_UVM_TOOLS && !o->target.pid && !o->target.cmd) {
		p_err("the uvm-tools backend traces one process: give -p PID or -- CMD");
		return EXIT_USAGE;
	}
	return 0;
}

int tb_check(const struct tb_opts *o)
{
	enum tb_kind kind = o->kind;
	const char *what = o->what ? o->what : "trace";
	int rc = kind_for_events(o, &kind);

	if (rc)
		return rc;
	if (both_kinds(o) && tb_rm_ops.caps && need_caps(what, tb_rm_ops.caps))
		return EXIT_FAIL;
	/*
	 * Automatic: bpf unless uvm-tools can stand in (a target, the device);
	 * so without the capabilities bpf needs, the error line names them.
	 */
	if (kind == TB_AUTO && !bpf_caps_held() &&
	    !((o->target.pid || o->target.cmd) && tb_uvm_tools_ops.usable(NULL, 0)))
		kind = TB_BPF;
	if (kind != TB_AUTO && tb_backends[kind]->caps &&
	    need_caps(what, tb_backends[kind]->caps))
		return EXIT_FAIL;
	return 0;
}

/*
 * The automatic choice, and starting it.  bpf sees va_space creation, so it
 * is exact for -- CMD and system-wide; for an existing -p PID uvm-tools is
 * (the va_space predates us).  0, or -1 after p_err.
 */
static int start_backend(struct tb *t, enum tb_kind kind)
{
	char reason[256] = "";
	int err;

	if (kind == TB_AUTO && t->o.target.pid && tb_uvm_tools_ops.usable(NULL, 0))
		kind = TB_UVM_TOOLS;
	if (kind == TB_AUTO) {
		t->ops = &tb_bpf_ops;
		if (!t->ops->start(t, reason, sizeof(reason)))
			return 0;
		if (!t->w->pid) {
			err_code("NO_BACKEND");
			p_err("system-wide tracing needs the bpf backend, and %s; "
			      "give -p PID or -- CMD to use the uvm-tools backend", reason);
			return -1;
		}
		if (!tb_uvm_tools_ops.usable(NULL, 0)) {
			err_code("NO_BACKEND");
			p_err("no trace backend: bpf: %s; uvm-tools: /dev/nvidia-uvm-tools missing",
			      reason);
			return -1;
		}
		p_info("bpf backend unavailable (%s); using uvm-tools", reason);
		kind = TB_UVM_TOOLS;
		reason[0] = '\0';
	}
	t->ops = tb_backends[kind];
	err = t->ops->start(t, reason, sizeof(reason));
	if (err && reason[0])
		p_err("%s%s%s", kind == TB_BPF ? t->ops->name : "",
		      kind == TB_BPF ? " backend: " : "", reason);
	return err ? -1 : 0;
}

struct tb *tb_start(const struct tb_opts *o, int *rc)
{
	struct tb *t;
	enum tb_kind kind = o->kind;

	*rc = tb_check(o);
	if (*rc)
		return NULL;
	kind_for_events(o, &kind);	/* checked: only sets rm for TSG events */
	*rc = EXIT_FAIL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		p_err("out of memory");
		return NULL;
	}
	t->o = *o;
	t->w = &t->own;
	if (both_kinds(o))
		t->o.types &= ~GT_TSG_TYPES;	/* the TSG events are the second's */
	workload_init(t->w);
	if (o->target.pid && workload_follow(t->w, o->target.pid))
		goto fail;
	if (o->target.cmd && workload_spawn(t->w, o->target.cmd, json_output || o->stdout_is_data))
		goto fail;
	if (start_backend(t, kind))
		goto fail;
	if (both_kinds(o) && tb_pair_start(t, o->types & GT_TSG_TYPES))
		goto fail;
	if (workload_release(t->w))
		goto fail;
	*rc = EXIT_OK;
	return t;

fail:
	workload_end(t->w, true);
	tb_pair_free(t);
	if (t->ops && t->ops->free)
		t->ops->free(t);
	free(t);
	return NULL;
}

bool tb_poll(struct tb *t, int timeout_ms)
{
	tb_pair_poll(t);
	t->ops->poll(t, timeout_ms);
	return !tb_failed(t) && !workload_gone(t->w);
}

void tb_read_counters(struct tb *t, struct tb_counters *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
	if (t->ops->counters)
		t->ops->counters(t, c);
}

void tb_stop(struct tb *t, bool kill_cmd)
{
	if (!t->ops->drain_after_exit)
		t->ops->stop(t);
	tb_pair_stop(t, false);
	workload_end(t->w, kill_cmd);
	/* After the command: what it freed on its way out is seen, too. */
	if (t->ops->drain_after_exit)
		t->ops->stop(t);
	tb_pair_stop(t, true);
}

void tb_free(struct tb *t)
{
	if (!t)
		return;
	tb_pair_free(t);
	t->ops->free(t);
	workload_end(t->w, true);
	free(t);
}
