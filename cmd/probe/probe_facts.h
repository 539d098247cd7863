/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_facts.h - "gpuctl probe" in three parts: the facts (probe.c gathers them),
 * the verdict computed from them (probe_verdict.c: what works here, and the
 * one thing blocking what does not), and the details with their advice
 * (probe_report.c, probe_hints.c).  Every line printed is one of the facts
 * below or follows from them, so the verdict and the details cannot disagree.
 */
#ifndef GPUCTL_PROBE_FACTS_H
#define GPUCTL_PROBE_FACTS_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/utsname.h>

#include "gpuctl.h"
#include "nvdrv.h"
#include "policy/kinds.h"
#include "trace/backend.h"

#define PROBE_N(a) (sizeof(a) / sizeof((a)[0]))
#define PROBE_KFUNCS_MAX 16
#define PROBE_NMODULES 3	/* nvidia, nvidia_uvm, uvm_model */
#define PROBE_NDEVICES 3	/* /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia-uvm-tools */
enum { PROBE_MOD_NVIDIA, PROBE_MOD_UVM, PROBE_MOD_MODEL };
enum { PROBE_DEV_CTL, PROBE_DEV_UVM, PROBE_DEV_TOOLS };

/* Which NVIDIA kernel modules: /proc/driver/nvidia/version says. */
enum probe_flavour { FLAVOUR_NONE, FLAVOUR_OPEN, FLAVOUR_PROPRIETARY, FLAVOUR_UNKNOWN };

struct fentry_result {
	char target[128];	/* "vfs_read" or "nvidia_uvm:uvm_va_space_create" */
	bool tried;
	bool loads;
	bool attaches;
	int err;		/* positive errno of the failing step */
	const char *step;	/* "load", "attach", "module BTF" */
};

struct probe {
	struct utsname uts;
	int kmajor, kminor;	/* of uts.release; 0.0 when unreadable */
	uid_t euid;
	char lockdown[32];
	int unpriv_bpf;		/* -1: unknown */
	bool vmlinux_btf;
	bool bpffs;
	bool struct_ops;	/* the kernel has struct_ops at all */
	bool struct_ops_modules;	/* modules may define struct_ops types (6.9+) */
	struct fentry_result fentry;
	struct fentry_result fentry_mod;
	bool caps_known;
	int cap_held[CAP_TABLE_LEN];
	struct uvm_hooks_info hooks;	/* driver version, series, UVM hooks */
	enum probe_flavour flavour;
	/* The kernel-patch/ next to this binary (a source tree), else "". */
	char kpatch_dir[256];
	bool kpatch_here;	/* kpatch_dir is ./kernel-patch */
	struct {
		bool loaded;
		bool btf;
		char version[64];
	} mod[PROBE_NMODULES];
	bool dev[PROBE_NDEVICES];
	struct {
		int ret;
		char module[64];
	} sops[POLICY_NKINDS];
	char kfunc_mod[PROBE_KFUNCS_MAX][64];
	char trace_mod[TB_BPF_ATTACH_NR][64];
	const char *trace_backend;
	struct {		/* each trace back-end's usable(), by enum tb_kind */
		bool ok;
		char reason[256];
	} tb[TB_KINDS];
	const char *rm_device;	/* the RM device trace tsg would use */
	bool rm_device_ok;
};

/* probe.c: the tables and the facts */
extern const char *const probe_modules[PROBE_NMODULES];
extern const char *const probe_devices[PROBE_NDEVICES];
size_t probe_nkfuncs(void);
const char *probe_kfunc_name(size_t i);
const char *probe_kfunc_what(size_t i);
void run_probe(struct probe *p);

/* probe_hints.c: what to do about each missing piece; NULL: nothing */
/* 1: held, 0: not held, -1: unknown (by capability number). */
int probe_cap(const struct probe *p, int cap);
/* CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN */
bool probe_bpf_caps(const struct probe *p);
/* Whether capability i of cap_table is needed on this kernel, as this user. */
bool probe_cap_needed(const struct probe *p, size_t i);
const char *hint_caps(const struct probe *p, char *buf, size_t len);
const char *hint_fentry(const struct probe *p, const struct fentry_result *r);
const char *hint_module(const struct probe *p, size_t i);
const char *hint_device(const struct probe *p, size_t i);
const char *hint_driver(const struct probe *p);
const char *hint_flavour(const struct probe *p);
const char *hint_hooks(const struct probe *p, char *buf, size_t len);
const char *hint_struct_ops(const struct probe *p, size_t i);
const char *hint_patched_driver(const struct probe *p);
/* rm (TSG events): usable here, and why not */
bool probe_rm_ok(const struct probe *p, char *why, size_t len);

/* probe_verdict.c */
void probe_verdict_text(const struct probe *p);
void probe_verdict_json(const struct probe *p);

/* probe_report.c: the details */
void probe_print_text(const struct probe *p);
void probe_print_json(const struct probe *p);

#endif
