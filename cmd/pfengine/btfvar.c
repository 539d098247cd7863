// SPDX-License-Identifier: GPL-2.0
/*
 * btfvar.c - an engine policy's globals by their BTF names (btfvar.h): the
 * data sections' variables, walked from the object's or a map's BTF.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

#include "btfvar.h"

int pfe_var_each(const struct btf *btf, int (*fn)(const struct pfe_var *v, void *arg), void *arg)
{
	int n = btf ? (int)btf__type_cnt(btf) : 0;

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_var_secinfo *vs;

		if (!btf_is_datasec(t))
			continue;
		vs = btf_var_secinfos(t);
		for (int j = 0; j < btf_vlen(t); j++, vs++) {
			const struct btf_type *vt = btf__type_by_id(btf, vs->type);
			struct pfe_var v = { btf__name_by_offset(btf, t->name_off),
					     btf__name_by_offset(btf, vt->name_off), vs->offset,
					     vs->size };
			int ret = fn(&v, arg);

			if (ret)
				return ret;
		}
	}
	return 0;
}

struct find {
	const char *sec, *name;
	struct pfe_var *out;
};

static int find_cb(const struct pfe_var *v, void *arg)
{
	struct find *f = arg;

	if ((f->sec && strcmp(v->sec, f->sec)) || strcmp(v->name, f->name))
		return 0;
	*f->out = *v;
	return 1;
}

int pfe_var_find(const struct btf *btf, const char *sec, const char *name, struct pfe_var *out)
{
	struct find f = { sec, name, out };

	return pfe_var_each(btf, find_cb, &f) == 1;
}

struct names {
	char *buf;
	size_t n, len;
	const char *sec;
};

static int names_cb(const struct pfe_var *v, void *arg)
{
	struct names *nm = arg;

	if (!strcmp(v->sec, nm->sec) && nm->n < nm->len)
		nm->n += snprintf(nm->buf + nm->n, nm->len - nm->n, "%s%s", nm->n ? ", " : "",
				  v->name);
	return 0;
}

void pfe_var_names(const struct btf *btf, const char *sec, char *buf, size_t len)
{
	struct names nm = { buf, 0, len, sec };

	if (!len)
		return;
	buf[0] = '\0';
	pfe_var_each(btf, names_cb, &nm);
}
