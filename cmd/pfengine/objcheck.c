// SPDX-License-Identifier: GPL-2.0
/*
 * objcheck.c - what a user's engine object may do, checked on its bytes
 * before anything loads (the same bytes that load: trustfile.h).  An engine
 * program runs as root's kernel code; a policy needs its own global data,
 * maps, bpf_loop and a clock, nothing that reaches outside it: the helpers
 * every program of the object calls (subprograms and bpf_loop callbacks
 * included: every executable section is scanned) must be on the list below,
 * kfuncs are refused, unless the user says --allow-helpers; and the maps it
 * asks for may take PFE_OBJ_MAX_BYTES of kernel memory in all, counted on
 * this host's possible CPUs (mapcost.c; man/gpuctl-prefetch.rst).
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>

#include "pfengine.h"

/* The kernel helpers' names, by number. */
#define HELPER_NAME(name, value, ...) [value] = "bpf_" #name,
static const char *const helper_names[] = { ___BPF_FUNC_MAPPER(HELPER_NAME) };
#define NHELPERS (int)(sizeof(helper_names) / sizeof(helper_names[0]))

/* What a policy has business with: its maps, loops, clocks, numbers. */
static const int allowed[] = {
	BPF_FUNC_map_lookup_elem, BPF_FUNC_map_update_elem, BPF_FUNC_map_delete_elem,
	BPF_FUNC_map_push_elem, BPF_FUNC_map_pop_elem, BPF_FUNC_map_peek_elem,
	BPF_FUNC_map_lookup_percpu_elem, BPF_FUNC_for_each_map_elem, BPF_FUNC_loop,
	BPF_FUNC_spin_lock, BPF_FUNC_spin_unlock,
	BPF_FUNC_ktime_get_ns, BPF_FUNC_ktime_get_boot_ns, BPF_FUNC_ktime_get_coarse_ns,
	BPF_FUNC_jiffies64, BPF_FUNC_get_prandom_u32, BPF_FUNC_get_smp_processor_id,
	BPF_FUNC_get_numa_node_id, BPF_FUNC_strtol, BPF_FUNC_strtoul, BPF_FUNC_snprintf,
	BPF_FUNC_ringbuf_output, BPF_FUNC_ringbuf_reserve, BPF_FUNC_ringbuf_submit,
	BPF_FUNC_ringbuf_discard, BPF_FUNC_ringbuf_query,
	BPF_FUNC_dynptr_from_mem, BPF_FUNC_dynptr_read, BPF_FUNC_dynptr_write,
	BPF_FUNC_dynptr_data,
};

static bool helper_allowed(int id)
{
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (allowed[i] == id)
			return true;
	return false;
}

/* The first call of the instructions that is not allowed: 0, or -1 with why. */
static int scan_insns(const struct bpf_insn *in, size_t n, const char *sec, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (in[i].code == (BPF_LD | BPF_DW | BPF_IMM)) {
			i++;	/* a 16-byte instruction */
			continue;
		}
		if (in[i].code != (BPF_JMP | BPF_CALL))
			continue;
		if (in[i].src_reg == BPF_PSEUDO_KFUNC_CALL) {
			snprintf(why, len, "its program (section %s) calls a kernel function (kfunc); "
				 "an engine policy may not (--allow-helpers allows it)", sec);
			return -1;
		}
		if (in[i].src_reg == 0 && !helper_allowed(in[i].imm)) {
			int id = in[i].imm;

			snprintf(why, len, "its program (section %s) calls %s (helper %d), which an engine "
				 "policy may not (--allow-helpers allows it; see gpuctl-prefetch(8))", sec,
				 id > 0 && id < NHELPERS && helper_names[id] ? helper_names[id] : "a helper",
				 id);
			return -1;
		}
	}
	return 0;
}

/* Every executable section of the ELF object's bytes, scanned. */
static int scan_elf(const void *elf, size_t size, char *why, size_t len)
{
	const unsigned char *b = elf;
	const Elf64_Ehdr *eh = elf;
	const Elf64_Shdr *sh, *strs;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size || (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum ||
	    eh->e_shoff % 8 || eh->e_shstrndx >= eh->e_shnum)
		return snprintf(why, len, "it is not a 64-bit ELF object whose sections can be read"), -1;
	sh = (const Elf64_Shdr *)(b + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *name = "?";

		if (sh[i].sh_type != SHT_PROGBITS || !(sh[i].sh_flags & SHF_EXECINSTR) || !sh[i].sh_size)
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
		    sh[i].sh_offset % 8)
			return snprintf(why, len, "its section %d lies outside the file", i), -1;
		if (strs->sh_offset < size && sh[i].sh_name < size - strs->sh_offset &&
		    memchr(b + strs->sh_offset + sh[i].sh_name, 0, size - strs->sh_offset - sh[i].sh_name))
			name = (const char *)b + strs->sh_offset + sh[i].sh_name;
		if (scan_insns((const struct bpf_insn *)(b + sh[i].sh_offset),
			       sh[i].sh_size / sizeof(struct bpf_insn), name, why, len))
			return -1;
	}
	return 0;
}

/* What the object's maps take of the kernel's memory, in all, on this host's possible CPUs. */
static int check_maps(struct bpf_object *obj, char *why, size_t len)
{
	unsigned long long total = 0, one;
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map *m;

	if (ncpu < 1) {
		snprintf(why, len, "the number of possible CPUs cannot be read (%s), so what its "
			 "maps take cannot be counted", strerror(-ncpu));
		return -1;
	}
	bpf_object__for_each_map(m, obj) {
		one = pfe_map_cost(bpf_map__type(m), bpf_map__key_size(m), bpf_map__value_size(m),
				   bpf_map__max_entries(m), bpf_map__map_flags(m), (unsigned int)ncpu);
		total += one;
		if (total > PFE_OBJ_MAX_BYTES) {
			snprintf(why, len, "its maps take %llu MiB of kernel memory with %d possible "
				 "CPUs (map %s: %llu MiB); an engine policy may have %llu MiB in all",
				 (total + (1 << 20) - 1) >> 20, ncpu, bpf_map__name(m),
				 (one + (1 << 20) - 1) >> 20, PFE_OBJ_MAX_BYTES >> 20);
			return -1;
		}
	}
	return 0;
}

int pfe_obj_limits(struct bpf_object *obj, const void *elf, size_t size, bool allow_helpers,
		   char *why, size_t len)
{
	if (check_maps(obj, why, len))
		return -1;
	return allow_helpers ? 0 : scan_elf(elf, size, why, len);
}
