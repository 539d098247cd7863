// SPDX-License-Identifier: GPL-2.0
/*
 * pinned.c - a running engine's policy, reached through the maps it pinned
 * (pfe_run_pin): `gpuctl prefetch set` writes one parameter into its
 * parameters' map, within the limits the object's .rodata declares, while
 * the engine runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "gpuctl.h"
#include "pfengine.h"
#include "btfvar.h"

/* The map pinned at dir/name with its BTF: fd, or -errno. */
static int pinned_map(const char *dir, const char *name, struct btf **btf, uint32_t *vsize,
		      uint32_t *value_type)
{
	struct bpf_map_info info = { 0 };
	uint32_t ilen = sizeof(info);
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_get_info_by_fd(fd, &info, &ilen) || !info.btf_id) {
		close(fd);
		return -ENOENT;
	}
	*btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!*btf) {
		close(fd);
		return -errno;
	}
	*vsize = info.value_size;
	*value_type = info.btf_value_type_id;
	return fd;
}

int pfe_pinned_set(const char *dir, const char *key, const char *value)
{
	struct btf *btf = NULL, *rbtf = NULL;
	uint32_t vsize, vt, rsize, rvt, zero = 0;
	unsigned long long v, lo = 0, hi = UINT64_MAX;
	struct pfe_var f, g;
	char info[96];
	uint8_t *val = NULL;
	int fd, rfd, ret = EXIT_FAIL;

	fd = pinned_map(dir, "params", &btf, &vsize, &vt);
	if (fd < 0) {
		p_err("this engine's policy has no parameters");
		return EXIT_FAIL;
	}
	if (!pfe_var_find(btf, PFE_SEC_PARAMS, key, &f) || f.size != 8) {
		char names[512];

		pfe_var_names(btf, PFE_SEC_PARAMS, names, sizeof(names));
		p_err("the engine's policy has no parameter '%s' (it has %s)", key, names);
		ret = EXIT_USAGE;
		goto out;
	}
	/* the limits, from its .rodata */
	rfd = pinned_map(dir, "rodata", &rbtf, &rsize, &rvt);
	if (rfd >= 0) {
		uint8_t *rv = calloc(1, rsize);

		snprintf(info, sizeof(info), PFE_PARAM_INFO_PREFIX "%s", key);
		if (rv && !bpf_map_lookup_elem(rfd, &zero, rv) && pfe_var_find(rbtf, ".rodata", info, &g) &&
		    g.size == sizeof(struct pfe_param_info) && g.off + g.size <= rsize) {
			const struct pfe_param_info *pi = (void *)(rv + g.off);

			lo = pi->min;
			hi = pi->max;
		}
		free(rv);
		close(rfd);
	}
	if (parse_u64(key, value, lo, hi, &v)) {
		ret = EXIT_USAGE;
		goto out;
	}
	val = calloc(1, vsize);
	if (!val || bpf_map_lookup_elem(fd, &zero, val)) {
		p_err("cannot read the engine's parameters: %s", strerror(errno));
		goto out;
	}
	memcpy(val + f.off, &(uint64_t){ v }, 8);
	if (bpf_map_update_elem(fd, &zero, val, 0)) {
		p_err("cannot write the engine's parameters: %s", strerror(errno));
		goto out;
	}
	ret = EXIT_OK;
out:
	free(val);
	btf__free(btf);
	btf__free(rbtf);
	close(fd);
	return ret;
}
