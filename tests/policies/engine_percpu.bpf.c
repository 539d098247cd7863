// SPDX-License-Identifier: GPL-2.0
/*
 * An engine policy whose per-CPU array asks for 56 MiB of key + value bytes:
 * the kernel keeps a value for every possible CPU, 112 MiB on 2 CPUs and
 * 7 GiB on 128 (over the cap, PFE_OBJ_MAX_BYTES, on any host with 2 or more).
 */
#include <linux/bpf.h>
#include "pfengine_abi.h"

PFE_ENGINE("a 56 MiB per-CPU array");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 14336);
	__type(key, __u32);
	__type(value, char[4092]);
} pcpu SEC(".maps");

SEC("syscall")
int batch(void *ctx)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&pcpu, &k) ? 0 : 1;
}
