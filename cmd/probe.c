// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - "gpuctl probe": what the running kernel and NVIDIA driver offer
 * gpuctl, and for every missing piece, what to do about it.  It only
 * reports: the look-ups are the shared layer's (cmd/lib), the trace
 * back-ends answer for themselves through their ops table.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/btf.h>
#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "nvdrv.h"
#include "policy/kinds.h"
#include "rm.h"		/* rm_device_path */
#include "probe_gpus.h"
#include "trace/backend.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* kernel-internal "operation not supported" */
#endif

#define HINT_PATCHED_DRIVER \
	"load a driver built with gpuctl's kernel-patch/ series (or, in the VM, the uvm_model module)"
#define HINT_ROOT "run as root or grant CAP_BPF and CAP_PERFMON"

/* ------------------------------------------------------------ the probe */

static const struct {
	const char *name;
	const char *what;
} kfunc_table[] = {	/* all the patch's (uvm_bpf_ext.c): test_house.sh compares */
	{ "bpf_uvm_set_va_block_region", "prefetch: set the region to prefetch" },
	{ "bpf_uvm_strstr", "policies matching process or kernel names" },
	{ "bpf_uvm_evict_move_head", "evict: move a chunk to the head of the eviction list" },
	{ "bpf_uvm_evict_move_tail", "evict: move a chunk to the tail of the eviction list" },
};

static const char *const module_table[] = { "nvidia", "nvidia_uvm", "uvm_model" };
static const char *const device_table[] = {
	"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
};
/* Common vmlinux functions for the fentry test, first found wins. */
static const char *const fentry_targets[] = { "vfs_read", "ksys_read", "do_sys_openat2" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

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
	char lockdown[32];
	int unpriv_bpf;		/* -1: unknown */
	bool vmlinux_btf;
	bool bpffs;
	bool struct_ops;	/* the kernel has struct_ops at all */
	bool struct_ops_modules;	/* modules may define struct_ops types (6.9+) */
	struct fentry_result fentry;
	struct fentry_result fentry_mod;
	bool caps_known;
	int cap_held[N(cap_table)];
	struct uvm_hooks_info hooks;	/* driver version, series, UVM hooks */
	struct {
		bool loaded;
		bool btf;
		char version[64];
	} mod[N(module_table)];
	bool dev[N(device_table)];
	struct {
		int ret;
		char module[64];
	} sops[POLICY_NKINDS];
	char kfunc_mod[N(kfunc_table)][64];
	char trace_mod[TB_BPF_ATTACH_NR][64];
	const char *trace_backend;
	struct {		/* each trace back-end's usable(), by enum tb_kind */
		bool ok;
		char reason[256];
	} tb[TB_KINDS];
	const char *rm_device;	/* the RM device trace tsg would use */
	bool rm_device_ok;
};

static bool path_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* First line of a small file, newline removed; false when unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static void probe_lockdown(struct probe *p)
{
	char line[128], *open, *close;

	snprintf(p->lockdown, sizeof(p->lockdown), "unknown");
	if (!read_line("/sys/kernel/security/lockdown", line, sizeof(line)))
		return;
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		*close = '\0';
		snprintf(p->lockdown, sizeof(p->lockdown), "%s", open + 1);
	}
}

/* The kernel's fd for the BTF object of module name, or -errno. */
static int module_btf_fd(const char *name)
{
	__u32 id = 0;
	int err;

	while (!(err = bpf_btf_get_next_id(id, &id))) {
		struct bpf_btf_info info = {};
		__u32 info_len = sizeof(info);
		char buf[64] = "";
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0) {
			if (errno == ENOENT)
				continue;	/* went away meanwhile */
			return -errno;
		}
		info.name = (__u64)(unsigned long)buf;
		info.name_len = sizeof(buf);
		if (!bpf_btf_get_info_by_fd(fd, &info, &info_len) &&
		    info.kernel_btf && !strcmp(buf, name))
			return fd;
		close(fd);
	}
	return -errno;
}

