// SPDX-License-Identifier: GPL-2.0
/*
 * probe_verdict.c - the answer probe gives first: for prefetch policies, the
 * prefetch engine, sched, trace/stat and the exporter, whether they work
 * here, and when not, the one thing that blocks them (the first in the
 * order each needs its pieces: kernel, driver, hooks, devices,
 * capabilities).  Computed from the facts the details print (probe_facts.h), so
 * the two agree; the details say what to do.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>

#include "probe_facts.h"

struct verdict {
	bool ok;
	char why[320];
};

#define SAY(v, ok_, ...) (snprintf((v)->why, sizeof((v)->why), __VA_ARGS__), (v)->ok = (ok_))

static const char NEED_BPF_CAPS[] = "CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)";

/* Capabilities that are known not to be held (unknown blocks nothing). */
static bool lacks_bpf(const struct probe *p)
{
	return p->caps_known && !probe_bpf_caps(p);
}

static bool lacks_ptrace(const struct probe *p)
{
	return probe_cap(p, CAP_SYS_PTRACE) == 0;
}

static bool no_driver(const struct probe *p)
{
	return !p->hooks.driver_version[0] && !p->mod[PROBE_MOD_NVIDIA].loaded &&
		!p->mod[PROBE_MOD_MODEL].loaded;
}

static size_t prefetch_index(void)
{
	for (size_t i = 0; i < POLICY_NKINDS; i++)
		if (policy_kinds_table[i] == &prefetch_kind)
			return i;
	return 0;
}

/* Why the hooks are not there, the driver being loaded. */
static void no_hooks(const struct probe *p, size_t k, struct verdict *v)
{
	const struct uvm_hooks_info *h = &p->hooks;

	if (p->flavour == FLAVOUR_PROPRIETARY)
		SAY(v, false, "the NVIDIA driver is the proprietary one; the hooks are built "
		    "on its open kernel modules");
	else if (p->sops[k].ret == -EOPNOTSUPP)
		SAY(v, false, "struct %s is declared in %s but not registered",
		    policy_kinds_table[k]->st_type, p->sops[k].module);
	else if (h->driver_version[0] && !h->series)
		SAY(v, false, "NVIDIA %s has no kernel-patch series", h->driver_version);
	else if (h->driver_version[0])
		SAY(v, false, "the stock nvidia-uvm %s has no hooks (kernel-patch series %s%s)",
		    h->driver_version, h->series, h->series_exact ? "" : ", same branch");
	else
		SAY(v, false, "the loaded UVM module has no hooks");
}

static void v_policies(const struct probe *p, struct verdict *v)
{
	size_t k = prefetch_index();

	if (p->sops[k].ret == 0) {
		if (p->hooks.abi && p->hooks.abi != UVM_HOOKS_ABI)
			SAY(v, false, "the hooks in %s speak ABI %d, this gpuctl ABI %d",
			    p->hooks.module, p->hooks.abi, UVM_HOOKS_ABI);
		else if (!p->bpffs)
			SAY(v, false, "no BPF file system at " BPFFS_ROOT);
		else if (lacks_bpf(p))
			SAY(v, false, "needs %s", NEED_BPF_CAPS);
		else
			SAY(v, true, "struct_ops hooks in %s; system-wide", p->sops[k].module);
	} else if (!p->vmlinux_btf) {
		SAY(v, false, "the kernel has no BTF (CONFIG_DEBUG_INFO_BTF)");
	} else if (!p->struct_ops_modules) {
		SAY(v, false, "Linux %s: struct_ops in modules need 6.9 or later", p->uts.release);
	} else if (no_driver(p)) {
		SAY(v, false, "no NVIDIA driver loaded");
	} else {
		no_hooks(p, k, v);
	}
}

