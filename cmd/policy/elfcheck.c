// SPDX-License-Identifier: GPL-2.0
/*
 * elfcheck.c - look at a user's policy object with libelf and a BTF walk of
 * our own before handing it to libbpf, so that a wrong file gets one error
 * line naming what is wrong rather than a libbpf or verifier failure, or
 * worse: libbpf 1.4 trusts the object's BTF in places (a struct_ops
 * member's offset, a type chain of any length) and reads past its buffers
 * or gives up with a message about type ids.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>

#include <bpf/btf.h>

#include "gpuctl.h"
#include "policy.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

/*
 * How far a type chain may go.  libbpf resolves a struct_ops variable's
 * type in at most 32 steps (MAX_RESOLVE_DEPTH) counting the variable: its
 * type may be behind at most 30 typedef/const/volatile levels.  The kernel
 * refuses an object's BTF holding a chain of more than 32 of them (E2BIG,
 * measured on 6.12: 32 loads, 33 does not).  Our own walk stops at
 * BTF_WALK_MAX.
 */
#define VAR_CHAIN_MAX 30
#define KERNEL_CHAIN_MAX 32
#define BTF_WALK_MAX 4096

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

static bool is_mod(const struct btf_type *t)
{
	return btf_is_mod(t) || btf_is_typedef(t);
}

const struct btf_type *btf_resolve(const struct btf *btf, __u32 id, __u32 *res, int *depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int n = 0;

	while (t && is_mod(t) && n < BTF_WALK_MAX) {
		id = t->type;
		t = btf__type_by_id(btf, id);
		n++;
	}
	if (depth)
		*depth = n;
	if (res)
		*res = id;
	return n < BTF_WALK_MAX ? t : NULL;
}

/* What t is, for an error: "int", "a union", "struct foo", ... */
static void describe(const struct btf *btf, const struct btf_type *t, char *buf, size_t len)
{
	const char *name = btf__name_by_offset(btf, t->name_off);
	bool named = name && *name;

	if (btf_is_struct(t) || btf_is_union(t) || btf_is_fwd(t)) {
		const char *what = btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ?
			"union" : "struct";

		if (btf_is_fwd(t))
			snprintf(buf, len, "a forward declaration of %s %s (never defined)", what,
				 named ? name : "?");
		else if (named && btf_is_struct(t))
			snprintf(buf, len, "struct %s", name);
		else if (named)
			snprintf(buf, len, "a union %s", name);
		else
			snprintf(buf, len, "an anonymous %s", what);
	} else if (btf_is_ptr(t)) {
		snprintf(buf, len, "a pointer");
	} else if (btf_is_array(t)) {
		snprintf(buf, len, "an array");
	} else if (named) {
		snprintf(buf, len, "%s", name);
	} else {
		snprintf(buf, len, "a type of BTF kind %u", btf_kind(t));
	}
}

/* Every member of struct t lies inside it (libbpf reads them unchecked). */
static int check_layout(const struct btf *btf, const struct btf_type *t, const char *path)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		int depth;
		const struct btf_type *mt = btf_resolve(btf, m->type, NULL, &depth);
		__s64 size = mt ? btf__resolve_size(btf, m->type) : -EINVAL;

		if (!mt || size < 0 || depth > KERNEL_CHAIN_MAX ||
		    (__u64)m->offset / 8 + (__u64)size > t->size) {
			p_err("%s: its BTF is inconsistent: member '%s' of struct %s lies outside it or has no size",
			      path, name ? name : "?", btf__name_by_offset(btf, t->name_off));
			return -1;
		}
	}
	return 0;
}

/* A chain longer than the kernel follows, anywhere in the object's BTF. */
static int check_chains(const struct btf *btf, const char *path)
{
	__u32 n = btf__type_cnt(btf);
	int depth;

	for (__u32 i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *name;

		if (!t || !is_mod(t))
			continue;
		if (btf_resolve(btf, i, NULL, &depth) && depth <= KERNEL_CHAIN_MAX)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		p_err("%s: its BTF has a typedef/const/volatile chain %s%d levels deep (from '%s'); "
		      "the kernel follows at most %d", path, depth >= BTF_WALK_MAX ? "over " : "",
		      depth, name && *name ? name : "?", KERNEL_CHAIN_MAX);
		return -1;
	}
	return 0;
}

