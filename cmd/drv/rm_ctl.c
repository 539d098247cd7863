// SPDX-License-Identifier: GPL-2.0
/*
 * rm_ctl.c - the table of the RM scheduling controls gpuctl knows, from
 * rm_ctl.h's rows.
 */
#include <stddef.h>

#include "rm_ctl.h"

#define RM_CTL_ROW(cmd, name, watch, restored) { cmd, name, watch, restored },
const struct rm_tsg_ctl rm_tsg_ctls[] = { RM_TSG_CTLS(RM_CTL_ROW) };
#undef RM_CTL_ROW
const int rm_tsg_nctls = sizeof(rm_tsg_ctls) / sizeof(rm_tsg_ctls[0]);

const struct rm_tsg_ctl *rm_tsg_ctl_find(unsigned int cmd)
{
	for (int i = 0; i < rm_tsg_nctls; i++)
		if (rm_tsg_ctls[i].cmd == cmd)
			return &rm_tsg_ctls[i];
	return NULL;
}
