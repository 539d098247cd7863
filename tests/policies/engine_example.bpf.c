// SPDX-License-Identifier: GPL-2.0
/*
 * An engine policy of one's own (gpuctl-prefetch(8), USER ENGINE POLICIES):
 * each GPU fault moves its 2 MiB block and the next `ahead` blocks to the
 * GPU that faulted.  Build it (from gpuctl's tree, or with the installed
 * header's directory for -I):
 *
 *   clang -O2 -g -target bpf -I/usr/include/$(uname -m)-linux-gnu -Ibpf -c engine_example.bpf.c -o my.bpf.o
 *
 * and run it on a process:  gpuctl prefetch load file my.bpf.o -p PID ahead 4
 */
#include "pfengine_abi.h"

PFE_ENGINE("example: a fault moves its 2 MiB block and the next ones to its GPU");

PFE_PARAM(ahead, 1, 0, 64, "blocks moved after the faulting one");

PFE_COUNTER(asked);

static long one(__u32 i, void *ctx)
{
	struct pfe_event *e = pfe_ev(i);
	__u64 a, end;

	if (!e || !pfe_is_fault(e))
		return 0;
	a = e->addr & ~(PFE_BLOCK - 1);
	end = a + (ahead + 1) * PFE_BLOCK;
	if (e->flags & PFE_F_MANAGED) {		/* stay inside the allocation */
		if (a < e->ext_start)
			a = e->ext_start;
		if (end > e->ext_end)
			end = e->ext_end;
	}
	if (a < end && !pfe_req(a, end - a, e->gpu, 0))
		asked++;
	return 0;
}

SEC("syscall")
int batch(void *ctx)
{
	return pfe_for_each(one);
}
