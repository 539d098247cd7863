// SPDX-License-Identifier: GPL-2.0
/* An engine policy built against another ABI version: the engine refuses it. */
#include "pfengine_abi.h"

const volatile __u32 pfe_abi_version SEC(".rodata") = PFE_ABI_VERSION + 98;
struct pfe_io pfe_io SEC(".data.pfe_io");
char _license[] SEC("license") = "GPL";

SEC("syscall")
int batch(void *ctx)
{
	return 0;
}
