// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - "gpuctl probe": what the running kernel and NVIDIA driver offer
 * gpuctl, and for every missing piece, what to do about it.  This file
 * gathers the facts (struct probe, probe_facts.h); the verdict (probe_verdict.c)
 * and the details (probe_report.c) are computed from them.  It only
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
#include "optsets.h"
#include "probe/probe_facts.h"
#include "rm.h"		/* rm_device_path */

/* ------------------------------------------------------------ the probe */

/* Common vmlinux functions for the fentry test, first found wins. */
static const char *const fentry_targets[] = { "vfs_read", "ksys_read", "do_sys_openat2" };

#define N(a) PROBE_N(a)

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

/*
 * The driver's kind (open or proprietary modules, from the first line of
 * /proc/driver/nvidia/version, read under $GPUCTL_SYSROOT as nvdrv.c reads
 * it; kernel-patch/scripts/install tells them apart the same way), and
 * whether this gpuctl runs from a source tree that has kernel-patch/.
 */
static void probe_driver(struct probe *p)
{
	const char *root = getenv("GPUCTL_SYSROOT");
	char path[PATH_MAX], line[256], exe[PATH_MAX], cwd[PATH_MAX], *slash;
	ssize_t n;

	uvm_hooks_probe(&p->hooks);
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/version", root ? root : "");
	if (read_line(path, line, sizeof(line)))
		p->flavour = strstr(line, "Open Kernel Module") ? FLAVOUR_OPEN :
			strstr(line, "Kernel Module") ? FLAVOUR_PROPRIETARY : FLAVOUR_UNKNOWN;
	else
		p->flavour = p->hooks.driver_version[0] ? FLAVOUR_UNKNOWN : FLAVOUR_NONE;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/kernel-patch/scripts/install", exe);
	if (!path_exists(path))
		return;
	snprintf(p->kpatch_dir, sizeof(p->kpatch_dir), "%s/kernel-patch", exe);
	p->kpatch_here = getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, exe);
}

void run_probe(struct probe *p)
{
	char line[64];

	memset(p, 0, sizeof(*p));
	uname(&p->uts);
	if (sscanf(p->uts.release, "%d.%d", &p->kmajor, &p->kminor) != 2)
		p->kmajor = p->kminor = 0;
	p->euid = geteuid();
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

	probe_driver(p);
	for (size_t i = 0; i < N(probe_modules); i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "/sys/module/%s", probe_modules[i]);
		p->mod[i].loaded = path_exists(path);
		snprintf(path, sizeof(path), "/sys/module/%s/version", probe_modules[i]);
		if (!read_line(path, p->mod[i].version, sizeof(p->mod[i].version)))
			p->mod[i].version[0] = '\0';
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", probe_modules[i]);
		p->mod[i].btf = path_exists(path);
	}
	for (size_t i = 0; i < N(probe_devices); i++)
		p->dev[i] = path_exists(probe_devices[i]);

	for (size_t i = 0; i < POLICY_NKINDS; i++)
		p->sops[i].ret = probe_struct_ops(policy_kinds_table[i]->st_type,
						  p->sops[i].module,
						  sizeof(p->sops[i].module));
	for (size_t i = 0; i < probe_nkfuncs(); i++)
		probe_btf_type(probe_kfunc_name(i), BTF_KIND_FUNC,
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

static const char *const probe_usage[] = { "probe [-j]", "probe help", NULL };

static const struct opt probe_rows[] = { { .name = NULL } };

const struct optset probe_opts = {
	.object = "probe",
	.usage = probe_usage,
	.about = "Reports what the running kernel and NVIDIA driver offer gpuctl.  First\n"
		 "the verdict, one line each for prefetch policies, the prefetch engine,\n"
		 "sched, trace/stat and the exporter: yes, or no and the one thing that\n"
		 "blocks it.  Then the details: BTF, bpffs, struct_ops and fentry support,\n"
		 "capabilities, the driver (open or proprietary modules, its kernel-patch\n"
		 "series), modules and devices, the policy struct_ops types and kfuncs,\n"
		 "the stock driver's trace attach points, and the GPUs.  Every missing\n"
		 "piece that matters here comes with what to do about it.  Exits 0 even\n"
		 "when pieces are missing.",
	.rows = probe_rows,
};

static int probe_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (json_output)
		return EXIT_OK;	/* run_command writes null */
	return opts_help(&probe_opts);
}

static const struct cmd probe_cmds[] = {
	{ "help", probe_help },
	{ NULL, NULL },
};

static int do_probe(int argc, char **argv)
{
	struct opts_result r;
	struct probe *p;

	if (argc > 0 && argv[0][0] != '-')
		return cmd_select(probe_cmds, argc, argv, "probe");
	if (opts_parse(&probe_opts, argc, argv, NULL, &r))
		return EXIT_USAGE;
	if (r.help)
		return EXIT_OK;

	p = calloc(1, sizeof(*p));
	if (!p) {
		p_err("out of memory");
		return EXIT_FAIL;
	}
	run_probe(p);
	if (json_output)
		probe_print_json(p);
	else
		probe_print_text(p);
	free(p);
	return EXIT_OK;
}

const struct object probe_object = { "probe", do_probe, probe_cmds, NULL };
