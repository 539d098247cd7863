// SPDX-License-Identifier: GPL-2.0
/*
 * none: never migrates and wants no event: the driver records no fault for
 * it, and the engine reads only the driver's counters (the faults to beat).
 */
#include "pfengine_abi.h"

PFE_ENGINE("never migrate: the engine reads the driver's counters only (the faults to beat)");
PFE_WANTS(0);

SEC("syscall")
int pfe_batch(void *ctx)
{
	return 0;
}
