// SPDX-License-Identifier: GPL-2.0
/*
 * probe_report.c - probe's details, after the verdict: kernel, bpf,
 * capabilities, the NVIDIA driver, struct_ops types, kfuncs, trace points
 * and back-ends, GPUs; as text ("  label  value", "  -> what to do") or as
 * one JSON object.  Facts from probe.c, advice from probe_hints.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probe_facts.h"
#include "probe_gpus.h"
#include "probe_mps.h"
#include "rm.h"

#define N(a) PROBE_N(a)

/* enum probe_flavour, as -j says it (null: no driver) */
static const char *const flavour_name[] = { NULL, "open", "proprietary", "unknown" };

static void json_hint(const char *hint)
{
	if (hint)
		jsonw_string_field(json_wtr, "hint", hint);
}

static void json_fentry(const char *name, const struct probe *p,
			const struct fentry_result *r)
{
	jsonw_name(json_wtr, name);
	if (!r->target[0]) {
		jsonw_null(json_wtr);
		return;
	}
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "target", r->target);
	jsonw_bool_field(json_wtr, "loads", r->loads);
	jsonw_bool_field(json_wtr, "attaches", r->attaches);
	if (r->tried && !r->attaches) {
		jsonw_string_field(json_wtr, "failed_step", r->step);
		jsonw_int_field(json_wtr, "errno", r->err);
		jsonw_string_field(json_wtr, "error", strerror(r->err));
	}
	json_hint(hint_fentry(p, r));
	jsonw_end_object(json_wtr);
}

