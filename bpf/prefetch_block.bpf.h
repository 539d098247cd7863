/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prefetch_block.bpf.h - which VA block a prefetch decision is for.
 *
 * The prefetch hooks do not name the block.  The driver computes the hint
 * of one block in uvm_perf_prefetch_get_hint_va_block(va_block, ...), and
 * the hooks run inside it, in the same task: an fentry program notes the
 * block per task, the policy reads it back.  Works on nvidia_uvm and on the
 * test model alike (CO-RE on struct uvm_va_block_struct).
 */
#ifndef PREFETCH_BLOCK_BPF_H
#define PREFETCH_BLOCK_BPF_H

struct uvm_va_block_struct {
	NvU64 start;
} __attribute__((preserve_access_index));

#define NO_BLOCK (~0ULL)

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* pid_tgid of the servicing task */
	__type(value, __u64);	/* start of the block being decided */
} cur_block SEC(".maps");

SEC("fentry/uvm_perf_prefetch_get_hint_va_block")
int BPF_PROG(note_block, struct uvm_va_block_struct *va_block)
{
	__u64 id = bpf_get_current_pid_tgid(), start = va_block->start;

	bpf_map_update_elem(&cur_block, &id, &start, BPF_ANY);
	return 0;
}

static __always_inline __u64 current_block(void)
{
	__u64 id = bpf_get_current_pid_tgid(), *start;

	start = bpf_map_lookup_elem(&cur_block, &id);
	return start ? *start : NO_BLOCK;
}

#endif
