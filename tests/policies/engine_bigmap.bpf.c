// SPDX-License-Identifier: GPL-2.0
/* An engine policy asking for a 256 MiB map: over the cap (PFE_OBJ_MAX_BYTES). */
#include <linux/bpf.h>
#include "pfengine_abi.h"

PFE_ENGINE("a 256 MiB map");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, char[4092]);
} big SEC(".maps");

SEC("syscall")
int batch(void *ctx)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&big, &k) ? 0 : 1;
}
