// SPDX-License-Identifier: GPL-2.0
/*
 * probe_hints.c - what to do about each piece probe finds missing, from the
 * facts of struct probe (probe_facts.h) alone.  A hint is given only where it
 * applies: no "run as root" to root, none for a capability this kernel does
 * not ask for, no make -C kernel-patch for a gpuctl without that directory.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>

#include "probe_facts.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* kernel-internal "operation not supported" */
#endif

int probe_cap(const struct probe *p, int cap)
{
	for (size_t i = 0; i < CAP_TABLE_LEN; i++)
		if (cap_table[i].cap == cap)
			return p->caps_known && p->cap_held[i] >= 0 ? p->cap_held[i] > 0 : -1;
	return -1;
}

bool probe_bpf_caps(const struct probe *p)
{
	return (probe_cap(p, CAP_BPF) > 0 && probe_cap(p, CAP_PERFMON) > 0) ||
		probe_cap(p, CAP_SYS_ADMIN) > 0;
}

static bool kernel_before(const struct probe *p, int major, int minor)
{
	return p->kmajor && (p->kmajor < major || (p->kmajor == major && p->kminor < minor));
}

bool probe_cap_needed(const struct probe *p, size_t i)
{
	switch (cap_table[i].cap) {
	case CAP_SYS_RESOURCE:	/* memlock accounting of BPF maps went to memcg in 5.11 */
		return kernel_before(p, 5, 11);
	case CAP_BPF:
	case CAP_PERFMON:	/* CAP_SYS_ADMIN does both */
		return probe_cap(p, CAP_SYS_ADMIN) <= 0;
	default:
		return true;
	}
}

/* "run as root or grant CAP_X, CAP_Y (...)" for the missing ones needed. */
const char *hint_caps(const struct probe *p, char *buf, size_t len)
{
	size_t n = 0;
	int missing = 0;

	if (!p->caps_known)
		return NULL;
	n += snprintf(buf, len, "%s", p->euid ? "run as root or grant " : "grant ");
	for (size_t i = 0; i < CAP_TABLE_LEN && n < len; i++) {
		if (p->cap_held[i] != 0 || !probe_cap_needed(p, i))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", missing++ ? ", " : "", cap_table[i].name);
	}
	if (!missing)
		return NULL;
	if (n < len)
		snprintf(buf + n, len - n, " (setcap, capsh, systemd AmbientCapabilities=)");
	return buf;
}

const char *hint_fentry(const struct probe *p, const struct fentry_result *r)
{
	if (!r->tried)
		return p->vmlinux_btf ? NULL :
			"the kernel needs BTF (CONFIG_DEBUG_INFO_BTF=y)";
	if (r->attaches)
		return NULL;
	switch (r->err) {
	case EPERM:
	case EACCES:
		if (!strcmp(p->lockdown, "confidentiality"))
			return "kernel lockdown (confidentiality) refuses tracing programs; "
			       "use the uvm-tools trace backend";
		if (p->caps_known && probe_bpf_caps(p))
			return "refused although CAP_BPF and CAP_PERFMON are held: a container, "
			       "seccomp or LSM policy blocks bpf(); use the uvm-tools trace backend";
		return p->euid ? "run as root or grant CAP_BPF and CAP_PERFMON" :
			"grant CAP_BPF and CAP_PERFMON (root without them: a container or capsh --drop)";
	case ENOTSUPP:
	case EOPNOTSUPP:
		return "the kernel has no BPF trampoline for this target; "
		       "use the uvm-tools trace backend";
	default:
		return "use the uvm-tools trace backend; run with -d to see libbpf's view";
	}
}

/* Which driver to load: NVIDIA's open modules, of a branch with a series. */
const char *hint_driver(const struct probe *p)
{
	static char buf[256];
	size_t n;

	if (p->hooks.driver_version[0])
		return NULL;
	n = snprintf(buf, sizeof(buf), "install and load NVIDIA's open kernel modules "
		     "(nvidia-open; the hooks have series for");
	for (size_t i = 0; kpatch_versions[i] && n < sizeof(buf); i++)
		n += snprintf(buf + n, sizeof(buf) - n, " %s", kpatch_versions[i]);
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, ")");
	return buf;
}

const char *hint_flavour(const struct probe *p)
{
	if (p->flavour != FLAVOUR_PROPRIETARY)
		return NULL;
	return "gpuctl's hooks are built on NVIDIA's open kernel modules (kernel-open/): "
	       "for policies, switch to the open modules of the same release (nvidia-open)";
}

