// SPDX-License-Identifier: GPL-2.0
/* A BPF object with no struct_ops map at all. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("raw_tracepoint/sys_enter")
int plain(void *ctx)
{
	return 0;
}