/*
 * Loads "return 0" as an fentry program on btf_id (in the BTF object
 * btf_obj_fd, 0 for vmlinux) and attaches it for a moment.
 */
static void try_fentry(struct fentry_result *r, int btf_id, int btf_obj_fd)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = btf_obj_fd);
	int prog_fd, link_fd;

	r->tried = true;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "gpuctl_probe", "GPL",
				insns, N(insns), &opts);
	if (prog_fd < 0) {
		r->err = errno;
		r->step = "load";
		return;
	}
	r->loads = true;
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link_fd < 0 && errno == EINVAL)	/* kernels without BPF links */
		link_fd = bpf_raw_tracepoint_open(NULL, prog_fd);
	if (link_fd < 0) {
		r->err = errno;
		r->step = "attach";
	} else {
		r->attaches = true;
		close(link_fd);
	}
	close(prog_fd);
}

static void probe_fentry(struct probe *p)
{
	const struct btf *btf;
	const char *mod;
	int id = -ENOENT;

	for (size_t i = 0; i < N(fentry_targets) && id < 0; i++) {
		id = kbtf_find(fentry_targets[i], BTF_KIND_FUNC, &btf, &mod);
		if (id > 0)
			snprintf(p->fentry.target, sizeof(p->fentry.target), "%s",
				 fentry_targets[i]);
	}
	if (id > 0)
		try_fentry(&p->fentry, id, 0);

	/* The stock driver's own functions: what the bpf trace backend needs. */
	for (size_t i = 0; i < TB_BPF_ATTACH_NR; i++) {
		int fd;

		if (!p->trace_mod[i][0] || !strcmp(p->trace_mod[i], "vmlinux"))
			continue;
		id = kbtf_find(tb_bpf_attach[i].func, BTF_KIND_FUNC, &btf, &mod);
		if (id < 0)
			continue;
		snprintf(p->fentry_mod.target, sizeof(p->fentry_mod.target), "%s:%s",
			 mod, tb_bpf_attach[i].func);
		fd = module_btf_fd(mod);
		if (fd < 0) {
			p->fentry_mod.tried = true;
			p->fentry_mod.err = -fd;
			p->fentry_mod.step = "module BTF";
		} else {
			try_fentry(&p->fentry_mod, id, fd);
			close(fd);
		}
		break;
	}
}