const char *hint_module(const struct probe *p, size_t i)
{
	if (p->mod[i].loaded)
		return p->mod[i].btf ? NULL :
			"the module has no BTF: rebuild it with CONFIG_DEBUG_INFO_BTF_MODULES=y";
	if (i == PROBE_MOD_MODEL)
		return NULL;	/* only in the test VM */
	if (i == PROBE_MOD_UVM)
		return p->mod[PROBE_MOD_NVIDIA].loaded ? "modprobe nvidia-uvm" : NULL;
	return NULL;	/* the driver version line says which to load */
}

const char *hint_device(const struct probe *p, size_t i)
{
	if (p->dev[i])
		return NULL;
	if (!p->mod[PROBE_MOD_NVIDIA].loaded)
		return NULL;	/* the driver line says what to load */
	if (i == PROBE_DEV_CTL)
		return "nvidia-modprobe -c 0 (or run any CUDA program) to create it";
	return "nvidia-modprobe -u -c 0 (or run any CUDA program) to create it";
}

/*
 * Where make -C kernel-patch install is: this directory, the source tree
 * this gpuctl was run from, or (a package, the static binary, the image)
 * the source of this release, as gpuctl-probe(8) says.
 */
static const char *kpatch_cmd(const struct probe *p, char *buf, size_t len)
{
	if (p->kpatch_here)
		return "make -C kernel-patch install";
	if (p->kpatch_dir[0]) {
		snprintf(buf, len, "make -C %s install", p->kpatch_dir);
		return buf;
	}
	return NULL;
}

const char *hint_hooks(const struct probe *p, char *buf, size_t len)
{
	const struct uvm_hooks_info *h = &p->hooks;
	char where[320], cmdbuf[300];
	const char *cmd = kpatch_cmd(p, cmdbuf, sizeof(cmdbuf));
	const char *see = cmd ? "kernel-patch/README.md" : "gpuctl-probe(8), DRIVER HOOKS";

	if (cmd)
		snprintf(where, sizeof(where), "%s", cmd);
	else
		snprintf(where, sizeof(where), "make -C kernel-patch install in gpuctl %s's source tree",
			 GPUCTL_VERSION);
	if (h->abi == UVM_HOOKS_ABI)
		return NULL;
	if (h->abi) {
		snprintf(buf, len, "the module's hooks speak ABI %d, this gpuctl ABI %d: "
			 "build both from one gpuctl source tree (%s; see %s)", h->abi, UVM_HOOKS_ABI,
			 where, see);
		return buf;
	}
	if (!h->driver_version[0]) {
		if (cmd)
			snprintf(buf, len, "load the NVIDIA driver, then: %s", where);
		else
			snprintf(buf, len, "load the NVIDIA driver, then: %s (see %s)", where, see);
		return buf;
	}
	if (!h->series)
		return h->hint;	/* "NVIDIA V has no kernel-patch series (...)" */
	snprintf(buf, len, "%s%s%sbuild a patched nvidia-uvm for %s and swap it in: %s (series %s%s; see %s)",
		 p->flavour == FLAVOUR_PROPRIETARY ? "load NVIDIA's open kernel modules of " : "",
		 p->flavour == FLAVOUR_PROPRIETARY ? h->driver_version : "",
		 p->flavour == FLAVOUR_PROPRIETARY ? ", then " : "",
		 h->driver_version, where, h->series,
		 h->series_exact ? "" : ", same branch, used if it applies without fuzz", see);
	return buf;
}

/*
 * For a missing struct_ops type or kfunc: nothing while the driver or UVM
 * hooks lines above already say what to do (no driver, no hooks, another
 * ABI), or while the test model is loaded.
 */
const char *hint_patched_driver(const struct probe *p)
{
	if (p->mod[PROBE_MOD_MODEL].loaded || !p->hooks.driver_version[0] || p->hooks.abi == 0 ||
	    p->hooks.abi != UVM_HOOKS_ABI)
		return NULL;
	return "load a driver built with gpuctl's kernel-patch/ series (or, in the VM, the uvm_model module)";
}

const char *hint_struct_ops(const struct probe *p, size_t i)
{
	/* No BTF, no struct_ops in modules: the bpf lines above say it once. */
	if (p->sops[i].ret == 0 || !p->vmlinux_btf || !p->struct_ops_modules)
		return NULL;
	if (p->sops[i].ret == -EOPNOTSUPP)
		return "the type is there but not registered as struct_ops: load a driver "
		       "built with gpuctl's kernel-patch/ series";
	return hint_patched_driver(p);
}

bool probe_rm_ok(const struct probe *p, char *why, size_t len)
{
	if (!p->rm_device_ok) {
		snprintf(why, len, "RM device %s missing%s", p->rm_device,
			 p->mod[PROBE_MOD_NVIDIA].loaded ? "" : " (no NVIDIA driver loaded)");
		return false;
	}
	if (!p->tb[TB_RM].ok) {
		snprintf(why, len, "%s", p->tb[TB_RM].reason);
		return false;
	}
	return true;
}
