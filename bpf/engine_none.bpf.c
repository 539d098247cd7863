// SPDX-License-Identifier: GPL-2.0
/* none: never migrates; the engine only counts (the cost of watching, the faults to beat). */
#include "pfengine_abi.h"

PFE_ENGINE("never migrate: the engine only counts (the cost of watching, the faults to beat)");

SEC("syscall")
int pfe_batch(void *ctx)
{
	return 0;
}
