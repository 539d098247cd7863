// SPDX-License-Identifier: GPL-2.0
/*
 * An engine policy whose hash asks for 53 MiB of key + value bytes (8 bytes
 * an entry): with the kernel's element headers and buckets, over 500 MiB
 * (over the cap, PFE_OBJ_MAX_BYTES).
 */
#include <linux/bpf.h>
#include "pfengine_abi.h"

PFE_ENGINE("a 53 MiB hash");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 6946816);
	__type(key, __u32);
	__type(value, __u32);
} h SEC(".maps");

SEC("syscall")
int batch(void *ctx)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&h, &k) ? 0 : 1;
}
