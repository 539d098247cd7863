// SPDX-License-Identifier: GPL-2.0
/* The engine's ABI, but a tracepoint program, not SEC("syscall"): refused. */
#include "pfengine_abi.h"

PFE_ENGINE("wrong section");

SEC("tracepoint/syscalls/sys_enter_getpid")
int batch(void *ctx)
{
	pfe_io.nreq = 0;
	return 0;
}
