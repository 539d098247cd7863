// SPDX-License-Identifier: GPL-2.0
/*
 * nvdrv.c - the NVIDIA driver as gpuctl's kernel-patch/ sees it: the loaded
 * driver's version, the series kernel-patch/ has for it, and the ABI version
 * of the BPF hooks a loaded UVM module carries.
 *
 * The version files are read under $GPUCTL_SYSROOT when it is set, so tests
 * can give fake /sys and /proc trees. The ABI version comes from the
 * running kernel's BTF (enum uvm_bpf_ext_abi, see
 * kernel-patch/nvidia-uvm/uvm_bpf_ext.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "gpuctl.h"
#include "nvdrv.h"

/* kernel-patch/versions/list; tests/unit/test_kernel_patch.sh keeps them equal. */
const char *const kpatch_versions[] = { "550.163.01", "580.142", "595.45.04", NULL };

/* Reads the first line of $GPUCTL_SYSROOT/path into buf, newline cut. */
static int read_first_line(const char *path, char *buf, size_t len)
{
	const char *root = getenv("GPUCTL_SYSROOT");
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	f = fopen(full, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -ENODATA;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "580.159.04": digits and dots, at least one dot. */
static bool is_version(const char *s, size_t n)
{
	bool dot = false;

	if (!n || s[0] < '0' || s[0] > '9')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.')
			dot = true;
		else if (s[i] < '0' || s[i] > '9')
			return false;
	}
	return dot;
}

int nv_driver_version(char *buf, size_t len)
{
	char line[256];

	buf[0] = '\0';
	if (!read_first_line("/sys/module/nvidia/version", line, sizeof(line)) &&
	    is_version(line, strlen(line))) {
		copy_name(buf, len, line);
		return 0;
	}
	/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..." */
	if (read_first_line("/proc/driver/nvidia/version", line, sizeof(line)))
		return -ENOENT;
	for (char *save = NULL, *tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (is_version(tok, strlen(tok))) {
			copy_name(buf, len, tok);
			return 0;
		}
	}
	return -ENOENT;
}

static const char *kpatch_series(const char *version, bool *exact)
{
	size_t branch = strcspn(version, ".");

	for (size_t i = 0; kpatch_versions[i]; i++) {
		if (!strcmp(kpatch_versions[i], version)) {
			*exact = true;
			return kpatch_versions[i];
		}
	}
	*exact = false;
	/* Same branch: the series may apply (make -C kernel-patch install checks). */
	for (size_t i = 0; kpatch_versions[i] && version[branch] == '.'; i++) {
		if (!strncmp(kpatch_versions[i], version, branch + 1))
			return kpatch_versions[i];
	}
	return NULL;
}

static int uvm_hooks_abi(char *module, size_t len)
{
	const struct btf *btf;
	const struct btf_type *t;
	const char *mod;
	int id;

	if (module && len)
		module[0] = '\0';
	id = kbtf_find("uvm_bpf_ext_abi", BTF_KIND_ENUM, &btf, &mod);
	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, id);
	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_enum *e = btf_enum(t) + i;

		if (!strcmp(btf__name_by_offset(btf, e->name_off), "UVM_BPF_EXT_ABI_VERSION")) {
			if (module)
				copy_name(module, len, mod ? mod : "vmlinux");
			return e->val > 0 ? e->val : 0;
		}
	}
	return 0;
}

static const char *uvm_hooks_hint(const char *version, int abi, char *buf, size_t len)
{
	const char *series;
	bool exact;

	if (abi == UVM_HOOKS_ABI)
		return NULL;
	if (abi) {
		snprintf(buf, len, "the module's hooks speak ABI %d, this gpuctl ABI %d: "
			 "build both from one gpuctl checkout (make -C kernel-patch install)",
			 abi, UVM_HOOKS_ABI);
		return buf;
	}
	if (!version || !version[0])
		return "load the NVIDIA driver, then: make -C kernel-patch install";
	series = kpatch_series(version, &exact);
	if (!series) {
		size_t n = 0;

		n += snprintf(buf + n, len - n, "NVIDIA %s has no kernel-patch series (", version);
		for (size_t i = 0; kpatch_versions[i] && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%s", i ? " " : "", kpatch_versions[i]);
		if (n < len)
			snprintf(buf + n, len - n, "): policies need one of those drivers");
		return buf;
	}
	snprintf(buf, len, "build a patched nvidia-uvm for %s and swap it in: make -C kernel-patch install "
		 "(series %s%s; see kernel-patch/README.md)", version, series,
		 exact ? "" : ", same branch, used if it applies without fuzz");
	return buf;
}

void uvm_hooks_probe(struct uvm_hooks_info *h)
{
	memset(h, 0, sizeof(*h));
	nv_driver_version(h->driver_version, sizeof(h->driver_version));
	if (h->driver_version[0])
		h->series = kpatch_series(h->driver_version, &h->series_exact);
	h->abi = uvm_hooks_abi(h->module, sizeof(h->module));
	h->hint = uvm_hooks_hint(h->driver_version, h->abi, h->hint_buf, sizeof(h->hint_buf));
}
