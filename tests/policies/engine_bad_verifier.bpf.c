// SPDX-License-Identifier: GPL-2.0
/* An engine policy the verifier refuses: it reads past the batch. */
#include "pfengine_abi.h"

PFE_ENGINE("reads out of bounds");

SEC("syscall")
int batch(void *ctx)
{
	__u32 i = pfe_io.nev;	/* unchecked: any value */

	return (int)pfe_io.ev[i].addr;
}