static void run_probe(struct probe *p)
{
	char line[64];

	memset(p, 0, sizeof(*p));
	uname(&p->uts);
	probe_lockdown(p);
	p->unpriv_bpf = -1;
	if (read_line("/proc/sys/kernel/unprivileged_bpf_disabled", line, sizeof(line)))
		p->unpriv_bpf = atoi(line);

	const struct btf *vmlinux_btf = kbtf_vmlinux();

	p->vmlinux_btf = vmlinux_btf != NULL;
	p->bpffs = bpffs_mounted();
	if (vmlinux_btf) {
		/* 5.6 added struct_ops; 6.9 let modules register their own types. */
		p->struct_ops_modules =
			btf__find_by_name_kind(vmlinux_btf, "bpf_struct_ops_common_value",
					       BTF_KIND_STRUCT) > 0;
		p->struct_ops = p->struct_ops_modules ||
			btf__find_by_name_kind(vmlinux_btf, "bpf_struct_ops_value",
					       BTF_KIND_STRUCT) > 0 ||
			btf__find_by_name_kind(vmlinux_btf, "bpf_struct_ops",
					       BTF_KIND_STRUCT) > 0;
	}

	p->caps_known = cap_held(CAP_SYS_ADMIN) >= 0;
	for (size_t i = 0; i < N(cap_table) && p->caps_known; i++)
		p->cap_held[i] = cap_held(cap_table[i].cap);

	uvm_hooks_probe(&p->hooks);
	for (size_t i = 0; i < N(module_table); i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "/sys/module/%s", module_table[i]);
		p->mod[i].loaded = path_exists(path);
		snprintf(path, sizeof(path), "/sys/module/%s/version", module_table[i]);
		if (!read_line(path, p->mod[i].version, sizeof(p->mod[i].version)))
			p->mod[i].version[0] = '\0';
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module_table[i]);
		p->mod[i].btf = path_exists(path);
	}
	for (size_t i = 0; i < N(device_table); i++)
		p->dev[i] = path_exists(device_table[i]);

	for (size_t i = 0; i < POLICY_NKINDS; i++)
		p->sops[i].ret = probe_struct_ops(policy_kinds_table[i]->st_type,
						  p->sops[i].module,
						  sizeof(p->sops[i].module));
	for (size_t i = 0; i < N(kfunc_table); i++)
		probe_btf_type(kfunc_table[i].name, BTF_KIND_FUNC,
			       p->kfunc_mod[i], sizeof(p->kfunc_mod[i]));
	for (size_t i = 0; i < TB_BPF_ATTACH_NR; i++)
		probe_btf_type(tb_bpf_attach[i].func, BTF_KIND_FUNC,
			       p->trace_mod[i], sizeof(p->trace_mod[i]));

	probe_fentry(p);

	for (int k = TB_AUTO + 1; k < TB_KINDS; k++)
		p->tb[k].ok = tb_backends[k]->usable(p->tb[k].reason, sizeof(p->tb[k].reason));
	p->rm_device = rm_device_path(NULL);
	p->rm_device_ok = path_exists(p->rm_device);
	/* What trace chooses system-wide, and for -p PID. */
	if (p->tb[TB_BPF].ok)
		p->trace_backend = "bpf";
	else if (p->tb[TB_UVM_TOOLS].ok)
		p->trace_backend = "uvm-tools";
	else
		p->trace_backend = NULL;
}

/* ------------------------------------------------------------ hints */

static const char *hint_fentry(const struct probe *p, const struct fentry_result *r)
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
		if (p->caps_known && p->cap_held[0] > 0 && p->cap_held[1] > 0)
			return "refused although CAP_BPF and CAP_PERFMON are held: a container, "
			       "seccomp or LSM policy blocks bpf(); use the uvm-tools trace backend";
		return HINT_ROOT;
	case ENOTSUPP:
	case EOPNOTSUPP:
		return "the kernel has no BPF trampoline for this target; "
		       "use the uvm-tools trace backend";
	default:
		return "use the uvm-tools trace backend; run with -d to see libbpf's view";
	}
}

static const char *hint_module(const struct probe *p, size_t i)
{
	if (p->mod[i].loaded)
		return p->mod[i].btf ? NULL :
			"the module has no BTF: rebuild it with CONFIG_DEBUG_INFO_BTF_MODULES=y";
	if (!strcmp(module_table[i], "uvm_model"))
		return NULL;	/* only in the test VM */
	if (!strcmp(module_table[i], "nvidia_uvm"))
		return "modprobe nvidia-uvm";
	return "install and load the NVIDIA driver (modprobe nvidia)";
}

static const char *hint_device(const struct probe *p, size_t i)
{
	if (p->dev[i])
		return NULL;
	if (!strcmp(device_table[i], "/dev/nvidiactl"))
		return "nvidia-modprobe -c 0 (or run any CUDA program) to create it";
	return "nvidia-modprobe -u -c 0 (or run any CUDA program) to create it";
}

static const char *hint_struct_ops(const struct probe *p, size_t i)
{
	if (p->sops[i].ret == 0)
		return NULL;
	if (!p->vmlinux_btf)
		return "the kernel needs BTF (CONFIG_DEBUG_INFO_BTF=y)";
	if (!p->struct_ops_modules)
		return "struct_ops types defined by modules need Linux 6.9 or later";
	if (p->sops[i].ret == -EOPNOTSUPP)
		return "the type is there but not registered as struct_ops: " HINT_PATCHED_DRIVER;
	return HINT_PATCHED_DRIVER;
}

