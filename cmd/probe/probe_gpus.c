// SPDX-License-Identifier: GPL-2.0
/*
 * probe_gpus.c - probe's GPU section: the GPUs as RM lists them (cmd/drv/gpus.h),
 * index (nvidia-smi's), UUID, name, memory, PCI bus id.
 */
#include <stdio.h>

#include "gpuctl.h"
#include "gpus.h"
#include "probe_gpus.h"

void probe_gpus_json(json_writer_t *w)
{
	const struct gpu_info *g;
	const char *why;
	int n = gpus_list(&g, false, &why);

	jsonw_string_field(w, "rm_device", rm_device_path(NULL));
	jsonw_name(w, "gpus");
	if (n < 0) {
		jsonw_null(w);
		jsonw_string_field(w, "gpus_error", why);
		return;
	}
	jsonw_start_array(w);
	for (int i = 0; i < n; i++) {
		jsonw_start_object(w);
		jsonw_int_field(w, "gpu", g[i].index);
		jsonw_string_field(w, "uuid", g[i].uuid_str);
		jsonw_string_field(w, "name", g[i].name);
		jsonw_string_field(w, "pci_bus_id", g[i].pci);
		if (g[i].have_mem) {
			jsonw_uint_field(w, "memory_total_bytes", g[i].total_bytes);
			jsonw_uint_field(w, "memory_free_bytes", g[i].free_bytes);
		} else {
			jsonw_name(w, "memory_total_bytes");
			jsonw_null(w);
			jsonw_name(w, "memory_free_bytes");
			jsonw_null(w);
		}
		jsonw_uint_field(w, "rm_gpu_id", g[i].gpu_id);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

void probe_gpus_text(void)
{
	const struct gpu_info *g;
	const char *why;
	int n = gpus_list(&g, false, &why);

	printf("\ngpus (RM, %s)\n", rm_device_path(NULL));
	if (n < 0) {
		printf("  %-40s %s\n", "none listed", why);
		return;
	}
	if (!n)
		printf("  %-40s %s\n", "none", "RM has no GPU attached");
	for (int i = 0; i < n; i++) {
		char label[64], mem[64] = "memory unknown", tot[UNITS_BUF], fr[UNITS_BUF];

		snprintf(label, sizeof(label), "gpu %d", g[i].index);
		if (g[i].have_mem)
			snprintf(mem, sizeof(mem), "%s, %s free",
				 units_fmt_size(g[i].total_bytes, UNITS_HUMAN, tot, sizeof(tot)),
				 units_fmt_size(g[i].free_bytes, UNITS_HUMAN, fr, sizeof(fr)));
		printf("  %-40s %s  %s  %s  %s\n", label, g[i].uuid_str,
		       g[i].name[0] ? g[i].name : "(name unknown)", mem, g[i].pci);
	}
}
