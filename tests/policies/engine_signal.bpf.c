// SPDX-License-Identifier: GPL-2.0
/*
 * An engine policy that calls a helper no policy has business with: from a
 * bpf_loop callback (a subprogram), bpf_send_signal(SIGKILL) to gpuctl
 * itself.  Refused unless --allow-helpers (t_pfengine_trust.sh,
 * test_reliability_objects.sh).
 */
#include "pfengine_abi.h"

PFE_ENGINE("calls bpf_send_signal");

static long one(__u32 i, void *ctx)
{
	if (i == 1000000)
		bpf_send_signal(9);
	return 0;
}

SEC("syscall")
int batch(void *ctx)
{
	return pfe_for_each(one);
}