/* As `prefetch probe` decides (cmd/pfengine/loop.c: pfe_engine_usable). */
static void v_engine(const struct probe *p, struct verdict *v)
{
	if (no_driver(p) && !p->dev[PROBE_DEV_TOOLS])
		SAY(v, false, "no NVIDIA driver loaded");
	else if (!p->dev[PROBE_DEV_TOOLS])
		SAY(v, false, "%s missing (%s)", probe_devices[PROBE_DEV_TOOLS],
		    p->mod[PROBE_MOD_UVM].loaded ? "nvidia-modprobe -u" : "nvidia-uvm not loaded");
	else if (lacks_ptrace(p))
		SAY(v, false, "needs CAP_SYS_PTRACE (to borrow a process's UVM file)");
	else
		SAY(v, true, "per process (prefetch load ENGINE -p PID or -- CMD)");
}

static void v_sched(const struct probe *p, struct verdict *v)
{
	if (!p->rm_device_ok)
		SAY(v, false, "RM device %s missing%s", p->rm_device,
		    no_driver(p) ? " (no NVIDIA driver loaded)" : "");
	else if (lacks_ptrace(p) || lacks_bpf(p))
		SAY(v, false, "needs CAP_SYS_PTRACE and %s", NEED_BPF_CAPS);
	else if (!probe_rm_ok(p, v->why, sizeof(v->why)))
		v->ok = false;
	else
		SAY(v, true, "through RM (%s)", p->rm_device);
}

static void v_trace(const struct probe *p, struct verdict *v)
{
	bool bpf = p->tb[TB_BPF].ok, ut = p->tb[TB_UVM_TOOLS].ok;

	if (bpf && ut)
		SAY(v, true, "bpf system-wide, uvm-tools for one process");
	else if (bpf)
		SAY(v, true, "bpf, system-wide");
	else if (ut)
		SAY(v, true, "uvm-tools, one process (-p PID or -- CMD); no system-wide bpf");
	else if (no_driver(p))
		SAY(v, false, "no NVIDIA driver loaded");
	else if (!p->mod[PROBE_MOD_UVM].loaded && !p->mod[PROBE_MOD_MODEL].loaded)
		SAY(v, false, "nvidia-uvm not loaded");
	else
		SAY(v, false, "%s missing, and bpf: %s", probe_devices[PROBE_DEV_TOOLS],
		    p->tb[TB_BPF].reason);
}

/* cmd/exporter.c: check_access; what it serves needs no more. */
static void v_exporter(const struct probe *p, struct verdict *v)
{
	if (lacks_bpf(p) || lacks_ptrace(p))
		SAY(v, false, "needs %s and CAP_SYS_PTRACE", NEED_BPF_CAPS);
	else if (no_driver(p))
		SAY(v, true, "gpuctl's own metrics only (no NVIDIA driver loaded)");
	else
		SAY(v, true, "gpuctl exporter serve (Prometheus metrics of the GPUs and processes)");
}

static const struct {
	const char *label;	/* text */
	const char *key;	/* -j */
	void (*fn)(const struct probe *p, struct verdict *v);
} verdicts[] = {
	{ "prefetch policies", "prefetch_policies", v_policies },
	{ "prefetch engine", "prefetch_engine", v_engine },
	{ "sched", "sched", v_sched },
	{ "trace/stat", "trace_stat", v_trace },
	{ "exporter", "exporter", v_exporter },
};

void probe_verdict_text(const struct probe *p)
{
	printf("verdict (details below)\n");
	for (size_t i = 0; i < PROBE_N(verdicts); i++) {
		struct verdict v = { 0 };

		verdicts[i].fn(p, &v);
		printf("  %-18s %s: %s\n", verdicts[i].label, v.ok ? "yes" : "no", v.why);
	}
	printf("\n");
}

/* "verdict": { KEY: {"available": bool, "why": text}, ... } */
void probe_verdict_json(const struct probe *p)
{
	jsonw_name(json_wtr, "verdict");
	jsonw_start_object(json_wtr);
	for (size_t i = 0; i < PROBE_N(verdicts); i++) {
		struct verdict v = { 0 };

		verdicts[i].fn(p, &v);
		jsonw_name(json_wtr, verdicts[i].key);
		jsonw_start_object(json_wtr);
		jsonw_bool_field(json_wtr, "available", v.ok);
		jsonw_string_field(json_wtr, "why", v.why);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_object(json_wtr);
}
