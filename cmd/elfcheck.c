// SPDX-License-Identifier: GPL-2.0
/*
 * elfcheck.c - look at a user's policy object with libelf before handing it
 * to libbpf, so that a wrong file gets an error naming what is wrong rather
 * than a verifier or relocation failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "gpuctl.h"
#include "policy.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

static const char *const gpl_licenses[] = {
	"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL",
	"Dual MIT/GPL", "Dual MPL/GPL", NULL,
};

static bool gpl_compatible(const char *lic, size_t len)
{
	const char *const *l;

	for (l = gpl_licenses; *l; l++)
		if (strnlen(lic, len) == strlen(*l) && !strncmp(lic, *l, len))
			return true;
	return false;
}

/* The struct type names of the variables in the .struct_ops* sections. */
static int struct_ops_types(const void *data, size_t size, const char *st_type,
			    char *found, size_t flen)
{
	struct btf *btf = btf__new(data, size);
	const struct btf_var_secinfo *vsi;
	const struct btf_type *t, *v;
	const char *name;
	int i, j, n, matches = 0;

	if (!btf)
		return -1;
	found[0] = 0;
	n = (int)btf__type_cnt(btf);
	for (i = 1; i < n; i++) {
		t = btf__type_by_id(btf, i);
		name = btf__name_by_offset(btf, t->name_off);
		if (!btf_is_datasec(t) || strncmp(name, ".struct_ops", 11))
			continue;
		vsi = btf_var_secinfos(t);
		for (j = 0; j < btf_vlen(t); j++, vsi++) {
			v = btf__type_by_id(btf, vsi->type);
			v = btf__type_by_id(btf, btf__resolve_type(btf, v->type));
			name = btf__name_by_offset(btf, v->name_off);
			if (!strcmp(name, st_type))
				matches++;
			else if (!found[0])
				snprintf(found, flen, "%s", name);
		}
	}
	btf__free(btf);
	return matches;
}

int elf_check_policy(const char *path, const char *st_type)
{
	Elf_Data *btf_data = NULL;
	bool license_ok = false, has_license = false, has_st = false;
	char other[64] = "";
	const char *name, *why = NULL;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	int fd, ret = -1, n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		p_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		p_err("%s is not an ELF file", path);
		goto out;
	}
	if (eh.e_machine != EM_BPF) {
		p_err("%s is an ELF object for machine %u, not BPF (build it with clang -target bpf)",
		      path, eh.e_machine);
		goto out;
	}
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		p_err("%s: cannot read its section names", path);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, "license")) {
			d = elf_getdata(scn, NULL);
			has_license = true;
			license_ok = d && d->d_buf && gpl_compatible(d->d_buf, d->d_size);
		} else if (!strncmp(name, ".struct_ops", 11)) {
			has_st = true;
		} else if (!strcmp(name, ".BTF")) {
			btf_data = elf_getdata(scn, NULL);
		}
	}

	if (!has_st)
		why = "defines no struct_ops map (SEC(\".struct_ops.link\"))";
	else if (!btf_data)
		why = "has no BTF (compile with clang -g)";
	else if (!has_license)
		why = "has no license section; struct_ops programs must be GPL-compatible";
	else if (!license_ok)
		why = "is not under a GPL-compatible license";
	if (why) {
		p_err("%s %s", path, why);
		goto out;
	}
	n = struct_ops_types(btf_data->d_buf, btf_data->d_size, st_type, other, sizeof(other));
	if (n < 0) {
		p_err("%s: its BTF cannot be parsed", path);
		goto out;
	}
	if (n == 0) {
		p_err("%s implements struct %s, not struct %s", path,
		      other[0] ? other : "(unknown)", st_type);
		goto out;
	}
	ret = 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