/*
 * The one struct_ops variable of the object, checked: its type is struct
 * st_type, reached in few enough steps, laid out inside itself, in
 * section .struct_ops.link.  p_err and -1 otherwise.
 */
static int check_struct_ops(const struct btf *btf, const char *path, const char *st_type)
{
	char what[128], names[64] = "";
	const struct btf_type *found = NULL;
	const char *var = NULL, *sec = NULL;
	__u32 n = btf__type_cnt(btf);
	int vars = 0, depth = 0;

	for (__u32 i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_var_secinfo *vsi;
		const char *name;

		if (!t || !btf_is_datasec(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || strncmp(name, ".struct_ops", 11))
			continue;
		vsi = btf_var_secinfos(t);
		for (int j = 0; j < btf_vlen(t); j++, vsi++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi->type);
			const char *vname = v ? btf__name_by_offset(btf, v->name_off) : NULL;
			size_t used = strlen(names);

			if (!v || !btf_is_var(v) || !vname) {
				p_err("%s: its BTF is inconsistent: section %s holds type %u, not a variable",
				      path, name, vsi->type);
				return -1;
			}
			snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "", vname);
			if (vars++)
				continue;
			var = vname;
			sec = name;
			found = btf_resolve(btf, v->type, NULL, &depth);
			if (!found) {
				p_err("%s: its BTF is inconsistent: the type of variable '%s' %s", path,
				      vname, depth >= BTF_WALK_MAX ? "is a loop" : "does not exist");
				return -1;
			}
		}
	}
	if (vars == 0) {
		p_err("%s defines no struct_ops variable (SEC(\".struct_ops.link\") struct %s NAME = {...})",
		      path, st_type);
		return -1;
	}
	if (vars > 1) {
		p_err("%s defines %d struct_ops variables (%s); gpuctl loads exactly one", path, vars,
		      names);
		return -1;
	}
	describe(btf, found, what, sizeof(what));
	if (!btf_is_struct(found) || strcmp(btf__name_by_offset(btf, found->name_off), st_type)) {
		if (btf_is_struct(found) && found->name_off && *btf__name_by_offset(btf, found->name_off))
			p_err("%s implements %s, not struct %s", path, what, st_type);
		else
			p_err("%s: its struct_ops variable '%s' is %s, not struct %s", path, var, what,
			      st_type);
		return -1;
	}
	if (depth > VAR_CHAIN_MAX) {
		p_err("%s: the type of struct_ops variable '%s' is behind %d typedef/const/volatile levels; "
		      "libbpf resolves at most %d: declare it 'struct %s %s'", path, var, depth,
		      VAR_CHAIN_MAX, st_type, var);
		return -1;
	}
	if (strcmp(sec, ".struct_ops.link")) {
		p_err("%s: its struct_ops variable is in section %s; gpuctl pins and swaps only "
		      "SEC(\".struct_ops.link\")", path, sec);
		return -1;
	}
	return check_layout(btf, found, path);
}

static int check_btf(const Elf_Data *d, const char *path, const char *st_type)
{
	struct btf *btf;
	int err;

	libbpf_quiet_begin();
	btf = d->d_buf && d->d_size ? btf__new(d->d_buf, d->d_size) : NULL;
	libbpf_quiet_end();
	if (!btf) {
		p_err("%s: its BTF cannot be parsed", path);
		return -1;
	}
	err = check_struct_ops(btf, path, st_type) || check_chains(btf, path) ? -1 : 0;
	btf__free(btf);
	return err;
}

int elf_check_policy(const char *path, const void *bytes, size_t size, const char *st_type)
{
	bool license_ok = false, has_license = false, has_st = false;
	const char *name, *why = NULL;
	Elf_Data *btf_data = NULL;
	Elf_Scn *scn = NULL;
	Elf *elf = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	int ret = -1;

	elf_version(EV_CURRENT);
	/* libelf reads the image in place (a native-endian object is not converted) */
	elf = elf_memory((char *)bytes, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		p_err("%s is not an ELF file", path);
		goto out;
	}
	if (eh.e_machine != EM_BPF) {
		p_err("%s is an ELF object for machine %u, not BPF (build it with clang -target bpf)",
		      path, eh.e_machine);
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_REL) {
		p_err("%s is not a 64-bit relocatable BPF object (build it with clang -target bpf -c)",
		      path);
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
	ret = check_btf(btf_data, path, st_type);
out:
	if (elf)
		elf_end(elf);
	return ret;
}
