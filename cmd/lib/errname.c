// SPDX-License-Identifier: GPL-2.0
/*
 * errname.c - the symbolic names of the errno values BPF loading answers
 * with, for lines that show both the text and the name.
 */
#include <errno.h>
#include <stddef.h>

#include "gpuctl.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* kernel-internal "operation not supported" */
#endif

const char *errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case E2BIG: return "E2BIG";
	case ENOTSUPP: return "ENOTSUPP";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBUSY: return "EBUSY";
	case ESRCH: return "ESRCH";
	default: return NULL;
	}
}
