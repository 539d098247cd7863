// SPDX-License-Identifier: GPL-2.0
/*
 * probe_tables.c - what probe looks for: the kfuncs of the kernel patch
 * (kernel-patch/nvidia-uvm/uvm_bpf_ext.c; tests/unit/test_house.sh compares
 * the two lists), the NVIDIA modules and device files.  Read by the facts
 * (probe.c) and the details (probe_report.c) alike.
 */
#include <stddef.h>

#include "probe_facts.h"

static const struct {
	const char *name;
	const char *what;
} kfunc_table[] = {	/* all the patch's (uvm_bpf_ext.c): test_house.sh compares */
	{ "bpf_uvm_set_va_block_region", "prefetch: set the region to prefetch" },
	{ "bpf_uvm_strstr", "policies matching process or kernel names" },
	{ "bpf_uvm_evict_move_head", "evict: move a chunk to the head of the eviction list" },
	{ "bpf_uvm_evict_move_tail", "evict: move a chunk to the tail of the eviction list" },
};

const char *const probe_modules[PROBE_NMODULES] = { "nvidia", "nvidia_uvm", "uvm_model" };
const char *const probe_devices[PROBE_NDEVICES] = {
	"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
};

#define N(a) PROBE_N(a)
_Static_assert(N(kfunc_table) <= PROBE_KFUNCS_MAX, "PROBE_KFUNCS_MAX too small");

size_t probe_nkfuncs(void)
{
	return N(kfunc_table);
}

const char *probe_kfunc_name(size_t i)
{
	return kfunc_table[i].name;
}

const char *probe_kfunc_what(size_t i)
{
	return kfunc_table[i].what;
}