/* ------------------------------------------------------------ output */

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
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

/* nvidia: driver, hooks, modules, devices */
static void json_nvidia(const struct probe *p)
{
	json_writer_t *w = json_wtr;

	jsonw_name(w, "nvidia");
	jsonw_start_object(w);
	jsonw_string_field(w, "driver_version",
			   p->hooks.driver_version[0] ? p->hooks.driver_version : NULL);
	jsonw_name(w, "uvm_hooks");	/* abi, module: null without hooks */
	jsonw_start_object(w);
	jsonw_int_field(w, "gpuctl_abi", UVM_HOOKS_ABI);
	jsonw_string_field(w, "series", p->hooks.series);
	jsonw_string_field(w, "module", p->hooks.abi ? p->hooks.module : NULL);
	if (p->hooks.abi)
		jsonw_int_field(w, "abi", p->hooks.abi);
	else
		jsonw_null_field(w, "abi");
	json_hint(p->hooks.hint);
	jsonw_end_object(w);
	jsonw_name(w, "modules");
	jsonw_start_array(w);
	for (size_t i = 0; i < N(module_table); i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", module_table[i]);
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
	for (size_t i = 0; i < N(device_table); i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "path", device_table[i]);
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
	for (size_t i = 0; i < N(kfunc_table); i++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "name", kfunc_table[i].name);
		jsonw_string_field(w, "used_for", kfunc_table[i].what);
		jsonw_bool_field(w, "found", p->kfunc_mod[i][0]);
		jsonw_string_field(w, "module", p->kfunc_mod[i][0] ? p->kfunc_mod[i] : NULL);
		json_hint(p->kfunc_mod[i][0] ? NULL : HINT_PATCHED_DRIVER);
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
		jsonw_bool_field(w, "available", p->tb[k].ok);
		jsonw_string_field(w, "reason", p->tb[k].ok ? NULL : p->tb[k].reason);
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

static void print_json(const struct probe *p)
{
	jsonw_start_object(json_wtr);
	json_host(p);
	json_nvidia(p);
	json_hooks_and_trace(p);
	probe_gpus_json(json_wtr);
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
	char value[320], hint[320];

	if (!p->tb[TB_RM].ok) {
		line("  rm (TSG events)", "no", p->tb[TB_RM].reason);
		return;
	}
	snprintf(value, sizeof(value), "yes (raw tracepoints; RM device %s%s)", p->rm_device,
		 p->rm_device_ok ? "" : " missing");
	snprintf(hint, sizeof(hint), "load the NVIDIA driver, or name the RM device with "
		 "--device PATH or $GPUCTL_RM_DEVICE");
	line("  rm (TSG events)", value, p->rm_device_ok ? NULL : hint);
}

/* kernel, bpf, capabilities */
static void text_host(const struct probe *p)
{
	char value[256];

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
		snprintf(value, sizeof(value), "%s: %s",
			 !p->caps_known || p->cap_held[i] < 0 ? "unknown" :
			 p->cap_held[i] ? "yes" : "no", cap_table[i].needed_for);
		line(cap_table[i].name, value,
		     p->caps_known && p->cap_held[i] == 0 ?
		     "run as root or grant it (setcap, capsh, systemd AmbientCapabilities=)" : NULL);
	}
}

/* nvidia: driver, hooks, modules, devices */
static void text_nvidia(const struct probe *p)
{
	char value[256];

	printf("\nnvidia\n");
	line("driver version", p->hooks.driver_version[0] ? p->hooks.driver_version : "none",
	     p->hooks.driver_version[0] ? NULL : "install and load the NVIDIA driver");
	snprintf(value, sizeof(value), "%s%s", p->hooks.series ? p->hooks.series : "none",
		 p->hooks.series && !p->hooks.series_exact ? " (same branch)" : "");
	line("kernel-patch series", value, NULL);
	if (p->hooks.abi)
		snprintf(value, sizeof(value), "yes (%s, ABI %d)", p->hooks.module, p->hooks.abi);
	else
		snprintf(value, sizeof(value), "no");
	line("UVM hooks", value, p->hooks.hint);
	for (size_t i = 0; i < N(module_table); i++) {
		char label[64];

		snprintf(label, sizeof(label), "module %s", module_table[i]);
		if (p->mod[i].loaded)
			snprintf(value, sizeof(value), "loaded%s%s%s, BTF %s",
				 p->mod[i].version[0] ? " (" : "", p->mod[i].version,
				 p->mod[i].version[0] ? ")" : "",
				 p->mod[i].btf ? "yes" : "no");
		else
			snprintf(value, sizeof(value), "not loaded");
		line(label, value, hint_module(p, i));
	}
	for (size_t i = 0; i < N(device_table); i++)
		line(device_table[i], p->dev[i] ? "present" : "missing", hint_device(p, i));
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
	for (size_t i = 0; i < N(kfunc_table); i++) {
		if (p->kfunc_mod[i][0])
			snprintf(value, sizeof(value), "yes (%s)", p->kfunc_mod[i]);
		else
			snprintf(value, sizeof(value), "no: %s", kfunc_table[i].what);
		line(kfunc_table[i].name, value, p->kfunc_mod[i][0] ? NULL : HINT_PATCHED_DRIVER);
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
	if (!any)
		printf("  %-40s -> %s\n", "",
		       "load nvidia_uvm with module BTF (or uvm_model in the VM) for the bpf trace backend");
	line("trace backend", p->trace_backend ? p->trace_backend : "none",
	     p->trace_backend ? NULL :
	     "load nvidia_uvm and start a CUDA program (uvm-tools backend), or fix fentry above (bpf backend)");
	line("  bpf (system-wide)", p->tb[TB_BPF].ok ? "yes" : "no",
	     p->tb[TB_BPF].ok ? NULL : p->tb[TB_BPF].reason);
	line("  uvm-tools (one process)", p->tb[TB_UVM_TOOLS].ok ? "yes" : "no",
	     p->tb[TB_UVM_TOOLS].ok ? NULL : "/dev/nvidia-uvm-tools missing (nvidia-modprobe -u)");
	text_rm(p);
	line("  chosen for -p PID", p->tb[TB_UVM_TOOLS].ok ? "uvm-tools" :
	     p->tb[TB_BPF].ok ? "bpf" : "none", NULL);
	probe_gpus_text();
}

static void print_text(const struct probe *p)
{
	text_host(p);
	text_nvidia(p);
	text_hooks_and_trace(p);
}

static int probe_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output)
		return EXIT_OK;	/* run_command writes null */
	fprintf(stdout,
		"Usage: %1$s probe\n"
		"       %1$s probe help\n"
		"\n"
		"Reports what the running kernel and NVIDIA driver offer gpuctl:\n"
		"BTF, bpffs, struct_ops and fentry support, capabilities, driver\n"
		"modules and devices, the policy struct_ops types and kfuncs, and\n"
		"the stock driver's trace attach points, and the GPUs.  Every missing piece comes\n"
		"with what to do about it.  Exits 0 even when pieces are missing.\n",
		bin_name);
	return EXIT_OK;
}

static const struct cmd probe_cmds[] = {
	{ "help", probe_help },
	{ NULL, NULL },
};

static int do_probe(int argc, char **argv)
{
	struct probe *p;

	if (argc > 0)
		return cmd_select(probe_cmds, argc, argv, "probe");

	p = calloc(1, sizeof(*p));
	if (!p) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	run_probe(p);
	if (json_output)
		print_json(p);
	else
		print_text(p);
	free(p);
	return EXIT_OK;
}

const struct object probe_object = { "probe", do_probe, probe_cmds, NULL };
