// SPDX-License-Identifier: GPL-2.0
/*
 * gpu_naming_test.c - one way to name a GPU (cmd/drv/rm_gpu.c): UUID and PCI
 * spellings, nvidia-smi's order (PCI bus id), and what --gpu accepts.
 */
#include <stdio.h>
#include <string.h>

#include "rm_gpu.h"

bool debug_output;	/* rm_gpu.c says why RM did not answer under -d */

static int pass, fail;
#define CHECK(c) do { if (c) pass++; else { fail++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

static void mk(struct gpu_info *g, __u32 id, __u32 dom, __u16 bus, __u8 last)
{
	static const __u8 base[16] = { 0x6d, 0x6f, 0x64, 0x65, 0x6c, 0x67, 0x50, 0x55,
				       0x80, 0, 0, 0, 0, 0, 0, 0x01 };

	memset(g, 0, sizeof(*g));
	g->gpu_id = id;
	memcpy(g->uuid, base, 16);
	g->uuid[15] = last;
	gpu_uuid_format(g->uuid, g->uuid_str);
	g->domain = dom;
	g->bus = bus;
	gpu_pci_format(dom, bus, 0, g->pci);
}

int main(void)
{
	struct gpu_info g[4];

	mk(&g[0], 0x300, 0, 3, 2);
	mk(&g[1], 0x100, 0, 1, 0);
	mk(&g[2], 0x10200, 1, 2, 3);
	mk(&g[3], 0x200, 0, 2, 1);
	CHECK(!strcmp(g[1].uuid_str, "GPU-6d6f6465-6c67-5055-8000-000000000000"));
	CHECK(strlen(g[0].uuid_str) == 40);
	CHECK(!strcmp(g[0].pci, "00000000:03:00.0"));
	CHECK(!strcmp(g[2].pci, "00000001:02:00.0"));
	gpus_order(g, 4);
	/* bus id order: 0000:01, 0000:02, 0000:03, 0001:02 */
	CHECK(g[0].gpu_id == 0x100 && g[0].index == 0);
	CHECK(g[1].gpu_id == 0x200 && g[1].index == 1);
	CHECK(g[2].gpu_id == 0x300 && g[2].index == 2);
	CHECK(g[3].gpu_id == 0x10200 && g[3].index == 3);
	/* --gpu spellings */
	CHECK(gpu_find(g, 4, "0") == 0);
	CHECK(gpu_find(g, 4, "3") == 3);
	CHECK(gpu_find(g, 4, "4") == -1);
	CHECK(gpu_find(g, 4, "-1") == -1);
	CHECK(gpu_find(g, 4, "GPU-6d6f6465-6c67-5055-8000-000000000002") == 2);
	CHECK(gpu_find(g, 4, "gpu-6D6F6465-6c67-5055-8000-000000000001") == 1);
	CHECK(gpu_find(g, 4, "6d6f6465-6c67-5055-8000-000000000003") == 3);
	CHECK(gpu_find(g, 4, "GPU-6d6f6465") == -1);	/* a prefix of all: ambiguous */
	CHECK(gpu_find(g, 4, "GPU-6d6f") == -1);	/* too short */
	CHECK(gpu_find(g, 4, "00000000:02:00.0") == 1);
	CHECK(gpu_find(g, 4, "0001:02:00.0") == 3);
	CHECK(gpu_find(g, 4, "GPU-zz") == -1);
	CHECK(gpu_find(g, 4, "") == -1);
	CHECK(gpu_find(g, 4, NULL) == -1);
	CHECK(gpu_by_id(g, 4, 0x300) == 2 && gpu_by_id(g, 4, 7) == -1);
	CHECK(gpu_by_uuid(g, 4, g[3].uuid) == 3);
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
