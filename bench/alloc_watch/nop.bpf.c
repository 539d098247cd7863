// SPDX-License-Identifier: GPL-2.0
/* Two raw tracepoint programs that do nothing: what attaching to sys_enter/sys_exit costs by itself. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
char LICENSE[] SEC("license") = "GPL";
SEC("raw_tracepoint/sys_enter") int e(void *c) { return 0; }
SEC("raw_tracepoint/sys_exit") int x(void *c) { return 0; }
