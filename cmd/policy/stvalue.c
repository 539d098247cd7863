// SPDX-License-Identifier: GPL-2.0
/*
 * stvalue.c - the value of a struct_ops map, written before a hot swap
 * puts the map behind the pinned link.
 *
 * The kernel swaps only a map whose value was written: its struct
 * bpf_struct_ops_<type>, whose data member holds the policy's struct with
 * each function pointer replaced by a program fd.  libbpf writes it only
 * in bpf_map__attach_struct_ops() (which also makes a new link: not a
 * swap) and bpf_link__update_map(), which wants the struct_ops link object
 * of the process that attached; a later gpuctl only has the link's pin,
 * and a link opened from a pin is a plain bpf_link (given to
 * bpf_link__update_map(), libbpf wrote past its end).  So the value is
 * built here as libbpf builds it on attach: member by member, matched by
 * name, from the object's variable (bpf_map__initial_value(): its bytes,
 * with the program of each function pointer member) into the kernel's
 * layout.  bpf_object__load() has checked that every member matches.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "gpuctl.h"
#include "policy.h"

static const struct btf_member *member_by_name(const struct btf *btf, const struct btf_type *t,
					       const char *name)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name))
			return m;
	}
	return NULL;
}

/* The struct type of the object's struct_ops variable map_name. */
static const struct btf_type *var_struct(const struct btf *btf, const char *map_name)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i), *v;
		const struct btf_var_secinfo *vsi;
		const char *name;

		if (!t || !btf_is_datasec(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || strncmp(name, ".struct_ops", 11))
			continue;
		vsi = btf_var_secinfos(t);
		for (int j = 0; j < btf_vlen(t); j++, vsi++) {
			v = btf__type_by_id(btf, vsi->type);
			name = v ? btf__name_by_offset(btf, v->name_off) : NULL;
			if (!name || strcmp(name, map_name) || !btf_is_var(v))
				continue;
			v = btf_resolve(btf, v->type, NULL, NULL);
			return v && btf_is_struct(v) ? v : NULL;
		}
	}
	return NULL;
}

/* Fills kdata (the kernel's struct, ksize bytes) from the object's variable. */
static int fill(const struct btf *btf, const struct btf_type *t, const void *data, size_t dsize,
		const struct btf *kbtf, const struct btf_type *kt, void *kdata, size_t ksize)
{
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		const struct btf_member *km;
		const struct btf_type *mt;
		__s64 msize, kmsize;
		size_t off, koff;

		km = name ? member_by_name(kbtf, kt, name) : NULL;
		if (!km)
			continue;	/* absent in the kernel: zero (libbpf checked) */
		off = m->offset / 8;
		koff = km->offset / 8;
		mt = btf_resolve(btf, m->type, NULL, NULL);
		if (!mt)
			return -EINVAL;
		if (btf_is_ptr(mt)) {
			const struct bpf_program *prog;

			if (off + sizeof(prog) > dsize || koff + sizeof(unsigned long) > ksize)
				return -EINVAL;
			memcpy(&prog, (const char *)data + off, sizeof(prog));
			if (prog) {
				unsigned long fd = (unsigned long)bpf_program__fd(prog);

				memcpy((char *)kdata + koff, &fd, sizeof(fd));
			}
			continue;
		}
		msize = btf__resolve_size(btf, m->type);
		kmsize = btf__resolve_size(kbtf, km->type);
		if (msize < 0 || msize != kmsize || off + msize > dsize || koff + msize > ksize)
			return -EINVAL;
		memcpy((char *)kdata + koff, (const char *)data + off, msize);
	}
	return 0;
}

int st_map_prepare(struct bpf_object *obj, const char *map_name, int map_fd)
{
	struct bpf_map_info info = {};
	__u32 ilen = sizeof(info), zero = 0;
	const struct btf_type *vt, *kt, *t;
	const struct btf_member *dm;
	struct btf *vmlinux = NULL, *kbtf = NULL;
	const struct bpf_map *map;
	const struct btf *btf;
	const void *data;
	void *value = NULL;
	size_t dsize = 0;
	int err = -EINVAL;

	if (bpf_map_get_info_by_fd(map_fd, &info, &ilen))
		return -errno;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return -errno;
	kbtf = info.btf_vmlinux_id ? btf__load_from_kernel_by_id_split(info.btf_vmlinux_id, vmlinux)
				   : vmlinux;
	if (!kbtf) {
		err = -errno;
		goto out;
	}
	btf = bpf_object__btf(obj);
	map = bpf_object__find_map_by_name(obj, map_name);
	data = map ? bpf_map__initial_value(map, &dsize) : NULL;
	vt = btf__type_by_id(kbtf, info.btf_vmlinux_value_type_id);
	t = btf ? var_struct(btf, map_name) : NULL;
	if (!data || !t || !vt || !btf_is_struct(vt) || vt->size != info.value_size)
		goto out;
	dm = member_by_name(kbtf, vt, "data");
	kt = dm ? btf_resolve(kbtf, dm->type, NULL, NULL) : NULL;
	if (!kt || !btf_is_struct(kt) || dm->offset / 8 + kt->size > vt->size)
		goto out;
	value = calloc(1, info.value_size);
	if (!value) {
		err = -ENOMEM;
		goto out;
	}
	err = fill(btf, t, data, dsize, kbtf, kt, (char *)value + dm->offset / 8, kt->size);
	if (!err && bpf_map_update_elem(map_fd, &zero, value, 0))
		err = -errno;
out:
	free(value);
	if (kbtf && kbtf != vmlinux)
		btf__free(kbtf);
	btf__free(vmlinux);
	return err;
}
