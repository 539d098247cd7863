// SPDX-License-Identifier: GPL-2.0
/*
 * btf.c - the running kernel's BTF (vmlinux and every module), loaded once
 * per process, and the look-ups commands make before they load anything:
 * a named type, a registered struct_ops type, a kfunc or attach point.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"

#define SYS_BTF_DIR "/sys/kernel/btf"

/* ------------------------------------------------------------ BTF cache */

struct mod_btf {
	char name[64];
	struct btf *btf;
};

static struct btf *vmlinux_btf;
static struct mod_btf *mods;
static int nr_mods;
static bool btf_loaded;

void copy_name(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!dst || !len)
		return;
	n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int mod_cmp(const void *a, const void *b)
{
	const struct mod_btf *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Loads vmlinux BTF and every module's split BTF, once per process. */
static void load_kernel_btf(void)
{
	struct dirent *de;
	DIR *dir;

	if (btf_loaded)
		return;
	btf_loaded = true;

	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf) {
		vmlinux_btf = NULL;
		return;
	}
	dir = opendir(SYS_BTF_DIR);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char path[PATH_MAX];
		struct mod_btf *m;
		struct btf *btf;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), SYS_BTF_DIR "/%s", de->d_name);
		btf = btf__parse_split(path, vmlinux_btf);
		if (!btf)
			continue;
		m = realloc(mods, (nr_mods + 1) * sizeof(*mods));
		if (!m) {
			btf__free(btf);
			break;
		}
		mods = m;
		copy_name(mods[nr_mods].name, sizeof(mods[nr_mods].name), de->d_name);
		mods[nr_mods].btf = btf;
		nr_mods++;
	}
	closedir(dir);
	/* A stable order; kbtf_find() looks at the NVIDIA modules first. */
	if (nr_mods)
		qsort(mods, nr_mods, sizeof(*mods), mod_cmp);
}

/*
 * Finds name of kind; *where gets the BTF that holds it (vmlinux or a
 * module's).  Returns the type id, or -ENOENT.
 */
int kbtf_find(const char *name, int kind, const struct btf **where,
	      const char **mod_name)
{
	static const char *const first[] = { "nvidia_uvm", "uvm_model", "nvidia" };
	int id;

	load_kernel_btf();
	if (!vmlinux_btf)
		return -ENOENT;
	id = btf__find_by_name_kind(vmlinux_btf, name, kind);
	if (id > 0) {
		*where = vmlinux_btf;
		*mod_name = "vmlinux";
		return id;
	}
	/* A split BTF also finds the base's types; vmlinux had none of them. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < nr_mods; i++) {
			bool preferred = false;

			for (size_t j = 0; j < sizeof(first) / sizeof(first[0]); j++)
				if (!strcmp(mods[i].name, first[j]))
					preferred = true;
			if (preferred != (pass == 0))
				continue;
			id = btf__find_by_name_kind(mods[i].btf, name, kind);
			if (id > 0) {
				*where = mods[i].btf;
				*mod_name = mods[i].name;
				return id;
			}
		}
	}
	return -ENOENT;
}

int probe_btf_type(const char *name, int kind, char *module, size_t len)
{
	const struct btf *btf;
	const char *mod;

	if (kbtf_find(name, kind, &btf, &mod) < 0)
		return -ENOENT;
	copy_name(module, len, mod);
	return 0;
}

int probe_struct_ops(const char *type, char *module, size_t len)
{
	const struct btf *btf;
	const char *mod;
	char value[256];

	if (kbtf_find(type, BTF_KIND_STRUCT, &btf, &mod) < 0)
		return -ENOENT;
	copy_name(module, len, mod);
	/* Registering a struct_ops type adds "struct bpf_struct_ops_<type>". */
	snprintf(value, sizeof(value), "bpf_struct_ops_%s", type);
	if (btf__find_by_name_kind(btf, value, BTF_KIND_STRUCT) <= 0)
		return -EOPNOTSUPP;
	return 0;
}

const struct btf *kbtf_vmlinux(void)
{
	load_kernel_btf();
	return vmlinux_btf;
}