/* kernel, bpf, capabilities */
static void json_host(const struct probe *p)
{
	json_writer_t *w = json_wtr;

	jsonw_name(w, "kernel");
	jsonw_start_object(w);
	jsonw_string_field(w, "release", p->uts.release);
	jsonw_string_field(w, "machine", p->uts.machine);
	jsonw_string_field(w, "lockdown", p->lockdown);
	if (p->unpriv_bpf >= 0)
		jsonw_int_field(w, "unprivileged_bpf_disabled", p->unpriv_bpf);
	else
		jsonw_null_field(w, "unprivileged_bpf_disabled");
	jsonw_end_object(w);

	jsonw_name(w, "bpf");
	jsonw_start_object(w);
	jsonw_bool_field(w, "vmlinux_btf", p->vmlinux_btf);
	jsonw_bool_field(w, "bpffs", p->bpffs);
	jsonw_bool_field(w, "struct_ops", p->struct_ops);
	jsonw_bool_field(w, "struct_ops_in_modules", p->struct_ops_modules);
	json_fentry("fentry", p, &p->fentry);
	json_fentry("fentry_driver", p, &p->fentry_mod);
	jsonw_end_object(w);

	jsonw_name(w, "capabilities");
	jsonw_start_array(w);
	for (size_t i = 0; i < N(cap_table); i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", cap_table[i].name);
		if (p->caps_known && p->cap_held[i] >= 0)
			jsonw_bool_field(w, "held", p->cap_held[i] > 0);
		else
			jsonw_null_field(w, "held");
		jsonw_string_field(w, "needed_for", cap_table[i].needed_for);
		jsonw_bool_field(w, "needed_here", probe_cap_needed(p, i));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* nvidia: driver, hooks, modules, devices */
static void json_nvidia(const struct probe *p)
{
	json_writer_t *w = json_wtr;
	char hint[512];

	jsonw_name(w, "nvidia");
	jsonw_start_object(w);
	jsonw_string_field(w, "driver_version",
			   p->hooks.driver_version[0] ? p->hooks.driver_version : NULL);
	jsonw_string_field(w, "driver_kind", flavour_name[p->flavour]);
	json_hint(hint_driver(p) ? hint_driver(p) : hint_flavour(p));
	jsonw_name(w, "uvm_hooks");	/* abi, module: null without hooks */
	jsonw_start_object(w);
	jsonw_int_field(w, "gpuctl_abi", UVM_HOOKS_ABI);
	jsonw_string_field(w, "series", p->hooks.series);
	jsonw_string_field(w, "module", p->hooks.abi ? p->hooks.module : NULL);
	if (p->hooks.abi)
		jsonw_int_field(w, "abi", p->hooks.abi);
	else
		jsonw_null_field(w, "abi");
	json_hint(hint_hooks(p, hint, sizeof(hint)));
	jsonw_end_object(w);
	jsonw_name(w, "modules");
	jsonw_start_array(w);
	for (size_t i = 0; i < N(probe_modules); i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", probe_modules[i]);
		jsonw_bool_field(w, "loaded", p->mod[i].loaded);
		jsonw_string_field(w, "version",
				   p->mod[i].version[0] ? p->mod[i].version : NULL);
		jsonw_bool_field(w, "btf", p->mod[i].btf);
		json_hint(hint_module(p, i));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_name(w, "devices");
	jsonw_start_array(w);
	for (size_t i = 0; i < N(probe_devices); i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "path", probe_devices[i]);
		jsonw_bool_field(w, "present", p->dev[i]);
		json_hint(hint_device(p, i));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

/* struct_ops, kfuncs, trace points and back-ends */
static void json_hooks_and_trace(const struct probe *p)
{
	json_writer_t *w = json_wtr;

	jsonw_name(w, "struct_ops");
	jsonw_start_array(w);
	for (size_t i = 0; i < POLICY_NKINDS; i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "type", policy_kinds_table[i]->st_type);
		jsonw_string_field(w, "used_for", policy_kinds_table[i]->used_for);
		jsonw_bool_field(w, "found", p->sops[i].ret != -ENOENT);
		jsonw_bool_field(w, "registered", p->sops[i].ret == 0);
		jsonw_string_field(w, "module",
				   p->sops[i].module[0] ? p->sops[i].module : NULL);
		json_hint(hint_struct_ops(p, i));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);

	jsonw_name(w, "kfuncs");
	jsonw_start_array(w);
	for (size_t i = 0; i < probe_nkfuncs(); i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", probe_kfunc_name(i));
		jsonw_string_field(w, "used_for", probe_kfunc_what(i));
		jsonw_bool_field(w, "found", p->kfunc_mod[i][0]);
		jsonw_string_field(w, "module", p->kfunc_mod[i][0] ? p->kfunc_mod[i] : NULL);
		json_hint(p->kfunc_mod[i][0] ? NULL : hint_patched_driver(p));
		jsonw_end_object(w);
	}
	jsonw_end_array(w);

	jsonw_name(w, "trace_points");
	jsonw_start_array(w);
	for (size_t i = 0; i < TB_BPF_ATTACH_NR; i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "function", tb_bpf_attach[i].func);
		jsonw_string_field(w, "used_for", tb_bpf_attach[i].what);
		jsonw_bool_field(w, "found", p->trace_mod[i][0]);
		jsonw_string_field(w, "module", p->trace_mod[i][0] ? p->trace_mod[i] : NULL);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_string_field(w, "trace_backend", p->trace_backend);
	jsonw_name(w, "trace_backends");
	jsonw_start_array(w);
	for (int k = TB_AUTO + 1; k < TB_KINDS; k++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", tb_backends[k]->name);
		jsonw_string_field(w, "scope", tb_backends[k]->scope);
		if (k == TB_RM) {
			char why[320];
			bool ok = probe_rm_ok(p, why, sizeof(why));

			jsonw_bool_field(w, "available", ok);
			jsonw_string_field(w, "reason", ok ? NULL : why);
		} else {
			jsonw_bool_field(w, "available", p->tb[k].ok);
			jsonw_string_field(w, "reason", p->tb[k].ok ? NULL : p->tb[k].reason);
		}
		if (k == TB_RM) {
			jsonw_string_field(w, "device", p->rm_device);
			jsonw_bool_field(w, "device_present", p->rm_device_ok);
		}
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_string_field(w, "trace_backend_for_pid", p->tb[TB_UVM_TOOLS].ok ? "uvm-tools" :
			   p->tb[TB_BPF].ok ? "bpf" : NULL);
}

void probe_print_json(const struct probe *p)
{
	jsonw_start_object(json_wtr);
	probe_verdict_json(p);
	json_host(p);
	json_nvidia(p);
	json_hooks_and_trace(p);
	probe_gpus_json(json_wtr);
	probe_mps_json(json_wtr);
	jsonw_end_object(json_wtr);
}

/* "  label ....... value", and when there is a hint, "      -> hint". */
static void line(const char *label, const char *value, const char *hint)
{
	printf("  %-40s %s\n", label, value);
	if (hint)
		printf("  %-40s -> %s\n", "", hint);
}

static void text_fentry(const char *label, const struct probe *p,
			const struct fentry_result *r)
{
	char value[256];

	if (!r->target[0]) {
		line(label, "not tested (no target function in BTF)", hint_fentry(p, r));
		return;
	}
	if (r->attaches) {
		snprintf(value, sizeof(value), "yes (%s)", r->target);
	} else {
		const char *name = errno_name(r->err);

		snprintf(value, sizeof(value), "no: %s of %s refused: %s%s%s%s",
			 r->step, r->target, strerror(r->err),
			 name ? " (" : "", name ? name : "", name ? ")" : "");
	}
	line(label, value, hint_fentry(p, r));
}

static void text_rm(const struct probe *p)
{
	char value[320], why[320];

	if (!probe_rm_ok(p, why, sizeof(why))) {
		snprintf(value, sizeof(value), "no: %s", why);
		line("  rm (TSG events)", value, p->rm_device_ok || !p->mod[PROBE_MOD_NVIDIA].loaded ?
		     NULL : "name the RM device with --device PATH or $GPUCTL_RM_DEVICE");
		return;
	}
	snprintf(value, sizeof(value), "yes (raw tracepoints; RM device %s)", p->rm_device);
	line("  rm (TSG events)", value, NULL);
}

/* kernel, bpf, capabilities */
static void text_host(const struct probe *p)
{
	char value[256], hbuf[256];
	const char *hint;

	printf("kernel\n");
	line("release", p->uts.release, NULL);
	line("lockdown", p->lockdown, NULL);
	if (p->unpriv_bpf >= 0) {
		snprintf(value, sizeof(value), "%d", p->unpriv_bpf);
		line("unprivileged_bpf_disabled", value, NULL);
	}

	printf("\nbpf\n");
	line("vmlinux BTF", p->vmlinux_btf ? "yes" : "no",
	     p->vmlinux_btf ? NULL : "use a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	line("bpffs at " BPFFS_ROOT, p->bpffs ? "yes" : "no",
	     p->bpffs ? NULL : "mount -t bpf bpf " BPFFS_ROOT);
	line("struct_ops", !p->struct_ops ? "no" :
	     p->struct_ops_modules ? "yes (modules may define types)" :
	     "kernel types only",
	     p->struct_ops_modules ? NULL :
	     "struct_ops types defined by modules need Linux 6.9 or later");
	text_fentry("fentry (vmlinux)", p, &p->fentry);
	text_fentry("fentry (NVIDIA driver)", p, &p->fentry_mod);

	printf("\ncapabilities\n");
	for (size_t i = 0; i < N(cap_table); i++) {
		bool needed = probe_cap_needed(p, i);

		snprintf(value, sizeof(value), "%s: %s%s",
			 !p->caps_known || p->cap_held[i] < 0 ? "unknown" :
			 p->cap_held[i] ? "yes" : "no", cap_table[i].needed_for,
			 needed || p->cap_held[i] ? "" : " (not needed here)");
		line(cap_table[i].name, value, NULL);
	}
	hint = hint_caps(p, hbuf, sizeof(hbuf));
	if (hint)
		printf("  %-40s -> %s\n", "", hint);
}

/* nvidia: driver, hooks, modules, devices */
static void text_nvidia(const struct probe *p)
{
	char value[256], hbuf[512];

	printf("\nnvidia\n");
	line("driver version", p->hooks.driver_version[0] ? p->hooks.driver_version : "none",
	     hint_driver(p));
	if (p->flavour != FLAVOUR_NONE)
		line("driver kind", p->flavour == FLAVOUR_OPEN ? "open kernel modules" :
		     p->flavour == FLAVOUR_PROPRIETARY ? "proprietary kernel modules" :
		     "unknown (no /proc/driver/nvidia/version)", hint_flavour(p));
	snprintf(value, sizeof(value), "%s%s", p->hooks.series ? p->hooks.series : "none",
		 p->hooks.series && !p->hooks.series_exact ? " (same branch)" : "");
	line("kernel-patch series", value, NULL);
	if (p->hooks.abi)
		snprintf(value, sizeof(value), "yes (%s, ABI %d)", p->hooks.module, p->hooks.abi);
	else
		snprintf(value, sizeof(value), "no");
	line("UVM hooks", value, hint_hooks(p, hbuf, sizeof(hbuf)));
	for (size_t i = 0; i < N(probe_modules); i++) {
		char label[64];

		snprintf(label, sizeof(label), "module %s", probe_modules[i]);
		if (p->mod[i].loaded)
			snprintf(value, sizeof(value), "loaded%s%s%s, BTF %s",
				 p->mod[i].version[0] ? " (" : "", p->mod[i].version,
				 p->mod[i].version[0] ? ")" : "",
				 p->mod[i].btf ? "yes" : "no");
		else
			snprintf(value, sizeof(value), "not loaded");
		line(label, value, hint_module(p, i));
	}
	for (size_t i = 0; i < N(probe_devices); i++)
		line(probe_devices[i], p->dev[i] ? "present" : "missing", hint_device(p, i));
}

/* struct_ops, kfuncs, trace points and back-ends */
static void text_hooks_and_trace(const struct probe *p)
{
	char value[256];

	printf("\nstruct_ops types (policies)\n");
	for (size_t i = 0; i < POLICY_NKINDS; i++) {
		char label[64];

		snprintf(label, sizeof(label), "struct %s", policy_kinds_table[i]->st_type);
		if (p->sops[i].ret == 0)
			snprintf(value, sizeof(value), "yes (%s): %s", p->sops[i].module,
				 policy_kinds_table[i]->used_for);
		else if (p->sops[i].ret == -EOPNOTSUPP)
			snprintf(value, sizeof(value), "declared in %s, not registered",
				 p->sops[i].module);
		else
			snprintf(value, sizeof(value), "no: %s", policy_kinds_table[i]->used_for);
		line(label, value, hint_struct_ops(p, i));
	}

	printf("\nkfuncs\n");
	for (size_t i = 0; i < probe_nkfuncs(); i++) {
		if (p->kfunc_mod[i][0])
			snprintf(value, sizeof(value), "yes (%s)", p->kfunc_mod[i]);
		else
			snprintf(value, sizeof(value), "no: %s", probe_kfunc_what(i));
		line(probe_kfunc_name(i), value, p->kfunc_mod[i][0] ? NULL : hint_patched_driver(p));
	}

	printf("\ntrace attach points (stock driver)\n");
	bool any = false;

	for (size_t i = 0; i < TB_BPF_ATTACH_NR; i++) {
		if (p->trace_mod[i][0]) {
			snprintf(value, sizeof(value), "yes (%s)", p->trace_mod[i]);
			any = true;
		} else {
			snprintf(value, sizeof(value), "missing");
		}
		line(tb_bpf_attach[i].func, value, NULL);
	}
	if (!any && p->mod[PROBE_MOD_UVM].loaded)
		printf("  %-40s -> %s\n", "",
		       "load nvidia_uvm with module BTF (or uvm_model in the VM) for the bpf trace backend");
	line("trace backend", p->trace_backend ? p->trace_backend : "none",
	     p->trace_backend ? NULL :
	     "load nvidia_uvm and start a CUDA program (uvm-tools backend), or fix fentry above (bpf backend)");
	line("  bpf (system-wide)", p->tb[TB_BPF].ok ? "yes" : "no",
	     p->tb[TB_BPF].ok ? NULL : p->tb[TB_BPF].reason);
	line("  uvm-tools (one process)", p->tb[TB_UVM_TOOLS].ok ? "yes" : "no: /dev/nvidia-uvm-tools missing",
	     p->tb[TB_UVM_TOOLS].ok || !p->mod[PROBE_MOD_UVM].loaded ? NULL : "nvidia-modprobe -u");
	text_rm(p);
	line("  chosen for -p PID", p->tb[TB_UVM_TOOLS].ok ? "uvm-tools" :
	     p->tb[TB_BPF].ok ? "bpf" : "none", NULL);
	probe_gpus_text();
}

void probe_print_text(const struct probe *p)
{
	probe_verdict_text(p);
	text_host(p);
	text_nvidia(p);
	text_hooks_and_trace(p);
	probe_mps_text();
}
